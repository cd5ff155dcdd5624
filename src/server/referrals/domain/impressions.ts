/**
 * Impressions: how many people saw a participant's share link land. One per visitor, code and day,
 * however often the widget renders, the page reloads or several elements check the code. A visitor is
 * the hash of the network (../../kernel/network.ts) and the browser's user agent: no cookie, nothing stored that
 * names a person, and only today's rows are kept.
 */
import { LRUCache } from 'lru-cache';
import type { Ctx } from '../../kernel/context.js';
import { networkOf } from '../../kernel/network.js';
import { hashSecret } from '../../kernel/secrets.js';
import { DAY_MS } from '../../kernel/time.js';

export interface Visitor {
  ip: string;
  userAgent: string | undefined;
}

/** Per database: rows of days before this one are pruned the first time a process counts on a new day. */
const prunedBefore = new WeakMap<object, number>();

/**
 * Per database: the (participant, visitor) pairs this process has already counted today. A widget checks
 * its code on every render, so most checks are repeats; these skip the database. The table stays the
 * authority (another process, or an entry this bound dropped, is deduplicated by its key).
 */
const seen = new WeakMap<object, { day: number; pairs: LRUCache<number, true> }>();
const SEEN_ENTRIES = 100_000;

/**
 * The first 52 bits of the hash of the visitor's network and user agent: a safe integer, 8 bytes in the
 * impressions table's key (the hex text was 32). Two visitors of one code on one day share a key with a
 * chance of about n²/2^53 for n visitors: one in ten thousand at a million.
 */
export const visitorKey = (visitor: Visitor): number => parseInt(hashSecret(`${networkOf(visitor.ip)}|${visitor.userAgent ?? ''}`).slice(0, 13), 16);

/**
 * A participant and a visitor as one number below 2^52, for the in-memory dedupe: a number key costs
 * that cache half what the text `participant|visitor` did (no string to build, hash and keep). A pair's
 * key is its visitor's, moved by the participant, so distinct pairs meet with a chance of about 2^-52
 * each, as distinct visitors' keys do; such a pair would skip an impression, never count one twice.
 */
const pairKey = (participantId: number, visitor: number): number =>
  // The id mixed to 32 bits (multiplying by an odd number is one-to-one), shifted 20 left: sums stay exact below 2^53.
  (visitor + (Math.imul(participantId, 0x9e3779b1) >>> 0) * 2 ** 20) % 2 ** 52;

export async function countImpression(ctx: Ctx, participantId: number, visitor: Visitor): Promise<void> {
  const day = Math.floor(ctx.now() / DAY_MS);
  const who = visitorKey(visitor);
  let today = seen.get(ctx.store.db);
  if (today?.day !== day) seen.set(ctx.store.db, (today = { day, pairs: new LRUCache({ max: SEEN_ENTRIES }) }));
  const key = pairKey(participantId, who);
  if (today.pairs.has(key)) return;
  ctx.store.addImpression({ participantId, visitor: who, day });
  today.pairs.set(key, true);
  if ((prunedBefore.get(ctx.store.db) ?? 0) < day) {
    prunedBefore.set(ctx.store.db, day);
    await ctx.store.pruneImpressions(day);
  }
}
