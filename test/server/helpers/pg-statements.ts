/** What a call sends to PostgreSQL, for tests that count round trips. */
import { mock } from 'node:test';
import pg from 'pg';

/** The statements `call` sends (the cache watcher's poll, on its own timer, left out). */
export async function statementsSent(call: () => Promise<unknown>): Promise<string[]> {
  return (await statementsWithValues(call)).map((q) => q.text).filter((text) => !/^select "n" from "cache_epoch"/.test(text));
}

/** A statement sent, with its parameters and how it ended (undefined, or the error it failed with). */
export interface SentStatement {
  text: string;
  values: unknown[];
  outcome: Promise<unknown>;
}

/** Every statement `call` sends, with its parameters and outcome. */
export async function statementsWithValues(call: () => Promise<unknown>): Promise<SentStatement[]> {
  const query = mock.method(pg.Client.prototype, 'query');
  try {
    await call();
  } finally {
    mock.restoreAll();
  }
  return query.mock.calls.map((c) => {
    const [q, v] = c.arguments as unknown as [string | { text: string; values?: unknown[] }, unknown[] | undefined];
    return {
      text: typeof q === 'string' ? q : q.text,
      values: (typeof q === 'string' ? v : q.values) ?? [],
      outcome: Promise.resolve(c.result).then(() => undefined, (err: unknown) => err),
    };
  });
}
