/**
 * The team: members and their roles, invitations (owners only change them: `permission: 'manage'`), and
 * the public route an invitee joins through. Members and invitations are read by every role.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { OwnerSession } from '../../../api/schemas.js';
import {
  AcceptInvitationBody,
  ChangeMemberRoleBody,
  Invitation,
  InviteMemberBody,
  Member,
  RemoveMemberBody,
  RemovedMember,
  RevokeInvitationBody,
} from '../../../api/team-schemas.js';
import { openSession, SESSION_TTL_MS } from '../domain/sessions.js';
import * as team from '../domain/team.js';
import { requireActor } from '../../http/access.js';
import { setSessionCookie } from '../../http/session-cookie.js';
import { invitationChange, memberChange } from '../../http/audit-specs.js';
import { ownerErrors, ownerRoute } from '../../http/owner-route-docs.js';

const errors = ownerErrors;
const common = ownerRoute('team');
// Members and invitations are the account's, beyond any mode: no test key reaches them (../../http/permissions.ts).
const read = { access: 'secret' as const, accountWide: true as const };
const manage = { access: 'secret' as const, accountWide: true as const, idempotent: true, permission: 'manage' as const };

export const teamRoutes: FastifyPluginAsyncTypebox<{ publicUrl: string | undefined }> = async (app, { publicUrl }) => {
  /** Where the invitation link points: PUBLIC_URL, else the address this request reached. */
  const baseOf = (request: FastifyRequest) => publicUrl ?? `${request.protocol}://${request.host}`;

  app.get(
    '/api/v1/admin/listMembers',
    { config: read, schema: { ...common, summary: 'The members of the account and their roles, oldest first', response: { 200: Type.Array(Member), ...errors } } },
    async (request) => team.listMembers(request.ctx, requireActor(request)),
  );

  app.get(
    '/api/v1/admin/listInvitations',
    { config: read, schema: { ...common, summary: 'The open invitations of the account (not used, revoked or expired), newest first', response: { 200: Type.Array(Invitation), ...errors } } },
    async (request) => team.listInvitations(request.ctx, requireActor(request)),
  );

  app.post(
    '/api/v1/admin/inviteMember',
    {
      config: { ...manage, audit: { campaign: null } },
      schema: {
        ...common,
        summary: 'Invite someone by email with a role (owners only)',
        description:
          'Emails a link to set a password and join; it works once, within 7 days. A new invitation of the same email replaces the open ones. ' +
          '409 owner_exists when the email can already sign in. Needs SMTP_URL (400 without; `refkit team invite` prints the link instead).',
        body: InviteMemberBody,
        response: { 200: Invitation, ...errors },
      },
    },
    async (request) => team.inviteMember(request.ctx, requireActor(request), request.body, baseOf(request)),
  );

  app.post(
    '/api/v1/admin/revokeInvitation',
    {
      config: { ...manage, audit: invitationChange },
      schema: { ...common, summary: 'Revoke an open invitation: its link stops working (owners only)', body: RevokeInvitationBody, response: { 200: Invitation, ...errors } },
    },
    async (request) => team.revokeInvitation(request.ctx, requireActor(request), request.body.id),
  );

  app.post(
    '/api/v1/admin/changeMemberRole',
    {
      config: { ...manage, audit: memberChange },
      schema: {
        ...common,
        summary: "Change a member's role (owners only)",
        description: 'Takes effect on their next request. 409 last_owner when it would leave the account without an owner.',
        body: ChangeMemberRoleBody,
        response: { 200: Member, ...errors },
      },
    },
    async (request) => team.changeMemberRole(request.ctx, requireActor(request), request.body.email, request.body.role),
  );

  app.post(
    '/api/v1/admin/removeMember',
    {
      config: { ...manage, audit: memberChange },
      schema: {
        ...common,
        summary: 'Remove a member: their sessions end at once, and the invitations they sent are revoked (owners only)',
        description:
          'Answers the secret keys they made (revoked with revokeKeys: true, else listed and left working). 409 last_owner for the last owner of the account.',
        body: RemoveMemberBody,
        response: { 200: RemovedMember, ...errors },
      },
    },
    async (request) => team.removeMember(request.ctx, requireActor(request), request.body.email, request.body.revokeKeys ?? false),
  );

  app.post(
    '/api/v1/auth/acceptInvitation',
    {
      config: { access: 'public' as const, audit: { campaign: null, target: (_fields, answer) => (answer as { email?: string } | null)?.email } },
      schema: {
        tags: ['auth'],
        summary: "Join an account through an invitation's link: set a password; signed in at once",
        description: 'The token is the one of the emailed link. 404 link_not_found when it is unknown, used, revoked or expired. The password must be at least 10 characters.',
        body: AcceptInvitationBody,
        response: { 200: OwnerSession, ...errors },
      },
    },
    async (request, reply) => {
      const joined = await team.acceptInvitation(request.ctx, request.body.token, request.body.password);
      // The audit entry's actor: the member who joined (../../http/audit-trail.ts).
      request.actor = { accountId: joined.accountId, identity: { kind: 'user', id: joined.id, email: joined.email }, role: joined.role, ip: request.ip };
      const { token, view } = await openSession(request.ctx, joined);
      setSessionCookie(request, reply, token, SESSION_TTL_MS);
      return view;
    },
  );
};
