/**
 * Sends the lifecycle email outbox. Each tick claims due emails (a lease: a crashed process's claims run
 * out and another process sends them), skips those of unsubscribed participants and of emails the
 * campaign has turned off since, holds back what would pass the per-domain limit, and sends the rest:
 * sent; or, when the SMTP server refuses (or cannot be reached), retried on the schedule, then failed.
 *
 * At-least-once, like the webhooks: a process killed after the SMTP server took an email and before it
 * was marked sent sends it again once its lease runs out. A change is never the cause of two emails
 * otherwise: its outbox row is unique per recipient, kind and change.
 */
import { NOT_A_TEST_ADDRESS, testMayEmail } from '../../kernel/test-mode.js';
import type { FastifyBaseLogger } from 'fastify';
import type { EmailKind } from '../../../api/email-schemas.js';
import type { Ctx, Mailer } from '../../kernel/context.js';
import { emailDomain } from '../../kernel/email.js';
import { sends } from './email-settings.js';
import type { EmailData } from './email-outbox.js';
import type { DueEmail } from '../store/email-store.js';
import { PollLoop } from '../../kernel/poll-loop.js';
import { composeEmail, lifecycleMessage } from './compose.js';
import { loopFailureLog } from '../../kernel/outage-log.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export interface EmailSenderOptions {
  /** The service's public address: where the unsubscribe links point. */
  baseUrl: string;
  /** Waits before each retry; when they run out the email is marked failed. */
  retryDelaysMs: number[];
  /** How often to look for due emails when nobody nudges. */
  pollMs: number;
  /** How long a claim holds; longer than an SMTP exchange, so a live sender never loses its claim. */
  leaseMs: number;
  batchSize: number;
  /** At most this many emails to one recipient domain per domainWindowMs (mail providers throttle bursts). */
  perDomain: number;
  domainWindowMs: number;
}

export const DEFAULT_EMAIL_SENDER_OPTIONS: Omit<EmailSenderOptions, 'baseUrl'> = {
  retryDelaysMs: [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 12 * HOUR],
  pollMs: 1 * SECOND,
  leaseMs: 2 * MINUTE,
  batchSize: 20,
  perDomain: 60,
  domainWindowMs: MINUTE,
};

const describe = (err: unknown) => {
  const e = err as { message?: string; responseCode?: number };
  return (e.message ?? String(err)).slice(0, 500);
};

export class EmailSender extends PollLoop {
  readonly #options: EmailSenderOptions;

  constructor(
    private readonly ctx: Ctx,
    private readonly mailer: Mailer,
    options: Partial<EmailSenderOptions> & Pick<EmailSenderOptions, 'baseUrl'>,
    private readonly log?: FastifyBaseLogger,
  ) {
    const settings = { ...DEFAULT_EMAIL_SENDER_OPTIONS, ...options };
    super(settings.pollMs, loopFailureLog(log, 'sending lifecycle emails'));
    this.#options = settings;
  }

  protected async tick(): Promise<void> {
    for (;;) {
      const { leaseMs, batchSize } = this.#options;
      const due = await this.ctx.store.transaction((tx) => tx.emails.claimDue(this.ctx.now(), leaseMs, batchSize));
      if (due.length === 0) return;
      const now = this.ctx.now();
      const { perDomain, domainWindowMs } = this.#options;
      const sent = await this.ctx.store.emails.sentToDomains([...new Set(due.map((d) => emailDomain(d.email)))], now - domainWindowMs);
      const sendNow: DueEmail[] = [];
      for (const d of due) {
        const domain = emailDomain(d.email);
        const n = sent.get(domain) ?? 0;
        if (n >= perDomain) {
          // Over the domain's limit: due again once a share of the window has passed (no attempt counted).
          await this.ctx.store.emails.finish(d.id, now, { status: 'pending', nextAttemptOn: now + Math.ceil(domainWindowMs / perDomain), error: d.last_error, attempted: false });
          this.ctx.metrics?.attempt('emails', 'deferred');
        } else {
          sent.set(domain, n + 1);
          sendNow.push(d);
        }
      }
      await Promise.all(sendNow.map((d) => this.#send(d)));
      if (this.stopped || sendNow.length === 0) return;
    }
  }

  async #send(d: DueEmail): Promise<void> {
    const store = this.ctx.store;
    const campaign = await store.findCampaign(d.campaign_id);
    const kind = d.kind as EmailKind;
    const skip = d.unsubscribed
      ? 'unsubscribed'
      : !campaign || !sends(campaign, kind)
        ? 'this email was turned off'
        : campaign.test === 1 && !testMayEmail(d.email)
          ? NOT_A_TEST_ADDRESS
          : undefined;
    if (skip !== undefined || !campaign) {
      await store.emails.finish(d.id, this.ctx.now(), { status: 'skipped', nextAttemptOn: null, error: skip ?? null, attempted: false });
      this.ctx.metrics?.attempt('emails', 'skipped');
      return;
    }
    let error: string | null = null;
    try {
      const email = await composeEmail(store, this.#options.baseUrl, campaign, kind, { ...d, id: d.participant_id }, JSON.parse(d.data) as EmailData);
      await this.mailer.send(lifecycleMessage(d.email, email, campaign.test === 1));
    } catch (err) {
      error = describe(err);
    }
    const now = this.ctx.now();
    const delay = this.#options.retryDelaysMs[d.attempt_count];
    const outcome =
      error === null
        ? { status: 'sent' as const, nextAttemptOn: null, domain: emailDomain(d.email) }
        : delay === undefined
          ? { status: 'failed' as const, nextAttemptOn: null }
          : { status: 'pending' as const, nextAttemptOn: now + delay };
    await store.emails.finish(d.id, now, { ...outcome, error, attempted: true });
    this.ctx.metrics?.attempt('emails', outcome.status === 'pending' ? 'retry' : outcome.status);
    // An email that went out has no error to say (`error: null` on every line read as a problem in the demo's log).
    if (error === null) this.log?.info({ email: d.id, kind, next: outcome.status }, 'lifecycle email');
    else this.log?.warn({ email: d.id, kind, error, next: outcome.status }, 'lifecycle email');
  }
}
