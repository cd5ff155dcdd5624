/**
 * Dashboard sessions: a random token in an httpOnly cookie, stored only as its SHA-256; a CSRF token per
 * session that every change made with the cookie must echo in a header; expiry; revoked on sign-out.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OwnerSession } from '../../../api/schemas.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import type { Owner } from './owners.js';
import { roleOf } from '../../kernel/roles.js';
import { iso } from '../../kernel/time.js';

export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface LiveSession {
  /** The session's id: the hash of its cookie token. */
  id: string;
  ownerId: number;
  actor: Actor;
  view: OwnerSession;
}

/** Opens a session for an owner; the token goes in the cookie and nowhere else. */
export async function openSession(ctx: Ctx, owner: Owner): Promise<{ token: string; view: OwnerSession }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const now = ctx.now();
  const expiresOn = now + SESSION_TTL_MS;
  await ctx.store.owners.insertSession({ id: hashToken(token), user_id: owner.id, csrf_token: csrfToken, created_on: now, expires_on: expiresOn, revoked_on: null });
  return { token, view: { email: owner.email, role: owner.role, csrfToken, expiresOn: iso(expiresOn) } };
}

/** The session a cookie token names, if it is live. */
export async function findSession(ctx: Ctx, token: string): Promise<LiveSession | undefined> {
  const row = await ctx.store.owners.findLiveSession(hashToken(token), ctx.now());
  if (!row) return undefined;
  const role = roleOf(row.role);
  const actor: Actor = { accountId: row.account_id, identity: { kind: 'user', id: row.user_id, email: row.email }, role };
  return { id: row.id, ownerId: row.user_id, actor, view: { email: row.email, role, csrfToken: row.csrf_token, expiresOn: iso(row.expires_on) } };
}

export function csrfMatches(session: LiveSession, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(session.view.csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const closeSession = (ctx: Ctx, token: string) => ctx.store.owners.revokeSession(hashToken(token), ctx.now());
