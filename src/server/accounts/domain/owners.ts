/** Dashboard owners: people who sign in with an email and a password and act for an account. */
import { DEFAULT_ACCOUNT, type Actor, type Ctx } from '../../kernel/context.js';
import { normalizeEmail } from '../../kernel/email.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { decoyHash, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
import { roleOf, type Role } from '../../kernel/roles.js';
import { forgetFailures, reserveSignIn } from './signin-throttle.js';
import { newDeviceToken, trustedDevice } from './trusted-devices.js';

/** The one rule on a new password: its length (a passphrase of common words is fine). */
function assertPasswordLength(field: string, password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw invalid(field, `${field} must be at least ${MIN_PASSWORD_LENGTH} characters`);
}

export interface Owner {
  id: number;
  email: string;
  accountId: number;
  /** What they may do (../../kernel/roles.ts): the dashboard shows a viewer no change controls. */
  role: Role;
}

export async function createOwner(ctx: Ctx, rawEmail: string, password: string, actor: Actor = DEFAULT_ACCOUNT, role: Role = 'owner'): Promise<Owner> {
  const email = normalizeEmail(rawEmail);
  assertPasswordLength('password', password);
  const id = await ctx.store.owners.insertUser({
    account_id: actor.accountId,
    email,
    password_hash: await hashPassword(password, ctx.passwordCost),
    created_on: ctx.now(),
    role,
  });
  if (id === undefined) throw new AppError(409, 'owner_exists', 'An owner with this email exists', 'email');
  return { id, email, accountId: actor.accountId, role };
}

export const ownerNotFound = () => new AppError(404, 'owner_not_found', 'No owner has this email', 'email');

/** The owners of the account, oldest first, as the CLI lists them. */
export async function listOwners(ctx: Ctx, actor: Actor = DEFAULT_ACCOUNT): Promise<{ id: number; email: string; createdOn: string }[]> {
  const rows = await ctx.store.owners.listUsers(actor.accountId);
  return rows.map((r) => ({ id: r.id, email: r.email, createdOn: new Date(r.created_on).toISOString() }));
}

const invalidCredentials = () => new AppError(401, 'invalid_credentials', 'The email or the password is wrong');

/**
 * The owner these credentials belong to, and the device token their browser keeps from now on
 * (./trusted-devices.ts); 401 when wrong, 429 while throttled. `client` is who is trying
 * (../../http/rate-limit.ts clientKey) and `device` the token the browser brought: the attempt is reserved
 * before the password is checked, on the device alone when it is one this owner trusted.
 */
export async function checkCredentials(ctx: Ctx, rawEmail: string, password: string, client: string, device?: string): Promise<Owner & { device: string }> {
  const email = rawEmail.trim().toLowerCase();
  const now = ctx.now();
  const user = await ctx.store.owners.findUserByEmail(email);
  const trusted = user && trustedDevice(user, device, now);
  const attempt = await reserveSignIn(ctx, email, client, trusted);
  // An unknown email costs the same scrypt as a known one, so the answer's timing tells nothing.
  const ok = await verifyPassword(password, user?.password_hash ?? (await decoyHash(ctx.passwordCost)));
  if (!user || !ok) throw invalidCredentials();
  await attempt.succeeded();
  return { id: user.id, email: user.email, accountId: user.account_id, role: roleOf(user.role), device: trusted ? device! : newDeviceToken(user, now) };
}

export const hasOwners = async (ctx: Ctx) => (await ctx.store.owners.countUsers()) > 0;

/** The session an owner acts through: its id (the hash of its cookie token) and whose it is. */
export interface OwnerSessionRef {
  id: string;
  ownerId: number;
  email: string;
}

/** Ends every session of an owner ("sign out everywhere"), or every one but `keep` (a session id); how many ended. */
export const endSessions = (ctx: Ctx, ownerId: number, keep?: string) => ctx.store.owners.revokeUserSessions(ownerId, ctx.now(), keep);

/**
 * A signed-in owner changes their password: the current one is checked as a sign-in is (and counts
 * against the same throttle, so a borrowed session cannot guess it), and every other session of theirs
 * ends; this one goes on. How many other sessions ended.
 */
export async function changePassword(
  ctx: Ctx,
  session: OwnerSessionRef,
  currentPassword: string,
  newPassword: string,
  client: string,
  device?: string,
): Promise<{ sessionsEnded: number; device: string }> {
  assertPasswordLength('newPassword', newPassword);
  try {
    await checkCredentials(ctx, session.email, currentPassword, client, device);
  } catch (err) {
    // Not 401: the session is fine, and a 401 would tell the dashboard it was signed out.
    if (err instanceof AppError && err.code === 'invalid_credentials') throw new AppError(403, 'wrong_password', 'The current password is wrong', 'currentPassword');
    throw err;
  }
  const passwordHash = await hashPassword(newPassword, ctx.passwordCost);
  await ctx.store.owners.setPasswordHash(session.ownerId, passwordHash);
  // The new password ends every device token made with the old one; this browser gets one anew.
  return { sessionsEnded: await endSessions(ctx, session.ownerId, session.id), device: newDeviceToken({ id: session.ownerId, password_hash: passwordHash }, ctx.now()) };
}

/**
 * For an owner locked out (forgotten password, or throttled): a new password, their email's failed
 * sign-ins forgotten, and every session of theirs ended. Run from the CLI, by whoever runs the service.
 */
export async function resetOwner(ctx: Ctx, rawEmail: string, newPassword: string): Promise<{ email: string; sessionsEnded: number }> {
  const email = normalizeEmail(rawEmail);
  assertPasswordLength('password', newPassword);
  const user = await findOwner(ctx, email);
  await ctx.store.owners.setPasswordHash(user.id, await hashPassword(newPassword, ctx.passwordCost));
  await forgetFailures(ctx, email);
  return { email, sessionsEnded: await endSessions(ctx, user.id) };
}

/** Ends every session of the owner with this email (sign out everywhere, from the CLI). */
export async function signOutOwner(ctx: Ctx, rawEmail: string): Promise<{ email: string; sessionsEnded: number }> {
  const user = await findOwner(ctx, normalizeEmail(rawEmail));
  return { email: user.email, sessionsEnded: await endSessions(ctx, user.id) };
}

async function findOwner(ctx: Ctx, email: string) {
  const user = await ctx.store.owners.findUserByEmail(email);
  if (!user) throw ownerNotFound();
  return user;
}
