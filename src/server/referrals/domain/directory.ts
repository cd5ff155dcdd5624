/** The owner's view of participants: search and sort with keyset paging, one participant in detail, rejection. */
import type { ParticipantDetail, ParticipantSummary, SearchParticipantsQuery } from '../../../api/schemas.js';
import { promotionCodeField } from '../../promotions/domain/promotion-views.js';
import { DEFAULT_PAGE_SIZE } from '../../../api/schemas.js';
import type { DirectoryRow } from '../store/directory-store.js';
import type { CampaignRow, ParticipantRow } from '../../store/store.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { emailDomain, emailKey } from '../../kernel/email.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { IP_BURST_WINDOW_MS, isDisposable, SQUAT_THRESHOLD } from './fraud.js';
import { getParticipant } from './participants.js';
import { presentParticipant } from './present.js';
import { heldSignals } from '../../fraud/domain/fraud-holds.js';

/** Cents as units with two decimals, the way amountPaid arrives. */
export const units = (cents: number) => (cents / 100).toFixed(2);

export function presentSummary(p: ParticipantRow, campaign: CampaignRow, rejected: boolean): ParticipantSummary {
  return {
    ...presentParticipant(p, campaign),
    approval: p.approval === 1,
    rejected: rejected && p.approval === 0,
    amountPaid: units(p.amount_paid_cents),
    paymentCount: p.payment_count,
    revenueGenerated: units(p.revenue_generated_cents),
    impressionCount: p.impression_count,
  };
}

type SortValue = number | string;

function encodeCursor(value: SortValue, id: number): string {
  return Buffer.from(JSON.stringify([value, id])).toString('base64url');
}

function decodeCursor(cursor: string, numeric: boolean): { value: SortValue; id: number } {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && Number.isSafeInteger(v[1]) && (numeric ? Number.isSafeInteger(v[0]) : typeof v[0] === 'string')) {
      return { value: v[0] as SortValue, id: v[1] as number };
    }
  } catch {
    // fall through to the one error below
  }
  throw invalid('cursor', 'cursor is not one this service gave out for this order');
}

/** A row's place in each order, for the cursor: the totalReferrals order goes by the stored (folded) count. */
const SORT_VALUE = {
  createdOn: (r: DirectoryRow) => r.created_on,
  email: (r: DirectoryRow) => r.email,
  totalReferrals: (r: DirectoryRow) => r.folded_referrals,
};

export async function searchParticipants(
  ctx: Ctx,
  actor: Actor,
  query: SearchParticipantsQuery,
): Promise<{ items: ParticipantSummary[]; next?: string }> {
  const campaign = await ownCampaign(ctx, actor, query.id);
  const q = query.q?.trim() ?? '';
  const filter = query.filter ?? 'all';
  // A whole referral code names one participant: an index lookup, answered alone.
  if (q && query.cursor === undefined && /^[0-9A-Za-z]{4,64}$/.test(q)) {
    const owner = await ctx.store.findParticipantByCode(campaign.id, q.toUpperCase());
    if (owner) {
      const rejected = await ctx.store.directory.isRejected(owner.id);
      const held = owner.approval === 0;
      if (filter === 'all' || (filter === 'held' && held && !rejected) || (filter === 'rejected' && held && rejected)) {
        return { items: [presentSummary(owner, campaign, rejected)] };
      }
    }
  }
  // Search results are in email order: a prefix is then one index range, however many it matches
  // (sorting 100,000 matches of "a" by date would cost a scan of them all).
  const sort = q ? 'email' : (query.sort ?? 'createdOn');
  const size = query.pageSize ?? DEFAULT_PAGE_SIZE;
  // The cursor is checked before anything is written (the fold below): a refused call changes nothing.
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, sort !== 'email');
  // Sign-ups add to their referrer's count as deltas (referrals/store/referral-count-store.ts); an order by the
  // count goes by the stored column, so the campaign's deltas are folded into it first.
  if (sort === 'totalReferrals') await ctx.store.referralCounts.fold(campaign.id);
  const rows = await ctx.store.directory.search({
    campaignId: campaign.id,
    ...(q && { emailPrefix: q.toLowerCase() }),
    sort,
    order: query.order ?? (q ? 'asc' : 'desc'),
    filter,
    ...(after && { after }),
    limit: size + 1,
  });
  const page = rows.slice(0, size);
  const items = page.map((r: DirectoryRow) => presentSummary(r, campaign, r.rejected === 1));
  const last = page[page.length - 1];
  return rows.length > size && last ? { items, next: encodeCursor(SORT_VALUE[sort](last), last.id) } : { items };
}

