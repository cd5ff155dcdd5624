/**
 * Roles of a dashboard user, and what each may do (docs/team.md). A route declares the permission it
 * needs (`read`, `change` or `manage`); a role allows a set of them. One table, one place.
 */
export const ROLES = ['owner', 'admin', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** read: see anything; change: campaigns, participants, rewards, webhooks, emails; manage: members and secret keys. */
export type Permission = 'read' | 'change' | 'manage';

const ALLOWED: Record<Role, readonly Permission[]> = {
  owner: ['read', 'change', 'manage'],
  admin: ['read', 'change'],
  viewer: ['read'],
};

export const allows = (role: Role, permission: Permission): boolean => ALLOWED[role].includes(permission);

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

/** A role read from the database: anything unknown counts as the least (never more than was stored). */
export const roleOf = (value: string): Role => (isRole(value) ? value : 'viewer');
