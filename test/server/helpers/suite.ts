/**
 * Runs a block of tests once per database kind, each test against its own fresh service:
 *   eachDatabase('qualify', (service) => { it('...', async () => { const s = service(); ... }) })
 */
import { after, afterEach, before, beforeEach, describe } from 'node:test';
import { databaseKinds, type DatabaseKind } from './databases.js';
import { startService, type TestService } from './service.js';

const kinds = await databaseKinds();

export function eachDatabase(name: string, body: (service: () => TestService, kind: DatabaseKind) => void): void {
  for (const kind of kinds) {
    describe(`${name} [${kind.name}]`, { skip: kind.skip }, () => {
      let current: TestService | undefined;
      beforeEach(async () => {
        current = await startService(kind);
      });
      afterEach(async () => {
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

/** One service shared by a whole block (for read-only tests that need many rows). */
export function eachDatabaseShared(name: string, body: (service: () => TestService, kind: DatabaseKind) => void): void {
  for (const kind of kinds) {
    describe(`${name} [${kind.name}]`, { skip: kind.skip }, () => {
      let current: TestService | undefined;
      before(async () => {
        current = await startService(kind);
      });
      after(async () => {
        await current?.close();
      });
      body(() => current!, kind);
    });
  }
}
