/**
 * custom-elements.json is what editors, linters and catalogues read about <referral-widget>. It must be
 * the manifest the analyzer makes from the source as it is now, and name every event, part, slot and
 * custom property the element's source uses, each read from the source here rather than listed. (The
 * attributes are checked against the ones the defined element observes, in a browser:
 * test/widget/manifest.test.ts.)
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const root = join(import.meta.dirname, '../..');
const widgetDir = join(root, 'src/widget');
const committed = readFileSync(join(root, 'custom-elements.json'), 'utf8');

interface Named {
  name: string;
}
interface ElementDeclaration {
  tagName?: string;
  attributes?: Named[];
  events?: Named[];
  cssParts?: Named[];
  cssProperties?: Named[];
  slots?: Named[];
}
const manifest = JSON.parse(committed) as { modules: { declarations?: ElementDeclaration[] }[] };
const element = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'referral-widget');
const names = (list: Named[] | undefined) => new Set((list ?? []).map((x) => x.name));
const sorted = (set: Set<string>) => [...set].sort();

/** The element's own source files (not the generated catalogues). */
const sources = readdirSync(widgetDir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: f, text: readFileSync(join(widgetDir, f), 'utf8') }));
const matches = (pattern: RegExp) => new Set(sources.flatMap(({ text }) => [...text.matchAll(pattern)].map((m) => m[1]!)));

/** Event types the source dispatches: string literals given to `this.#emit(...)` or `new CustomEvent(...)`. */
function dispatchedEvents(): Set<string> {
  const found = new Set<string>();
  for (const { file, text } of sources) {
    const visit = (node: ts.Node): void => {
      const first =
        (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.getText() === '#emit') ||
        (ts.isNewExpression(node) && node.expression.getText() === 'CustomEvent')
          ? (node as ts.CallExpression | ts.NewExpression).arguments?.[0]
          : undefined;
      if (first && ts.isStringLiteralLike(first)) found.add(first.text);
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true));
  }
  return found;
}

describe('custom-elements.json', () => {
  it('is the manifest the analyzer makes from the source now (else run npm run manifest)', () => {
    // The analyzer writes under the working directory; a scratch directory there, removed after.
    const cache = join(root, 'node_modules/.cache');
    mkdirSync(cache, { recursive: true });
    const scratch = mkdtempSync(join(cache, 'manifest-check-'));
    try {
      const cli = join(root, 'node_modules/@custom-elements-manifest/analyzer/cem.js');
      execFileSync(process.execPath, [cli, 'analyze', '--quiet', '--outdir', relative(root, scratch)], { cwd: root, stdio: 'pipe' });
      assert.equal(readFileSync(join(scratch, 'custom-elements.json'), 'utf8'), committed, 'custom-elements.json is stale: run npm run manifest');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('is named by package.json', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { customElements?: string };
    assert.equal(pkg.customElements, 'custom-elements.json');
  });

  it('describes <referral-widget>', () => {
    assert.ok(element, 'no declaration with tagName referral-widget');
  });

  it('lists every event the element dispatches, and no other', () => {
    const dispatched = dispatchedEvents();
    assert.ok(dispatched.size > 0, 'found no dispatched event in src/widget: the search is broken');
    assert.deepEqual(sorted(names(element?.events)), sorted(dispatched));
  });

  it('lists every part the templates have, and no other', () => {
    // Static names only: `${name}-field` is described with the part `field`.
    const parts = new Set([...matches(/\bpart="([^"]+)"/g)].flatMap((value) => value.split(/\s+/)).filter((p) => !p.includes('$')));
    assert.ok(parts.has('card'), 'found no part in src/widget: the search is broken');
    assert.deepEqual(sorted(names(element?.cssParts)), sorted(parts));
  });

  it('lists every slot the templates have, and no other', () => {
    const slots = matches(/<slot name="([^"]+)"/g);
    assert.ok(slots.size > 0, 'found no slot in src/widget: the search is broken');
    assert.deepEqual(sorted(names(element?.slots)), sorted(slots));
  });

  it('lists every custom property the styles read, and no other', () => {
    const properties = matches(/var\((--referral-widget-[\w-]+)/g);
    assert.ok(properties.size > 0, 'found no custom property in src/widget: the search is broken');
    assert.deepEqual(sorted(names(element?.cssProperties)), sorted(properties));
  });
});
