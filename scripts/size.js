// Prints the gzip size of the widget: the first load (the ES entry and the chunks it imports
// statically: what a page downloads before the sign-up form shows), the chunks loaded on demand (share
// view, QR encoder, other languages), and the classic-script (IIFE) build, which is one file. Fails
// when the first load is over 15 KB gzip.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET = 15 * 1024;
const DIR = 'dist/widget';
const ENTRY = join(DIR, 'referral-widget.js');
const IIFE = join(DIR, 'referral-widget.iife.js');
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

if (!existsSync(ENTRY) || !existsSync(IIFE)) {
  console.error(`${DIR} is incomplete: run "npm run build:widget" first`);
  process.exit(1);
}

/** The file and every chunk it imports statically (`import ... from "./x.js"`, `import "./x.js"`), not `import("./x.js")`. */
function staticGraph(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = readFileSync(file, 'utf8');
  for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*)["']([^"']+\.js)["']/g)) staticGraph(normalize(join(dirname(file), m[1])), seen);
  return seen;
}

const first = [...staticGraph(ENTRY)];
const all = [ENTRY, ...readdirSync(join(DIR, 'chunks')).filter((f) => f.endsWith('.js')).map((f) => join(DIR, 'chunks', f))];
const onDemand = all.filter((f) => !first.includes(f));
const firstLoad = first.reduce((n, f) => n + gz(f), 0);
const total = all.reduce((n, f) => n + gz(f), 0);

console.log('first load (ES entry and its static imports):');
for (const f of first) console.log(`  ${f}: ${kb(gz(f))} gzip`);
console.log('on demand:');
for (const f of onDemand) console.log(`  ${f}: ${kb(gz(f))} gzip`);
console.log(`first load: ${kb(firstLoad)} gzip (budget ${kb(BUDGET)})${firstLoad > BUDGET ? '  OVER BUDGET' : ''}`);
console.log(`total, every chunk: ${kb(total)} gzip`);
console.log(`classic script (one file): ${IIFE}: ${kb(gz(IIFE))} gzip`);
process.exit(firstLoad > BUDGET ? 1 : 0);
