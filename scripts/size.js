// Prints the gzip size of the widget bundles (everything included) and fails when the ES module is
// over the 25 KB budget.
import { existsSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET = 25 * 1024;
const ES_MODULE = 'dist/widget/referral-widget.js';
const files = [ES_MODULE, 'dist/widget/referral-widget.iife.js'];
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

let over = false;
for (const file of files) {
  if (!existsSync(file)) {
    console.error(`${file} is missing: run "npm run build:widget" first`);
    process.exit(1);
  }
  const raw = readFileSync(file);
  const gz = gzipSync(raw, { level: 9 }).length;
  const isOver = file === ES_MODULE && gz > BUDGET;
  over ||= isOver;
  console.log(`${file}: ${kb(raw.length)}, ${kb(gz)} gzip${isOver ? '  OVER BUDGET' : ''}`);
}
console.log(`budget for the ES module: ${kb(BUDGET)} gzip`);
process.exit(over ? 1 : 0);
