import type { Store } from '../store/store.js';

/** What every domain function is given: the store and the clock (a function, so tests can move time). */
export interface Ctx {
  store: Store;
  now: () => number;
  /** Told after a transaction that wrote webhook events commits, so a dispatcher can send them at once. */
  onEventsCommitted?: () => void;
}

/** Who is acting through a secret key (or the CLI): every protected operation is scoped to an account. */
export interface Actor {
  accountId: number;
}

/** The account that REFKIT_SECRET_KEY and the CLI act for, created by the first migration. */
export const DEFAULT_ACCOUNT: Actor = { accountId: 1 };
