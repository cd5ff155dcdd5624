/**
 * Impressions: how many people saw a participant's share link land. One per visitor, code and day,
 * however often the widget renders, the page reloads or several elements check the code. A visitor is
 * the hash of the network (./network.ts) and the browser's user agent: no cookie, nothing stored that
 * names a person, and only today's rows are kept.
 */
import { LRUCache } from 'lru-cache';
import type { Ctx } from './context.js';
import { networkOf } from './network.js';
import { hashSecret } from './secrets.js';
import { DAY_MS } from './time.js';

export interface Visitor {
  ip: string;
  userAgent: string | undefined;
}

/** Per database: rows of days before this one are pruned the first time a process counts on a new day. */
const prunedBefore = new WeakMap<object, number>();

/**
 * Per database: (participant, visitor, day) this process has already counted. A widget checks its code
 * on every render, so most checks are repeats; these skip the database. The table stays the authority
 * (another process, or an entry this bound dropped, is deduplicated by its key).
 */
const seen = new WeakMap<object, LRUCache<string, true>>();
const SEEN_ENTRIES = 100_000;

/**
 * The first 52 bits of the hash of the visitor's network and user agent: a safe integer, 8 bytes in the
 * impressions table's key (the hex text was 32). Two visitors of one code on one day share a key with a
 * chance of about n²/2^53 for n visitors: one in ten thousand at a million.
 */
export const visitorKey = (visitor: Visitor): number => parseInt(hashSecret(`${networkOf(visitor.ip)}|${visitor.userAgent ?? ''}`).slice(0, 13), 16);

export async function countImpression(ctx: Ctx, participantId: number, visitor: Visitor): Promise<void> {
  const day = Math.floor(ctx.now() / DAY_MS);
  const who = visitorKey(visitor);
  let counted = seen.get(ctx.store.db);
  if (!counted) seen.set(ctx.store.db, (counted = new LRUCache({ max: SEEN_ENTRIES })));
  const key = `${participantId}|${who}|${day}`;
  if (counted.has(key)) return;
  ctx.store.addImpression({ participantId, visitor: who, day });
  counted.set(key, true);
  if ((prunedBefore.get(ctx.store.db) ?? 0) < day) {
    prunedBefore.set(ctx.store.db, day);
    await ctx.store.pruneImpressions(day);
  }
}
