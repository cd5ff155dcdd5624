/** The project's documentation as the tests read it: README.md and the pages under docs/. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './root.js';

/** A documentation file's text, by its path from the repository root (`README.md`, `docs/api.md`). */
export const readDoc = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** The part of a page from the heading `from` up to the heading `to` (or the end), failing if `from` is missing. */
export function docSection(path: string, from: string, to?: string): string {
  const text = readDoc(path);
  const start = text.indexOf(`\n${from}\n`);
  assert.ok(start >= 0, `${path} has the heading ${from}`);
  const end = to === undefined ? -1 : text.indexOf(`\n${to}\n`, start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Every page of the documentation: README.md, then docs/*.md by name. */
export const DOC_PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/**
 * Why a shell example may be shown and not run, as its marker says it (`<!-- not run: REASON -->` on the
 * line before the fence): nothing else excuses a block from running.
 */
export const NOT_RUN_REASONS = [
  'starts a long-running server',
  'needs Docker',
  'needs the Stripe CLI',
  'prompts for a password',
  'is the test command itself',
  'is the bench command itself',
  'needs PostgreSQL',
  'replaces the database of a stopped service',
  'needs the link from an email',
  'installs from the npm registry',
  'publishes to the npm registry',
] as const;

/** A ```sh or ```console block of a page: its code, and the reason it is not run when it is marked. */
export interface ShellBlock {
  page: string;
  /** 1-based, among the page's shell blocks. */
  index: number;
  code: string;
  notRun?: string;
}

/** The shell blocks (```sh and ```console, indented or not) of a page, in order. */
export function shellBlocks(page: string): ShellBlock[] {
  const found = [...readDoc(page).matchAll(/^(?:( *)<!-- not run: (.*?) -->\n)?( *)```(?:sh|console)\n([\s\S]*?)^ *```$/gm)];
  return found.map((m, i) => {
    const indent = m[3]!.length;
    const code = m[4]!
      .split('\n')
      .map((line) => line.slice(Math.min(indent, /^ */.exec(line)![0].length)))
      .join('\n');
    return { page, index: i + 1, code, ...(m[2] !== undefined && { notRun: m[2] }) };
  });
}
