/** What a call sends to PostgreSQL, for tests that count round trips. */
import { mock } from 'node:test';
import pg from 'pg';

/** The statements `call` sends (the cache watcher's poll, on its own timer, left out). */
export async function statementsSent(call: () => Promise<unknown>): Promise<string[]> {
  const query = mock.method(pg.Client.prototype, 'query');
  try {
    await call();
  } finally {
    mock.restoreAll();
  }
  return query.mock.calls
    .map((c) => (typeof c.arguments[0] === 'string' ? c.arguments[0] : (c.arguments[0] as { text: string }).text))
    .filter((text) => !/^select "n" from "cache_epoch"/.test(text));
}
