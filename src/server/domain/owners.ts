/** Dashboard owners: people who sign in with an email and a password and act for an account. */
import { DEFAULT_ACCOUNT, type Actor, type Ctx } from './context.js';
import { normalizeEmail } from './email.js';
import { AppError, invalid } from './errors.js';
import { decoyHash, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
import { assertNotThrottled, recordFailure, recordSuccess } from './signin-throttle.js';

export interface Owner {
  id: number;
  email: string;
  accountId: number;
}

export async function createOwner(ctx: Ctx, rawEmail: string, password: string, actor: Actor = DEFAULT_ACCOUNT): Promise<Owner> {
  const email = normalizeEmail(rawEmail);
  if (password.length < MIN_PASSWORD_LENGTH) throw invalid('password', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  const id = await ctx.store.owners.insertUser({
    account_id: actor.accountId,
    email,
    password_hash: await hashPassword(password, ctx.passwordCost),
    created_on: ctx.now(),
  });
  if (id === undefined) throw new AppError(409, 'owner_exists', 'An owner with this email exists', 'email');
  return { id, email, accountId: actor.accountId };
}

/** The owners of the account, oldest first, as the CLI lists them. */
export async function listOwners(ctx: Ctx, actor: Actor = DEFAULT_ACCOUNT): Promise<{ id: number; email: string; createdOn: string }[]> {
  const rows = await ctx.store.owners.listUsers(actor.accountId);
  return rows.map((r) => ({ id: r.id, email: r.email, createdOn: new Date(r.created_on).toISOString() }));
}

/** Removes an owner and signs them out everywhere (their sessions go with them); 404 when there is no such owner. */
export async function removeOwner(ctx: Ctx, rawEmail: string, actor: Actor = DEFAULT_ACCOUNT): Promise<{ email: string }> {
  const email = normalizeEmail(rawEmail);
  const removed = await ctx.store.transaction((tx) => tx.owners.deleteUser(actor.accountId, email));
  if (!removed) throw new AppError(404, 'owner_not_found', 'No owner has this email', 'email');
  return { email };
}

const invalidCredentials = () => new AppError(401, 'invalid_credentials', 'The email or the password is wrong');

/** The owner these credentials belong to; 401 when wrong, 429 while throttled (checked first). */
export async function checkCredentials(ctx: Ctx, rawEmail: string, password: string, ip: string): Promise<Owner> {
  const email = rawEmail.trim().toLowerCase();
  await assertNotThrottled(ctx, email, ip);
  const user = await ctx.store.owners.findUserByEmail(email);
  // An unknown email costs the same scrypt as a known one, so the answer's timing tells nothing.
  const ok = await verifyPassword(password, user?.password_hash ?? (await decoyHash(ctx.passwordCost)));
  if (!user || !ok) {
    await recordFailure(ctx, email, ip);
    throw invalidCredentials();
  }
  await recordSuccess(ctx, email);
  return { id: user.id, email: user.email, accountId: user.account_id };
}

export const hasOwners = async (ctx: Ctx) => (await ctx.store.owners.countUsers()) > 0;
