/**
 * The signed-in member's role (docs/team.md), as their session says it. Pages offer the controls of a
 * change only to a role that may make it: a viewer reads the same pages without buttons that could only be
 * refused. The service still decides every call (a role changed since sign-in is refused with 403, shown
 * in the page's alert line).
 */
import type { RoleName } from '../api/client.js';

let current: RoleName = 'viewer';

export const useRole = (role: RoleName): void => {
  current = role;
};

/** change: campaigns, participants, rewards, emails, webhooks, Stripe; manage: members and secret keys (owners). */
export const may = (permission: 'change' | 'manage'): boolean => (permission === 'change' ? current !== 'viewer' : current === 'owner');
