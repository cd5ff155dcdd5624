/**
 * The lifecycle emails a change causes, written to the email outbox in the change's own transaction
 * (./sender.ts sends them), so an email exists if and only if its change does. Each is keyed by
 * (recipient, kind, change): a change retried or replayed never makes a second one.
 *
 * Nothing is written when the process cannot send email (SMTP_URL unset: Store.emails.enabled), nor
 * when the campaign has turned that email off: a service configured later does not send a backlog of
 * stale welcomes. What the change knew (an amount, a reward code, a friend's name) is kept with the row;
 * the text is rendered when it is sent, in the recipient's language at that moment.
 */
import type { EmailKind } from '../../../api/email-schemas.js';
import type { NewEmail } from '../store/email-store.js';
import type { CampaignRow, ParticipantRow, Store } from '../../store/store.js';
import { readEmailSettings, sends } from './email-settings.js';
import { outboxEmail, writesEmail, type EmailData } from './email-outbox.js';
import type { Ctx } from '../../kernel/context.js';
import { DAY_MS } from '../../kernel/time.js';
import { PollLoop } from '../../kernel/poll-loop.js';
import { describeReferral } from '../../referrals/domain/my-referrals.js';
import { shownPlace } from '../../engagement/domain/leaderboard.js';
import { campaignNow } from '../../kernel/campaign-time.js';
import { loopFailureLog, type LoopLog } from '../../kernel/outage-log.js';

/** A friend as an email names them to the referrer: as the widget's list of referrals does. */
export const friendName = (p: ParticipantRow): string => describeReferral(p).name;

/**
 * A sign-up's emails, made from the new participant's row: the welcome to them, and "a friend joined" to
 * their referrer. Undefined when the campaign sends neither.
 */
export function signupEmails(tx: Store, campaign: CampaignRow, referrerId: number | null, now: number): ((row: ParticipantRow) => NewEmail[]) | undefined {
  const welcome = writesEmail(tx, campaign, 'welcome');
  const friend = referrerId !== null && writesEmail(tx, campaign, 'friend_joined');
  if (!welcome && !friend) return undefined;
  return (row) => [
    ...(welcome ? [outboxEmail(campaign, row.id, 'welcome', 'signup', {}, now)] : []),
    ...(friend ? [outboxEmail(campaign, referrerId, 'friend_joined', `friend:${row.id}`, { friend: friendName(row) }, now)] : []),
  ];
}

interface Draft {
  participantId: number;
  kind: EmailKind;
  changeKey: string;
  data: EmailData;
  /** The key of the reward codes (RewardBatch's) this email shows the first of, once they are drawn. */
  codeKey?: string;
}

/**
 * The emails of one RewardBatch: what it credited (reward earned, once per participant and referral or
 * payment), released (reward available) and reached (milestone), written with its entries.
 */
export class RewardEmails {
  readonly #drafts = new Map<string, Draft>();
  /** Referrers this batch moved up the leaderboard, whose place is read once, when the batch is written. */
  readonly #movedUp = new Set<number>();

  constructor(
    private readonly tx: Store,
    private readonly campaign: CampaignRow,
    private readonly now: number,
  ) {}

