/**
 * The documentation hangs together: every relative link and image in README.md, BENCHMARKS.md and the
 * docs/ pages points at a file that exists (and, into a Markdown page, at a heading it has), and README
 * links every docs page, so that none is out of reach. Links are read with a Markdown parser (links in
 * code are not links) and anchors made as GitHub makes them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import { STRIPE_EVENT_TYPES } from '../../src/api/billing-schemas.js';
import { ROOT } from './helpers/root.js';

const markdown = new MarkdownIt({ html: true });
const parse = (file: string) => markdown.parse(readFileSync(file, 'utf8'), {});

/** Every link and image target of a page: Markdown links and images, and `src`/`href` of its HTML. */
function targets(file: string): string[] {
  return parse(file).flatMap((token) => {
    if (token.type === 'html_block') return [...token.content.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    return (token.children ?? []).flatMap((child) => {
      if (child.type === 'link_open') return [String(child.attrGet('href') ?? '')];
      if (child.type === 'image') return [String(child.attrGet('src') ?? '')];
      if (child.type === 'html_inline') return [...child.content.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
      return [];
    });
  });
}

/** The anchors of a page's headings, as GitHub makes them. */
function anchors(file: string): Set<string> {
  const slugger = new GithubSlugger();
  const tokens = parse(file);
  return new Set(
    tokens.flatMap((token, i) => {
      if (token.type !== 'heading_open') return [];
      const text = (tokens[i + 1]!.children ?? []).filter((c) => c.type === 'text' || c.type === 'code_inline').map((c) => c.content).join('');
      return [slugger.slug(text)];
    }),
  );
}

/** The relative links of a page that lead nowhere, each with what is wrong. */
function brokenLinks(file: string): string[] {
  return targets(file).flatMap((target) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return []; // http:, https:, mailto: ...: not this repository's
    const [path, anchor] = target.split('#') as [string, string | undefined];
    const to = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(to)) return [`${target}: no such file`];
    if (anchor !== undefined && to.endsWith('.md') && !anchors(to).has(anchor)) return [`${target}: no heading #${anchor} in ${relative(ROOT, to)}`];
    return [];
  });
}

const DOCS = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
const PAGES = ['README.md', 'BENCHMARKS.md', ...DOCS];

describe('documentation links', () => {
  it('has docs pages to check', () => {
    assert.ok(DOCS.length >= 10, DOCS.join(', '));
  });

  for (const page of PAGES) {
    it(`every relative link and image of ${page} resolves`, () => {
      assert.deepEqual(brokenLinks(join(ROOT, page)), []);
    });
  }

  it("README's Stripe set-up names the events to select on the endpoint, as the Billing page does", () => {
    const step = readFileSync(join(ROOT, 'README.md'), 'utf8').split('## Payments from Stripe')[1]!.split('\n2. ')[0]!;
    assert.deepEqual([...step.matchAll(/`((?:invoice|checkout|charge)\.[a-z_.]+)`/g)].map((m) => m[1]), [...STRIPE_EVENT_TYPES]);
  });

  it('README links every docs page', () => {
    const linked = new Set(targets(join(ROOT, 'README.md')).map((t) => t.split('#')[0]));
    assert.deepEqual(DOCS.filter((page) => !linked.has(page)), []);
  });

  it('finds a missing file, a missing heading and a missing image, and takes headings as GitHub makes them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'refkit-docs-links-'));
    try {
      writeFileSync(join(dir, 'other.md'), '# Other\n\n## What `npm test` needs\n');
      writeFileSync(
        join(dir, 'page.md'),
        [
          '# Page',
          '[fine](other.md#what-npm-test-needs) [here](#page) [web](https://example.com/nope.md)',
          '[gone](gone.md) [no heading](other.md#nope) ![no image](missing.png)',
          '<img src="missing-too.png">',
          '`[in code](not-a-link.md)`',
          '',
        ].join('\n'),
      );
      assert.deepEqual(brokenLinks(join(dir, 'page.md')), [
        'gone.md: no such file',
        `other.md#nope: no heading #nope in ${relative(ROOT, join(dir, 'other.md'))}`,
        'missing.png: no such file',
        'missing-too.png: no such file',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
