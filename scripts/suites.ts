/**
 * Runs test suites one after another, every one of them whatever the others did, and reports each one's
 * result: a failing suite never hides the results of the suites after it (a `&&` chain stopped at the
 * first failure and said nothing of the rest).
 */
import { spawnSync, type StdioOptions } from 'node:child_process';

export interface Suite {
  name: string;
  command: string;
  args: string[];
}

export interface SuiteResult {
  name: string;
  passed: boolean;
  /** The exit code, or the signal that ended the suite. */
  exit: string;
  /** How long it ran, in ms. */
  ms: number;
}

export function runSuites(suites: Suite[], stdio: StdioOptions = 'inherit'): SuiteResult[] {
  return suites.map(({ name, command, args }) => {
    const start = performance.now();
    const run = spawnSync(command, args, { stdio });
    const exit = run.error ? run.error.message : run.signal ? `signal ${run.signal}` : `exit ${run.status}`;
    return { name, passed: !run.error && run.status === 0, exit, ms: performance.now() - start };
  });
}

/** One line per suite, then the verdict. */
export function report(results: SuiteResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  const failed = results.filter((r) => !r.passed);
  return [
    'Test suites:',
    ...results.map((r) => `  ${r.name.padEnd(width)}  ${(r.passed ? 'passed' : `FAILED (${r.exit})`).padEnd(18)} ${(r.ms / 1000).toFixed(0).padStart(5)} s`),
    failed.length === 0 ? `All ${results.length} suites passed.` : `${failed.length} of ${results.length} suites failed: ${failed.map((r) => r.name).join(', ')}.`,
  ].join('\n');
}
