/**
 * Fraud cases as the owner reads and decides them: a case groups the signals of the participants a rule held
 * (./fraud-holds.ts) under the referrer they are about, and the owner approves or rejects it as a whole.
 *
 * Approving approves every participant with a signal in the case and credits what they earned meanwhile,
 * through the review queue's own approval (approveParticipant: the referral both ways, milestones,
 * commissions); rejecting rejects each one still held (a participant the owner approved meanwhile stays
 * approved). The decision is one transaction: the case's conditional status change (`status = 'open'`)
 * decides which of two concurrent decisions wins, the loser is refused 409 and has done nothing, and a
 * rule matching a participant again once the case is decided does not hold them again (its signal is
 * recorded once per participant and kind).
 */
import type { FraudCaseList, FraudCaseView, ListFraudCasesQuery, ResolveFraudCaseBody } from '../../../api/fraud-schemas.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import { approveParticipant } from '../../rewards/domain/rewards.js';
import { actorLabel, type Actor, type Ctx } from '../../kernel/context.js';
import { AppError } from '../../kernel/errors.js';
import { iso } from '../../kernel/time.js';
import { inTransaction } from '../../kernel/in-transaction.js';
import type { FraudCaseRow, FraudSignalRow } from '../store/fraud-case-store.js';

const caseNotFound = () => new AppError(404, 'fraud_case_not_found', 'No fraud case of this campaign has this id', 'caseId');
const caseResolved = (status: string) => new AppError(409, 'fraud_case_resolved', `This fraud case is decided already (${status})`, 'caseId');

/** The cases as the wire shows them: each with its referrer and its signals (oldest first), each signal with its participant. */
async function present(ctx: Ctx, cases: FraudCaseRow[]): Promise<FraudCaseView[]> {
  const signals = await ctx.store.fraudCases.signalsOfCases(cases.map((c) => Number(c.id)));
  const ids = new Set<number>([...cases.map((c) => Number(c.participant_id)), ...signals.map((s) => Number(s.participant_id))]);
  const people = new Map((await ctx.store.fraudCases.people([...ids])).map((p) => [Number(p.id), { email: p.email, referralCode: p.code }]));
  const person = (id: number) => people.get(id) ?? { email: '', referralCode: '' };
  const byCase = new Map<number, FraudSignalRow[]>();
  for (const s of signals) byCase.set(Number(s.case_id), [...(byCase.get(Number(s.case_id)) ?? []), s]);
  return cases.map((c) => ({
    caseId: Number(c.id),
    status: c.status,
    referrer: person(Number(c.participant_id)),
    signals: (byCase.get(Number(c.id)) ?? []).map((s) => ({ kind: s.kind, detail: s.detail, participant: person(Number(s.participant_id)), createdOn: iso(Number(s.created_on)) })),
    openedOn: iso(Number(c.opened_on)),
    ...(c.resolved_on !== null && { resolvedOn: iso(Number(c.resolved_on)) }),
    ...(c.resolved_by !== null && { resolvedBy: c.resolved_by }),
  }));
}

/** A campaign's cases, newest first: the open ones unless `status` says otherwise. */
export async function listFraudCases(ctx: Ctx, actor: Actor, query: ListFraudCasesQuery): Promise<FraudCaseList> {
  const campaign = await ownCampaign(ctx, actor, query.id);
  const rows = await ctx.store.fraudCases.listCases(campaign.id, query.status ?? 'open', query.limit ?? 50);
  return { cases: await present(ctx, rows) };
}

/** One case of the actor's campaign, as the wire shows it (the audit log's before and after). */
export async function getFraudCase(ctx: Ctx, actor: Actor, campaignId: string, caseId: number): Promise<FraudCaseView> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const row = await ctx.store.fraudCases.findCase(campaign.id, caseId);
  if (!row) throw caseNotFound();
  return (await present(ctx, [row]))[0]!;
}

/**
 * Decides an open case: approve (every participant with a signal in it approved and credited) or reject
 * (each one still held rejected). 404 fraud_case_not_found for another campaign's or an unknown case, 409
 * fraud_case_resolved for a case decided already (also the loser of two decisions at once).
 */
export async function resolveFraudCase(ctx: Ctx, actor: Actor, body: ResolveFraudCaseBody): Promise<FraudCaseView> {
  const campaign = await ownCampaign(ctx, actor, body.id);
  const found = await ctx.store.fraudCases.findCase(campaign.id, body.caseId);
  if (!found) throw caseNotFound();
  if (found.status !== 'open') throw caseResolved(found.status);
  const caseId = Number(found.id);
  const resolved = await inTransaction(ctx, async (tx) => {
    const now = tx.now();
    // The referrer's row first, as every crediting transaction locks it (then the referee's): a qualification
    // of one of their referees that is about to add a signal to this case waits, or is waited for, never both.
    await tx.store.lockParticipants([Number(found.participant_id)]);
    // The claim: of two decisions at once, one changes the row and the other finds it decided.
    if (!(await tx.store.fraudCases.resolve(caseId, body.decision === 'approve' ? 'approved' : 'rejected', actorLabel(actor), now))) {
      const current = await tx.store.fraudCases.findCase(campaign.id, caseId);
      throw caseResolved(current?.status ?? 'decided');
    }
    // Read after the claim: a signal that joined the case before it is decided with it; a later one opens a new case.
    const held = [...new Set((await tx.store.fraudCases.signalsOfCases([caseId])).map((s) => Number(s.participant_id)))];
    for (const id of held) {
      const p = await tx.store.findParticipant(id);
      if (!p) continue;
      if (body.decision === 'approve') await approveParticipant(tx, actor, campaign.id, p.email);
      // As the review queue's rejectParticipant: they stay unapproved and leave the queue.
      else if (p.approval !== 1) await tx.store.directory.reject(p.id, now);
    }
    return (await tx.store.fraudCases.findCase(campaign.id, caseId))!;
  });
  return (await present(ctx, [resolved]))[0]!;
}
