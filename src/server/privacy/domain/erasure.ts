/**
 * Erasing a person: every trace of an address in the account's campaigns is deleted, or anonymised in
 * place where the row carries the referral graph or the ledger (docs/privacy.md has the table by table
 * account). Their participant rows keep their ids, referrers, referees, counters and balances, so that
 * everyone else's totals stay as they were; the address, names, sign-up address and network, and referral
 * code are replaced, and they read as "Deleted participant". One transaction: a crash leaves all or
 * nothing, and erasing again finds nothing more to do.
 */
import { erasePayoutData } from '../../payouts/domain/payout-privacy.js';
import { randomBytes } from 'node:crypto';
import { ERASED_NAME, erasedEmail } from '../../../api/erased.js';
import type { ErasureResult } from '../../../api/person-schemas.js';
import type { Anonymised, PersonParticipant, PersonScope } from '../store/person-store.js';
import type { Store } from '../../store/store.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { normalizeEmail } from '../../kernel/email.js';
import { addressHash } from './erasure-block.js';
import { emitErased } from '../../webhooks/domain/webhook-events.js';
import { iso } from '../../kernel/time.js';
import { testOnly } from '../../kernel/test-mode.js';

/**
 * The code an erased participant's row keeps: unique (a generated code has no `-`), unguessable, and
 * so no working share link: nobody signs up through a deleted participant.
 */
const erasedCode = () => `ERASED-${randomBytes(12).toString('hex').toUpperCase()}`;

/** A copy of a parsed JSON value with every string, at any depth, passed through `fn` (keys are left as they are). */
function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((x) => mapStrings(x, fn));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, mapStrings(x, fn)]));
  return value;
}

/** A stored JSON body with the person taken out: their participant's fields replaced, and the address anywhere else. */
function scrub(json: string, email: string, anonymised: Map<number, Anonymised>): string {
  const body = mapStrings(JSON.parse(json), (v) => (v.includes(email) ? v.replaceAll(email, ERASED_NAME) : v)) as { data?: Record<string, unknown> };
  const anon = typeof body.data?.participantId === 'number' ? anonymised.get(body.data.participantId) : undefined;
  if (anon && body.data) Object.assign(body.data, { email: anon.email, firstName: '', lastName: '', code: anon.code });
  return JSON.stringify(body);
}

/**
 * The audit log keeps who changed what, when (an entry is never deleted), but not the person: in every
 * entry that mentions the address, in any case, the address and the participants' names become "Deleted
 * participant" in its target and snapshots.
 */
async function redactAudit(tx: Store, scope: PersonScope, email: string, found: readonly PersonParticipant[]): Promise<void> {
  const names = new Set(found.flatMap((p) => [p.first_name, p.last_name]).flatMap((n) => (n?.trim() ? [n.trim().toLowerCase()] : [])));
  const address = new RegExp(email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi');
  const replace = (v: string) => (names.has(v.trim().toLowerCase()) ? ERASED_NAME : v.replace(address, ERASED_NAME));
  const json = (text: string | null) => (text === null ? null : JSON.stringify(mapStrings(JSON.parse(text), replace)));
  for (const e of await tx.audit.mentioning(scope, email)) {
    await tx.audit.redact(e.id, { target: e.target === null ? null : replace(e.target), before: json(e.before), after: json(e.after) });
  }
}

export async function erasePerson(ctx: Ctx, actor: Actor, rawEmail: string): Promise<ErasureResult> {
  const email = normalizeEmail(rawEmail);
  const { accountId } = actor;
  // A test key erases the person from its test campaigns only, and leaves what spans the account (the
  // block on the address's referral credit, the dashboard's sign-in throttle) as it is.
  const scope: PersonScope = { accountId, testOnly: testOnly(actor) };
  const now = ctx.now();
  const { result, queued } = await ctx.store.transaction(async (tx) => {
    const people = tx.people;
    const found = await people.participants(scope, email);
    // Read before the rows change: events are found by the address and by the participants' ids.
    const events = await people.events(scope, email, found.map((p) => p.id));
    const anonymised = new Map<number, Anonymised>();
    for (const p of found) {
      const to = { email: erasedEmail(p.id), code: erasedCode() };
      anonymised.set(p.id, to);
      await people.anonymise(p.id, to, now);
      await people.deleteOwnRows(p.id);
      await tx.portal.forget(p.id);
      await erasePayoutData(tx, accountId, p.id, to.email, now);
      // No email is ever made for them again (the sender skips unsubscribed participants).
      await tx.emails.unsubscribe(p.id, p.campaign_id, now);
      await people.renameInOthersEmails(p.id, (data) => JSON.stringify({ ...(JSON.parse(data) as object), friend: ERASED_NAME }));
    }
    for (const e of events) await people.setEventPayload(e.id, scrub(e.payload, email, anonymised));
    await redactAudit(tx, scope, email, found);
    await people.deleteAddressRows(scope, email);
    await people.dropStripeEmail(scope, email);
    await people.deleteAnswersWith(scope, email);
    if (!scope.testOnly) await people.deleteThrottleRows(email);
    if (found.length > 0 && !scope.testOnly) {
      const salt = await people.ensureSalt(accountId, randomBytes(32).toString('hex'), now);
      await people.recordErased(accountId, addressHash(salt, email), now);
    }
    // Every process drops what it caches of them (a code's owner keeps the address) and the salt's absence.
    await people.bumpCacheEpoch();
    tx.changedCached();
    // With secure_delete (../../store/connect.ts) the file keeps no copy of what was rewritten; the WAL's
    // pages still hold the rows as they were until it is checkpointed and truncated.
    tx.truncateWalAfterCommit();
    let queued = false;
    for (const p of found) if (await emitErased(tx, (await tx.findCampaign(p.campaign_id))!, p.id, now)) queued = true;
    return { queued, result: { erasedAt: iso(now), participants: found.map((p) => ({ participantId: p.id, campaignId: p.campaign_id })) } };
  });
  if (queued) ctx.onEventsCommitted?.();
  return result;
}
