/** The project's documentation as the tests read it: README.md and the pages under docs/. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
