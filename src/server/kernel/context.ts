import type { Store } from '../store/store.js';
import type { DomainMetrics } from './metrics.js';
import type { Role } from './roles.js';
import type { Sealer } from './sealed.js';

/** scrypt's parameters (../accounts/domain/passwords.ts): stored with each hash, so a hash is checked with the cost it was made with. */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

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
  /**
   * ERASURE_BLOCK_DAYS: for how long after an erasure the same address signing up again earns no referral
   * credit (../privacy/domain/erasure-block.ts); unset means DEFAULT_ERASURE_BLOCK_DAYS.
   */
  erasureBlockDays?: number;
  /** REFKIT_ENCRYPTION_KEY's sealer (./sealed.ts): present when set; tax details need it. */
  sealer?: Sealer;
  /** Where payout providers' APIs are (PAYPAL_API_URL, STRIPE_API_URL: origins), and the service's own address for the links it gives. */
  payouts?: PayoutEndpoints;
  /** How the fraud controls learn a sign-up's country and verify a CAPTCHA, and where the widget loads its script (../fraud/domain/). */
  fraud?: FraudSettings;
}

export interface FraudSettings {
  /** TRUSTED_COUNTRY_HEADER, lower-cased (e.g. cf-ipcountry): a header the proxy in front sets to the client's country. */
  trustedCountryHeader?: string;
  /** GEOIP=geoip-lite: a country not given by that header is looked up in geoip-lite's offline database. */
  geoip?: boolean;
  /** CAPTCHA_VERIFY_URL: the complete siteverify URL used for whichever provider (tests, proxies). */
  captchaVerifyUrl?: string;
  /** CAPTCHA_SCRIPT_URL: the address the widget loads the CAPTCHA's script from instead of the provider's (tests, proxies). */
  captchaScriptUrl?: string;
}

export interface PayoutEndpoints {
  /** The service's public address (PUBLIC_URL): portal links, Stripe Connect's return and refresh pages. */
  publicUrl: string;
  paypalApiUrl?: string;
  stripeApiUrl?: string;
}

/**
 * Who is acting: a signed-in user (their id and email), a secret key (its id and prefix), or the `refkit`
 * CLI (the machine's operator). What the audit log records as the actor (../accounts/domain/audit.ts).
 */
export type ActorIdentity =
  | { kind: 'user'; id: number; email: string }
  | { kind: 'key'; id: string; prefix: string }
  | { kind: 'cli' };

/** Who is acting through a secret key, a session or the CLI: every protected operation is scoped to an account. */
export interface Actor {
  accountId: number;
  /** Who it is; absent only for internal calls (set-up, tests), which the audit log records as `cli`. */
  identity?: ActorIdentity;
  /** Their role: a user's own; secret keys and the CLI act as owners (docs/team.md). */
  role?: Role;
  /** The client address the request came from (none for the CLI). */
  ip?: string;
  /**
   * A secret key's mode (./test-mode.ts): true, a test key, which sees test campaigns only; false, a live
   * key, live campaigns only. Unset for users and the CLI, who see both (the dashboard's switch chooses).
   */
  test?: boolean;
}

/** Who acted, as the audit log, invitations and keys name them: a user's email, a key's prefix, or `cli`. */
export const actorLabel = (actor: Actor): string => (actor.identity?.kind === 'user' ? actor.identity.email : actor.identity?.kind === 'key' ? actor.identity.prefix : 'cli');

/** The account that REFKIT_SECRET_KEY and the CLI act for, created by the first migration. */
export const DEFAULT_ACCOUNT: Actor = { accountId: 1 };

/** The CLI's actor: the machine's operator, acting for the default account as an owner. */
export const CLI_ACTOR: Actor = { accountId: 1, identity: { kind: 'cli' }, role: 'owner' };
