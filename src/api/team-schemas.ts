/** The shapes of the team and audit routes (src/server/accounts/routes/team.ts, src/server/accounts/routes/audit.ts). */
import { Type, type Static } from '@sinclair/typebox';
import { ApiKey, PagingQuery, RoleName } from './schemas.js';

const DateTime = Type.String({ format: 'date-time' });
const Line = (options: { minLength?: number; maxLength: number; description?: string }) => Type.String({ format: 'line', ...options });
const Email = Line({ minLength: 1, maxLength: 320, description: 'Trimmed and lower-cased by the service' });
const Id = Line({ minLength: 1, maxLength: 64 });

export { ROLE_NAMES, RoleName } from './schemas.js';

export const Member = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  role: RoleName,
  createdOn: DateTime,
});
export type Member = Static<typeof Member>;

export const Invitation = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: RoleName,
  invitedBy: Type.String({ description: 'Who invited: an email, a key prefix, or cli' }),
  createdOn: DateTime,
  expiresOn: DateTime,
});
export type Invitation = Static<typeof Invitation>;

export const InviteMemberBody = Type.Object({ email: Email, role: RoleName }, { additionalProperties: false });
export type InviteMemberBody = Static<typeof InviteMemberBody>;
export const RevokeInvitationBody = Type.Object({ id: Id }, { additionalProperties: false });
export const ChangeMemberRoleBody = Type.Object({ email: Email, role: RoleName }, { additionalProperties: false });
export const RemoveMemberBody = Type.Object(
  { email: Email, revokeKeys: Type.Optional(Type.Boolean({ description: 'Also revoke the secret keys they made (default false: listed, left working)' })) },
  { additionalProperties: false },
);
export type RemoveMemberBody = Static<typeof RemoveMemberBody>;
export const RemovedMember = Type.Object({
  email: Type.String(),
  keys: Type.Array(ApiKey, { description: 'The secret keys they made, as they are now (revoked when revokeKeys was true)' }),
});
export type RemovedMember = Static<typeof RemovedMember>;

export const AcceptInvitationBody = Type.Object(
  {
    token: Line({ minLength: 1, maxLength: 100, description: 'The token of the emailed invitation link' }),
    password: Line({ minLength: 1, maxLength: 200, description: 'The new member’s password: at least 10 characters' }),
  },
  { additionalProperties: false },
);

export const AUDIT_ACTOR_KINDS = ['user', 'key', 'cli'] as const;

export const AuditEntry = Type.Object({
  id: Type.Integer(),
  createdOn: DateTime,
  actor: Type.String({ description: "Who: a user's email, a secret key's prefix, or cli" }),
  actorKind: Type.Union(AUDIT_ACTOR_KINDS.map((k) => Type.Literal(k))),
  actorId: Type.Optional(Type.String({ description: "The user's or the key's id" })),
  actorRole: RoleName,
  action: Type.String({ description: 'The operation id (updateCampaign, inviteMember, ...) or the CLI command' }),
  campaignId: Type.Optional(Type.String()),
  target: Type.Optional(Type.String({ description: 'What was changed: a participant email, a key id, an endpoint id, a member email ...' })),
  before: Type.Unknown({ description: 'The state before the change (JSON, secrets redacted), or null' }),
  after: Type.Unknown({ description: 'The state after the change (JSON, secrets redacted), or null' }),
  ip: Type.Optional(Type.String({ description: 'The client address (none for the CLI)' })),
});
export type AuditEntry = Static<typeof AuditEntry>;

export const AuditFilterQuery = Type.Object({
  actor: Type.Optional(Line({ minLength: 1, maxLength: 320, description: "A user's email, a key's prefix, or cli" })),
  action: Type.Optional(Type.String({ pattern: '^[A-Za-z][A-Za-z0-9 -]{0,63}$', description: 'An operation id or CLI command' })),
  campaignId: Type.Optional(Id),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this instant' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Entries before this instant' })),
});
export const AuditLogQuery = Type.Composite([AuditFilterQuery, PagingQuery]);
export type AuditLogQuery = Static<typeof AuditLogQuery>;
