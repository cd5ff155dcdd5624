/**
 * The team of an account: its users (members) and their roles, and invitations to join. An owner invites
 * by email with a role; the invitee follows the emailed link, sets a password and is signed in. An
 * invitation expires after INVITATION_TTL_MS, can be revoked, and works once; a newer invitation of the
 * same email replaces the open ones. The last owner of an account can be neither removed nor demoted.
 */
import type { Invitation, Member, RemovedMember } from '../../../api/team-schemas.js';
import { presentKey } from './keys.js';
import type { InvitationRow } from '../store/invitation-store.js';
import { actorLabel, type Actor, type Ctx, type MailMessage } from '../../kernel/context.js';
import { normalizeEmail } from '../../kernel/email.js';
import { buttonEmail } from '../../referrals/domain/email-links.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { createOwner, ownerNotFound, type Owner } from './owners.js';
import { roleOf, type Role } from '../../kernel/roles.js';
import { hashSecret, newSecret } from '../../kernel/secrets.js';
import { DAY_MS, iso } from '../../kernel/time.js';

export const INVITATION_TTL_MS = 7 * DAY_MS;

const lastOwner = (field: string) => new AppError(409, 'last_owner', 'An account keeps at least one owner: make someone else an owner first', field);
const invitationNotFound = () => new AppError(404, 'invitation_not_found', 'No open invitation of this account has this id', 'id');
const memberExists = () => new AppError(409, 'owner_exists', 'Someone with this email can already sign in', 'email');
export const noMail = () =>
  invalid('email', 'Invitations are sent by email, and this service has no SMTP_URL: set it, or run `refkit team invite`, which prints the link');

/** Who an actor is, as an invitation and the log name them. */

export async function listMembers(ctx: Ctx, actor: Actor): Promise<Member[]> {
  const rows = await ctx.store.owners.listUsers(actor.accountId);
  return rows.map((r) => ({ id: r.id, email: r.email, role: roleOf(r.role), createdOn: iso(r.created_on) }));
}

/** One member, or undefined: what changeMemberRole and removeMember change, for the audit log. */
export async function findMember(ctx: Ctx, actor: Actor, rawEmail: string): Promise<Member | undefined> {
  const r = await ctx.store.owners.findMember(actor.accountId, rawEmail.trim().toLowerCase());
  return r && { id: r.id, email: r.email, role: roleOf(r.role), createdOn: iso(r.created_on) };
}

function presentInvitation(r: InvitationRow): Invitation {
  return { id: r.id, email: r.email, role: roleOf(r.role), invitedBy: r.invited_by, createdOn: iso(Number(r.created_on)), expiresOn: iso(Number(r.expires_on)) };
}

export async function listInvitations(ctx: Ctx, actor: Actor): Promise<Invitation[]> {
  return (await ctx.store.invitations.listOpen(actor.accountId, ctx.now())).map(presentInvitation);
}

/** Where an invitation's token is exchanged: the dashboard's join page (a fragment, so no server log keeps it). */
export const invitationLink = (baseUrl: string, token: string) => `${baseUrl.replace(/\/$/, '')}/admin/#/join?token=${encodeURIComponent(token)}`;

/**
 * Creates an invitation and emails its link (`send: 'email'`), or returns the link for the caller to hand
 * over (`send: 'return'`: the CLI, run by the machine's operator). Without email, 400 and nothing is kept.
 */
export async function inviteMember(
  ctx: Ctx,
  actor: Actor,
  input: { email: string; role: Role },
  baseUrl: string,
  send: 'email' | 'return' = 'email',
): Promise<Invitation & { link?: string }> {
  const email = normalizeEmail(input.email);
  if (send === 'email' && !ctx.mailer) throw noMail();
  if (await ctx.store.owners.findUserByEmail(email)) throw memberExists();
  const token = newSecret('inv');
  const now = ctx.now();
  const row = {
    id: newId('inv'),
    account_id: actor.accountId,
    email,
    role: input.role,
    token_hash: hashSecret(token),
    invited_by: actorLabel(actor),
    created_on: now,
    expires_on: now + INVITATION_TTL_MS,
    accepted_on: null,
    revoked_on: null,
  };
  await ctx.store.transaction(async (tx) => {
    await tx.invitations.revokeOpenFor(actor.accountId, email, now);
    await tx.invitations.insert(row);
  });
  const link = invitationLink(baseUrl, token);
  if (send === 'return') return { ...presentInvitation(row), link };
  try {
    await ctx.mailer!.send(invitationMessage(email, input.role, row.invited_by, link));
  } catch (err) {
    // Not sent: not kept either, so the owner may simply invite again.
    await ctx.store.invitations.delete(row.id);
    throw new AppError(503, 'unavailable', 'The invitation could not be emailed just now; try again in a few minutes', undefined, undefined, err);
  }
  return presentInvitation(row);
}

