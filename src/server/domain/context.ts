import type { Store } from '../store/store.js';
import type { DomainMetrics } from './metrics.js';
import type { ScryptCost } from './passwords.js';

/** An email to one person. Both bodies are given: mail clients that show no HTML get the text. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers (List-Unsubscribe and List-Unsubscribe-Post of the lifecycle emails). */
  headers?: Record<string, string>;
  /** Images the HTML shows by `cid:` (the welcome email's QR code). */
  attachments?: { filename: string; content: Buffer; cid: string; contentType: string }[];
}

/** Sends email (SMTP_URL); a failed send rejects, so the caller can tell the person it did not go out. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** What every domain function is given: the store and the clock (a function, so tests can move time). */
export interface Ctx {
  store: Store;
  now: () => number;
  /** Present when the service can send email: magic links and double opt-in need it. */
  mailer?: Mailer;
  /**
   * Told after a transaction that wrote to an outbox (webhook events, lifecycle emails) commits, so the
   * dispatcher and the email sender can send at once.
   */
  onEventsCommitted?: () => void;
  /** Present when metrics are on (METRICS_TOKEN or METRICS_BIND): told what the domain did (./metrics.ts). */
  metrics?: DomainMetrics;
  /**
   * The scrypt cost of new password hashes; unset (the service, always) means PASSWORD_COST. The tests set
   * a far cheaper one: they hash and check hundreds of passwords, and what they test does not depend on it.
   */
  passwordCost?: ScryptCost;
}

/** Who is acting through a secret key (or the CLI): every protected operation is scoped to an account. */
export interface Actor {
  accountId: number;
}

/** The account that REFKIT_SECRET_KEY and the CLI act for, created by the first migration. */
export const DEFAULT_ACCOUNT: Actor = { accountId: 1 };
