/**
 * Exporting a person: everything stored about an address across the account's campaigns, as JSON
 * (docs/privacy.md). Other people appear only as the widget shows them to a participant (a first name or a
 * masked email); secrets (tokens, emailed links) only as when they were made and used.
 */
import { payoutDataOf } from '../../payouts/domain/payout-privacy.js';
import type { PersonExport, PersonParticipation } from '../../../api/person-schemas.js';
import type { PersonParticipant } from '../store/person-store.js';
import type { Store } from '../../store/store.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { normalizeEmail } from '../../kernel/email.js';
import { describeReferral } from '../../referrals/domain/my-referrals.js';
import { maskEmail } from '../../kernel/email.js';
import { presentParticipant, presentRewardEntry } from '../../referrals/domain/present.js';
import { DAY_MS, iso } from '../../kernel/time.js';
import { testOnly } from '../../kernel/test-mode.js';

const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));
const day = (n: number) => iso(n * DAY_MS).slice(0, 10);

export async function exportPerson(ctx: Ctx, actor: Actor, rawEmail: string): Promise<PersonExport> {
  const email = normalizeEmail(rawEmail);
  const people = ctx.store.people;
  const scope = { accountId: actor.accountId, testOnly: testOnly(actor) };
  const found = await people.participants(scope, email);
  const ids = found.map((p) => p.id);
  const [participants, pending, links, events, stripe] = await Promise.all([
    Promise.all(found.map((p) => participation(ctx.store, p))),
    people.pendingSignups(scope, email),
    people.emailLinks(scope, email),
    people.events(scope, email, ids),
    people.stripeEvents(scope, email, ids),
  ]);
  return {
    email,
    exportedAt: iso(ctx.now()),
    participants,
    pendingSignups: pending.map((s) => ({ campaignId: s.campaign_id, firstName: s.first_name, lastName: s.last_name, ip: s.signup_ip, createdOn: iso(s.created_on) })),
    emailLinks: links.map((l) => ({ campaignId: l.campaign_id, purpose: l.purpose, createdOn: iso(l.created_on), expiresOn: iso(l.expires_on), usedOn: isoOrNull(l.used_on) })),
    webhookEvents: events.map((e) => ({ id: e.id, campaignId: e.campaign_id, eventType: e.event_type, createdOn: iso(e.created_on), payload: JSON.parse(e.payload) as unknown })),
    stripeEvents: stripe.map((e) => ({
      campaignId: e.campaign_id,
      id: e.id,
      type: e.type,
      status: e.status,
      amountCents: e.amount_cents === null ? null : Number(e.amount_cents),
      currency: e.currency,
      customer: e.customer,
      createdOn: iso(e.created_on),
    })),
  };
}

async function participation(store: Store, p: PersonParticipant): Promise<PersonParticipation> {
  const people = store.people;
  const [campaign, tokens, unsubscribedOn, referrals, entries, payments, refunds, disputes, impressions, emails, payoutData] = await Promise.all([
    store.findCampaign(p.campaign_id),
    people.tokens(p.id),
    people.unsubscribedOn(p.id),
    people.referrals(p.id),
    people.rewardEntries(p.id),
    people.payments(p.id),
    people.refunds(p.id),
    people.disputes(p.id),
    people.impressions(p.id),
    people.emails(p.id),
    payoutDataOf(store, p.id, p.email),
  ]);
  const referees = new Map(referrals.map((r) => [r.id, r.email]));
  return {
    campaignId: p.campaign_id,
    campaignName: p.campaign_name,
    participant: presentParticipant(p, campaign!),
    signup: { source: p.signup_source, ip: p.signup_ip, locale: p.locale, approved: p.approval === 1 },
    consent: { unsubscribedOn: isoOrNull(unsubscribedOn), tokens: tokens.map((t) => ({ createdOn: iso(t.created_on), revokedOn: isoOrNull(t.revoked_on) })) },
    referrals: referrals.map((r) => describeReferral(r)),
    rewardEntries: entries.map((e) => {
      const referee = e.referee_id === null ? undefined : referees.get(e.referee_id);
      return presentRewardEntry({ ...e, referee_email: referee === undefined ? null : maskEmail(referee) });
    }),
    payments: payments.map((x) => ({
      id: Number(x.id),
      amountCents: Number(x.amount_cents),
      refundedCents: Number(x.refunded_cents),
      paidOn: iso(Number(x.paid_on)),
      refunds: refunds.filter((r) => Number(r.payment_id) === Number(x.id)).map((r) => ({ cents: Number(r.cents), refundedOn: iso(Number(r.refunded_on)) })),
    })),
    disputes: disputes.map((d) => ({
      id: d.id,
      paymentId: Number(d.payment_id),
      amountCents: Number(d.amount_cents),
      status: d.status as 'open' | 'won' | 'lost',
      openedOn: iso(Number(d.opened_on)),
      closedOn: d.closed_on === null ? null : iso(Number(d.closed_on)),
    })),
    impressions: { total: p.impression_count, recent: impressions.map((i) => ({ day: day(i.day), visitors: i.visitors })) },
    emails: emails.map((m) => ({ kind: m.kind, status: m.status, createdOn: iso(m.created_on), sentOn: isoOrNull(m.sent_on), data: JSON.parse(m.data) as unknown })),
    ...payoutData,
  };
}