  /** Adds `amount` to the draft of this kind, participant and change (nothing credited: no email). */
  #add(d: Draft, amount: number): void {
    if (amount <= 0 || !writesEmail(this.tx, this.campaign, d.kind)) return;
    const key = `${d.kind} ${d.participantId} ${d.changeKey}`;
    const draft = this.#drafts.get(key);
    if (draft) draft.data.amount = (draft.data.amount ?? 0) + amount;
    else this.#drafts.set(key, { ...d, data: { ...d.data, amount } });
  }

  /** A credit (not a milestone's): held until `availableOn`, or available now. */
  earned(participantId: number, amount: number, cause: { refereeId: number | null; paymentId: number | null }, codeKey: string, availableOn?: number): void {
    const changeKey = cause.paymentId !== null ? `payment:${cause.paymentId}` : `referral:${cause.refereeId}`;
    this.#add({ participantId, kind: 'reward_earned', changeKey, data: availableOn === undefined ? {} : { availableOn }, codeKey }, amount);
  }

  /** A held credit released (`entryId`: the first of the participant's entries released together). */
  released(participantId: number, amount: number, entryId: number, codeKey: string): void {
    this.#add({ participantId, kind: 'reward_available', changeKey: `release:${entryId}`, data: {}, codeKey }, amount);
  }

  /**
   * A credit taken back (a refund, a dispute, a referral undone): `cause` names what it was credited for,
   * so the participant told "you earned" about it is told what was taken back, once per change.
   */
  reversed(participantId: number, amount: number, cause: string): void {
    this.#add({ participantId, kind: 'reward_reversed', changeKey: `reversed:${cause}:${this.now}`, data: {} }, amount);
  }

  /** A milestone reached: its email goes out even when its reward is nothing (or all over the ceiling). */
  milestone(participantId: number, label: string, referrals: number, amount: number): void {
    if (!writesEmail(this.tx, this.campaign, 'milestone')) return;
    const changeKey = `milestone:${referrals}`;
    this.#drafts.set(`milestone ${participantId} ${changeKey}`, { participantId, kind: 'milestone', changeKey, data: { milestone: label, referrals, amount } });
  }

  /** A credited referral moved this referrer up the leaderboard. */
  movedUp(referrerId: number): void {
    if (this.campaign.leaderboard !== null && writesEmail(this.tx, this.campaign, 'leaderboard_top')) this.#movedUp.add(referrerId);
  }

  /**
   * The leaderboard news of the referrers moved up: to each now among the places the board shows, once per
   * board (keyed by it: the all-time board once ever, a monthly one once each month), with the place they
   * have once every credit of the batch is counted.
   */
  async #boardNews(): Promise<void> {
    for (const id of this.#movedUp) {
      const place = await shownPlace(this.tx, this.campaign, id, this.now);
      if (!place) continue;
      const changeKey = `board:${place.board}`;
      const data = { rank: place.rank, places: place.places, referrals: place.referrals };
      this.#drafts.set(`leaderboard_top ${id} ${changeKey}`, { participantId: id, kind: 'leaderboard_top', changeKey, data });
    }
  }

  /** Writes them (in the batch's transaction), each with its reward code when one was drawn; true when any was. */
  async write(codeOf: (codeKey: string) => string | undefined): Promise<boolean> {
    await this.#boardNews();
    if (this.#drafts.size === 0) return false;
    const rows = [...this.#drafts.values()].map((d) => {
      const code = d.codeKey === undefined ? undefined : codeOf(d.codeKey);
      return outboxEmail(this.campaign, d.participantId, d.kind, d.changeKey, code === undefined ? d.data : { ...d.data, rewardCode: code }, this.now);
    });
    await this.tx.emails.insert(rows);
    return true;
  }
}

/** A cash payout that ended, as its email needs it (the payouts capability's row, told in its own words). */
export interface EndedPayout {
  id: number;
  campaignId: string;
  participantId: number;
  /** What it paid, or would have: in whole units of `currency`. */
  amount: number;
  currency: string;
}

/** How a payout ended: paid, or released (the amount back on the balance) for one of these reasons. */
export type PayoutEnd = 'paid' | 'failed' | 'returned' | 'unclaimed';

/**
 * A cash payout's end, to its participant, written in the settlement's transaction: paid, or not (the
 * amount is back on their balance, with why in plain words); once per payout, whoever settles it (its id
 * is the change). True when one was written.
 */
export async function payoutEmail(tx: Store, payout: EndedPayout, end: PayoutEnd, now: number): Promise<boolean> {
  const kind = end === 'paid' ? 'payout_paid' : 'payout_failed';
  const campaign = await tx.findCampaign(payout.campaignId);
  if (!campaign || !writesEmail(tx, campaign, kind)) return false;
  // Returned and unclaimed: PayPal took the payment and the receiving account did not; failed: it never went through.
  const data: EmailData = { amount: payout.amount, currency: payout.currency, ...(end !== 'paid' && { payoutProblem: end === 'failed' ? 'payment' : 'account' }) };
  await tx.emails.insert([outboxEmail(campaign, payout.participantId, kind, `payout:${payout.id}`, data, now)]);
  return true;
}

/**
 * Writes the reminder to share of every participant due one: in each active campaign with reminders on,
 * those who joined at least reminderDays ago and have referred no one, once each. Answers how many.
 */
export async function queueReminders(ctx: Ctx, campaignId?: string): Promise<number> {
  if (!ctx.store.emails.enabled) return 0;
  let written = 0;
  for (const campaign of await ctx.store.activeCampaigns()) {
    if (!sends(campaign, 'reminder') || (campaignId !== undefined && campaign.id !== campaignId)) continue;
    // Each campaign in its own time: a test campaign's clock may be ahead (../../kernel/campaign-time.ts).
    const now = await campaignNow(ctx, campaign);
    written += await ctx.store.emails.queueReminders(campaign.id, now - readEmailSettings(campaign).reminderDays * DAY_MS, now);
  }
  if (written > 0) ctx.onEventsCommitted?.();
  return written;
}

/** Runs queueReminders now and then every `intervalMs` (a reminder is counted in days: hourly by default). */
export class ReminderScan extends PollLoop {
  constructor(
    private readonly ctx: Ctx,
    intervalMs = 60 * 60_000,
    log?: LoopLog,
  ) {
    super(intervalMs, loopFailureLog(log, 'queueing reminders'));
  }

  protected async tick(): Promise<void> {
    await queueReminders(this.ctx);
  }
}
