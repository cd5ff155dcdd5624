/**
 * `npm run bench`: the service's hot routes against their baselines, on SQLite and PostgreSQL, written
 * to BENCHMARKS.md; other modes for growth, profiles, comparisons, retention, processes and the backtest
 * (`npm run bench -- --help`, ./options.ts). The command line is read here first, and the benchmark
 * (./modes.ts) loaded only after: --help and a mistyped option answer at once, and a full run says what
 * it will do and how long it takes before it starts.
 */
import { FULL_RUN_NOTICE, HELP, isFullRun, parseBenchArgs, type BenchOptions } from './options.js';

let options: BenchOptions;
try {
  options = parseBenchArgs(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`npm run bench: ${(err as Error).message}\nThe modes and options: npm run bench -- --help\n`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(HELP);
} else {
  if (isFullRun(options)) process.stdout.write(`${FULL_RUN_NOTICE}\n\n`);
  await import('./modes.js');
}
