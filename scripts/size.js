// Prints the gzip size of the widget bundles (everything included) and fails past the 25 KB budget.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET = 25 * 1024;
const files = ['dist/widget/referral-widget.js', 'dist/widget/referral-widget.iife.js'];
let over = false;
for (const file of files) {
  const raw = readFileSync(file);
  const gz = gzipSync(raw, { level: 9 }).length;
  const mark = file.endsWith('referral-widget.js') && gz > BUDGET ? '  OVER BUDGET' : '';
  if (mark) over = true;
  console.log(`${file}: ${(raw.length / 1024).toFixed(1)} KB, ${(gz / 1024).toFixed(1)} KB gzip${mark}`);
}
console.log(`budget for the ES module: ${BUDGET / 1024} KB gzip`);
process.exit(over ? 1 : 0);