/** Counts behind the signals stop here: "100+" says enough, and no count scans a long list. */
const SIGNAL_COUNT_CAP = 100;

/** Why fraud scoring rated a sign-up as it did, re-derived from what is stored, in words. */
export async function signals(ctx: Ctx, p: ParticipantRow, referrer: ParticipantRow | undefined): Promise<string[]> {
  // What the owner's controls recorded (blocklists, payments, payout methods, limits) comes first.
  const held = await heldSignals(ctx, p);
  if (p.signup_source === 'api') return [...held, 'Added with a secret key by your backend: not scored'];
  if (p.signup_source === 'import') return [...held, 'Imported from a CSV file: not scored'];
  const out: string[] = [...held];
  if (referrer && emailKey(referrer.email) === emailKey(p.email)) out.push(`Same mailbox as the referrer ${referrer.email}`);
  if (isDisposable(emailDomain(p.email))) out.push(`Disposable email domain ${emailDomain(p.email)}`);
  const net = p.signup_net;
  if (net && referrer && referrer.signup_net === net) out.push(`Signed up from the referrer's own network ${net}`);
  if (net && referrer) {
    const n = await ctx.store.countRefereesFromNet(referrer.id, net, SIGNAL_COUNT_CAP);
    if (n >= SQUAT_THRESHOLD) out.push(`${n === SIGNAL_COUNT_CAP ? `${n}+` : n} referees of ${referrer.email} signed up from the network ${net}`);
  }
  if (net) {
    const n = await ctx.store.countSignupsFromNet(p.campaign_id, net, p.created_on - IP_BURST_WINDOW_MS, SIGNAL_COUNT_CAP);
    if (n > 1) out.push(`${n === SIGNAL_COUNT_CAP ? `${n}+` : n} sign-ups from the network ${net} since an hour before this one`);
  }
  return out.length > 0 ? out : ['No signal: a browser sign-up like any other'];
}

export async function participantDetail(ctx: Ctx, actor: Actor, campaignId: string, email: string): Promise<ParticipantDetail> {
  const { participant: p, campaign } = await getParticipant(ctx, actor, campaignId, email);
  const referrer = p.referred_by_id !== null ? await ctx.store.findParticipant(p.referred_by_id) : undefined;
  return {
    participant: presentSummary(p, campaign, await ctx.store.directory.isRejected(p.id)),
    rewards: { pending: (await ctx.store.rewardEntries.sums(p.id)).pending, owed: { referral: p.referral_reward_owed, referee: p.referee_reward_owed } },
    referrer: referrer ? presentSummary(referrer, campaign, await ctx.store.directory.isRejected(referrer.id)) : null,
    signupSource: p.signup_source,
    signals: await signals(ctx, p, referrer),
    ...(await promotionCodeField(ctx.store, campaign, p)),
  };
}

/** Rejects a participant held for review: they stay unapproved and leave the review queue. */
export async function rejectParticipant(ctx: Ctx, actor: Actor, campaignId: string, email: string): Promise<ParticipantSummary> {
  const { participant: p, campaign } = await getParticipant(ctx, actor, campaignId, email);
  if (p.approval === 1) throw new AppError(409, 'not_held', 'Only a participant held for review can be rejected', 'email');
  await ctx.store.directory.reject(p.id, ctx.now());
  return presentSummary(p, campaign, true);
}
