/**
 * Runs test suites, every one of them whatever the others did, and reports each one's result and time:
 * a failing suite never hides the results of the suites after it (a `&&` chain stopped at the first
 * failure and said nothing of the rest).
 *
 * Suites one after another share the machine's two cores with no one; suites given the same `stage`
 * run at the same time instead (the typecheck and lint: each mostly one core), their output held and
 * printed whole, in order, as each ends, so that it never interleaves.
 */
import { spawn, type StdioOptions } from 'node:child_process';

export interface Suite {
  name: string;
  command: string;
  args: string[];
  /** Consecutive suites of the same stage run at the same time. */
  stage?: string;
}

export interface SuiteResult {
  name: string;
  passed: boolean;
  /** The exit code, or the signal that ended the suite. */
  exit: string;
  /** How long it ran, in ms. */
  ms: number;
}

/** Runs one suite; `hold` keeps its output and hands it back instead of passing it through. */
function run({ name, command, args }: Suite, stdio: StdioOptions, hold: boolean): Promise<SuiteResult & { output: Buffer[] }> {
  const start = performance.now();
  const output: Buffer[] = [];
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: hold && stdio === 'inherit' ? ['ignore', 'pipe', 'pipe'] : stdio });
    child.stdout?.on('data', (b: Buffer) => output.push(b));
    child.stderr?.on('data', (b: Buffer) => output.push(b));
    const end = (exit: string, passed: boolean) => resolve({ name, passed, exit, ms: performance.now() - start, output });
    child.on('error', (err) => end(err.message, false));
    child.on('close', (code, signal) => end(signal ? `signal ${signal}` : `exit ${code}`, code === 0));
  });
}

export async function runSuites(suites: Suite[], stdio: StdioOptions = 'inherit'): Promise<SuiteResult[]> {
  const results: SuiteResult[] = [];
  for (let i = 0; i < suites.length; ) {
    const stage = suites[i]!.stage;
    let j = i + 1;
    while (stage !== undefined && j < suites.length && suites[j]!.stage === stage) j++;
    const together = suites.slice(i, j);
    const hold = together.length > 1;
    const running = together.map((s) => run(s, stdio, hold));
    for (const r of running) {
      const { output, ...result } = await r;
      if (hold && stdio === 'inherit') process.stdout.write(Buffer.concat(output));
      results.push(result);
    }
    i = j;
  }
  return results;
}

/** One line per suite (its result and time), then the verdict. */
export function report(results: SuiteResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length));
  const outcomes = results.map((r) => (r.passed ? 'passed' : `FAILED (${r.exit})`));
  const outcomeWidth = Math.max(...outcomes.map((o) => o.length));
  const failed = results.filter((r) => !r.passed);
  return [
    'Test suites:',
    ...results.map((r, i) => `  ${r.name.padEnd(width)}  ${outcomes[i]!.padEnd(outcomeWidth)}  ${Math.round(r.ms / 1000)} s`),
    failed.length === 0 ? `All ${results.length} suites passed.` : `${failed.length} of ${results.length} suites failed: ${failed.map((r) => r.name).join(', ')}.`,
  ].join('\n');
}
