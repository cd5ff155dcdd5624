/** Hash routes: the service serves one page at /admin/, and the hash says which view it shows. */
export type Route =
  | { page: 'campaigns' }
  | { page: 'campaign-new' }
  | { page: 'campaign'; id: string }
  | { page: 'participants'; id: string }
  | { page: 'participant'; id: string; email: string }
  | { page: 'analytics'; id: string }
  | { page: 'billing'; id: string }
  | { page: 'emails'; id: string }
  | { page: 'waitlist'; id: string }
  | { page: 'webhooks' }
  | { page: 'keys' }
  | { page: 'retention' }
  | { page: 'account' };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const [first, id, sub, email] = parts;
  if (first === 'webhooks') return { page: 'webhooks' };
  if (first === 'keys') return { page: 'keys' };
  if (first === 'account') return { page: 'account' };
  if (first === 'settings' && id === 'retention') return { page: 'retention' };
  if (first === 'campaigns' && id === 'new') return { page: 'campaign-new' };
  if (first === 'campaigns' && id) {
    if (sub === 'participants' && email) return { page: 'participant', id, email };
    if (sub === 'participants') return { page: 'participants', id };
    if (sub === 'analytics') return { page: 'analytics', id };
    if (sub === 'billing') return { page: 'billing', id };
    if (sub === 'emails') return { page: 'emails', id };
    if (sub === 'waitlist') return { page: 'waitlist', id };
    return { page: 'campaign', id };
  }
  return { page: 'campaigns' };
}

export const href = {
  campaigns: () => '#/campaigns',
  newCampaign: () => '#/campaigns/new',
  campaign: (id: string) => `#/campaigns/${encodeURIComponent(id)}`,
  participants: (id: string) => `#/campaigns/${encodeURIComponent(id)}/participants`,
  participant: (id: string, email: string) => `#/campaigns/${encodeURIComponent(id)}/participants/${encodeURIComponent(email)}`,
  analytics: (id: string) => `#/campaigns/${encodeURIComponent(id)}/analytics`,
  billing: (id: string) => `#/campaigns/${encodeURIComponent(id)}/billing`,
  emails: (id: string) => `#/campaigns/${encodeURIComponent(id)}/emails`,
  waitlist: (id: string) => `#/campaigns/${encodeURIComponent(id)}/waitlist`,
  webhooks: () => '#/webhooks',
  keys: () => '#/keys',
  retention: () => '#/settings/retention',
  account: () => '#/account',
};

export const go = (to: string) => {
  location.hash = to;
};
