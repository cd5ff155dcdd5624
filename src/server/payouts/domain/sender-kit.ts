/** The cash payout sender's settings (./cash-payout-sender.ts), and what its provider adapters are given. */
import type { FastifyBaseLogger } from 'fastify';
import type { CashPayoutRow } from '../store/cash-payout-store.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export interface CashSenderOptions {
  /** Waits before each retry of a failed attempt; the last repeats. */
  retryDelaysMs: number[];
  /** How long a payout that waits (no credentials) waits before it is looked at again. */
  waitMs: number;
  /** How often a PayPal batch that got no webhook is asked about. */
  statusPollMs: number;
  pollMs: number;
  leaseMs: number;
  timeoutMs: number;
  batchSize: number;
}

export const DEFAULT_CASH_SENDER_OPTIONS: CashSenderOptions = {
  retryDelaysMs: [10 * SECOND, MINUTE, 5 * MINUTE, 30 * MINUTE, HOUR],
  waitMs: 10 * MINUTE,
  statusPollMs: HOUR,
  pollMs: 5 * SECOND,
  leaseMs: 2 * MINUTE,
  timeoutMs: 20 * SECOND,
  batchSize: 50,
};

/** What a provider adapter is given: the loop's options and how to put a payout off. */
export interface SenderKit {
  options: CashSenderOptions;
  later(rows: readonly CashPayoutRow[], reason: string, attempted: boolean): Promise<void>;
  log?: FastifyBaseLogger;
}