export async function revokeInvitation(ctx: Ctx, actor: Actor, id: string): Promise<Invitation> {
  const row = await ctx.store.invitations.findById(actor.accountId, id);
  if (!row || !(await ctx.store.invitations.revoke(actor.accountId, id, ctx.now()))) throw invitationNotFound();
  return presentInvitation(row);
}

/** An open invitation by id, for the audit log's "before". */
export async function findInvitation(ctx: Ctx, actor: Actor, id: string): Promise<Invitation | undefined> {
  const row = await ctx.store.invitations.findById(actor.accountId, id);
  return row && presentInvitation(row);
}

const linkNotFound = () => new AppError(404, 'link_not_found', 'This invitation is unknown, already used, revoked or expired; ask for a new one', 'token');

/**
 * Joins the account an invitation is for: the member is created with its role and password, and the
 * invitation is used up, in one transaction (of two parallel acceptances one wins; the other is 404).
 */
export async function acceptInvitation(ctx: Ctx, token: string, password: string): Promise<Owner & { role: Role; invitationId: string }> {
  const row = await ctx.store.invitations.findByTokenHash(hashSecret(token));
  const now = ctx.now();
  if (!row || row.accepted_on !== null || row.revoked_on !== null || Number(row.expires_on) <= now) throw linkNotFound();
  const role = roleOf(row.role);
  return ctx.store.transaction(async (tx) => {
    if (!(await tx.invitations.accept(row.id, now))) throw linkNotFound();
    const owner = await createOwner({ ...ctx, store: tx }, row.email, password, { accountId: Number(row.account_id) }, role);
    return { ...owner, role, invitationId: row.id };
  });
}

/** Changes a member's role; 409 last_owner for the account's only owner becoming something else. */
export async function changeMemberRole(ctx: Ctx, actor: Actor, rawEmail: string, role: Role): Promise<Member> {
  const email = normalizeEmail(rawEmail);
  return ctx.store.transaction(async (tx) => {
    const owners = await tx.owners.lockOwners(actor.accountId);
    const member = await tx.owners.findMember(actor.accountId, email);
    if (!member) throw ownerNotFound();
    if (role !== 'owner' && owners.length === 1 && owners[0] === email) throw lastOwner('role');
    await tx.owners.setRole(member.id, role);
    // Only owners invite: one who no longer is leaves no invitation of theirs to be accepted.
    if (role !== 'owner') await tx.invitations.revokeSentBy(actor.accountId, email, ctx.now());
    return { id: member.id, email, role, createdOn: iso(member.created_on) };
  });
}

/**
 * Removes a member and ends their sessions; 409 last_owner for the account's only owner. Nothing of theirs
 * lets them back in: the invitations they sent are revoked (an owner could have invited another address
 * of their own), and the keys they made are answered, and revoked with `revokeKeys`.
 */
export async function removeMember(ctx: Ctx, actor: Actor, rawEmail: string, revokeKeys = false): Promise<RemovedMember> {
  const email = normalizeEmail(rawEmail);
  const now = ctx.now();
  return ctx.store.transaction(async (tx) => {
    const owners = await tx.owners.lockOwners(actor.accountId);
    if (owners.length === 1 && owners[0] === email) throw lastOwner('email');
    if (!(await tx.owners.deleteUser(actor.accountId, email))) throw ownerNotFound();
    await tx.invitations.revokeSentBy(actor.accountId, email, now);
    if (revokeKeys) await tx.revokeApiKeysBy(actor.accountId, email, now);
    const keys = (await tx.listApiKeys(actor.accountId)).filter((k) => k.created_by === email);
    return { email, keys: keys.map(presentKey) };
  });
}

function invitationMessage(to: string, role: Role, invitedBy: string, url: string): MailMessage {
  const as = role === 'admin' ? 'an admin' : `a ${role}`;
  const intro = invitedBy === 'cli' ? `You are invited to the Refkit dashboard as ${as}.` : `${invitedBy} invited you to the Refkit dashboard as ${as}.`;
  const ignore = 'If you did not expect this, ignore this email: nothing happens without the link. It works once, within 7 days.';
  return buttonEmail(to, 'You are invited to the Refkit dashboard', intro, 'Set your password and join', url, ignore);
}
