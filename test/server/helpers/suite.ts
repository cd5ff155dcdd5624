/**
 * Runs a block of tests once per database kind, against a fresh service per test:
 *   eachDatabase('qualify', (service) => { it('...', async () => { const s = service(); ... }) })
 * or, with eachDatabaseShared, one service for the whole block (read-mostly tests that need many rows).
 */
import { after, afterEach, before, beforeEach, describe } from 'node:test';
import { databaseKinds, type DatabaseKind } from './databases.js';
import { startService, type ServiceOptions, type TestService } from './service.js';

/** With PostgreSQL through PgBouncer, for the files whose outcome a pooler can change (each says why). */
const kinds = await databaseKinds({ pgbouncer: true });
const directKinds = await databaseKinds();

/**
 * A service's options, `pgbouncer: true` to run through PgBouncer too (docs/testing.md: which files, and why), and `only` to run on one kind
 * (a long file split in one file a kind, so that the runner runs them side by side, each within its limit).
 */
export type SuiteOptions = ServiceOptions & { pgbouncer?: boolean; only?: DatabaseKind['name'] };

type Body = (service: () => TestService, kind: DatabaseKind) => void;

function perDatabase(name: string, body: Body, shared: boolean, { pgbouncer = false, only, ...options }: SuiteOptions = {}): void {
  for (const kind of (pgbouncer ? kinds : directKinds).filter((k) => only === undefined || k.name === only)) {
    describe(`${name} [${kind.name}]`, { skip: kind.skip }, () => {
      let current: TestService | undefined;
      (shared ? before : beforeEach)(async () => {
        current = await startService(kind, options);
      });
      (shared ? after : afterEach)(async () => {
        await current?.close();
        current = undefined;
      });
      body(() => {
        if (!current) throw new Error('no service: call service() inside a test');
        return current;
      }, kind);
    });
  }
}

export const eachDatabase = (name: string, body: Body, options?: SuiteOptions) => perDatabase(name, body, false, options);
export const eachDatabaseShared = (name: string, body: Body, options?: SuiteOptions) => perDatabase(name, body, true, options);

/**
 * Declares the blocks `body` makes for each database kind inside one block that runs them at the same
 * time: for files whose tests mostly wait (retry schedules, child processes starting), so that the
 * SQLite and PostgreSQL halves overlap instead of adding up. Each kind's block keeps its own state, and
 * must say `concurrency: 1`: blocks inherit their parent's concurrency, and its tests run one at a time.
 */
export function kindsAtOnce(title: string, body: (kind: DatabaseKind) => void): void {
  describe(title, { concurrency: true }, () => {
    for (const kind of directKinds) body(kind);
  });
}
