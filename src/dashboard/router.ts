/** Hash routes: the service serves one page at /admin/, and the hash says which view it shows. */
export type Route =
  | { page: 'campaigns' }
  | { page: 'campaign-new' }
  | { page: 'campaign'; id: string }
  | { page: 'participants'; id: string }
  | { page: 'participant'; id: string; email: string }
  | { page: 'analytics'; id: string }
  | { page: 'billing'; id: string }
  | { page: 'payouts'; id: string }
  | { page: 'emails'; id: string }
  | { page: 'waitlist'; id: string }
  | { page: 'fraud'; id: string }
  | { page: 'webhooks' }
  | { page: 'keys' }
  | { page: 'team' }
  | { page: 'audit' }
  | { page: 'join'; token: string }
  | { page: 'retention' }
  | { page: 'payout-providers' }
  | { page: 'blocklist' }
  | { page: 'account' };

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const [first, id, sub, email] = parts;
  if (first === 'join') return { page: 'join', token: new URLSearchParams(query).get('token') ?? '' };
  if (first === 'team') return { page: 'team' };
  if (first === 'audit') return { page: 'audit' };
  if (first === 'webhooks') return { page: 'webhooks' };
  if (first === 'keys') return { page: 'keys' };
  if (first === 'account') return { page: 'account' };
  if (first === 'settings' && id === 'retention') return { page: 'retention' };
  if (first === 'settings' && id === 'payouts') return { page: 'payout-providers' };
  if (first === 'settings' && id === 'blocklist') return { page: 'blocklist' };
  if (first === 'campaigns' && id === 'new') return { page: 'campaign-new' };
  if (first === 'campaigns' && id) {
    if (sub === 'participants' && email) return { page: 'participant', id, email };
    if (sub === 'participants') return { page: 'participants', id };
    if (sub === 'analytics') return { page: 'analytics', id };
    if (sub === 'billing') return { page: 'billing', id };
    if (sub === 'payouts') return { page: 'payouts', id };
    if (sub === 'emails') return { page: 'emails', id };
    if (sub === 'waitlist') return { page: 'waitlist', id };
    if (sub === 'fraud') return { page: 'fraud', id };
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
  payouts: (id: string) => `#/campaigns/${encodeURIComponent(id)}/payouts`,
  emails: (id: string) => `#/campaigns/${encodeURIComponent(id)}/emails`,
  waitlist: (id: string) => `#/campaigns/${encodeURIComponent(id)}/waitlist`,
  fraud: (id: string) => `#/campaigns/${encodeURIComponent(id)}/fraud`,
  webhooks: () => '#/webhooks',
  keys: () => '#/keys',
  team: () => '#/team',
  audit: () => '#/audit',
  retention: () => '#/settings/retention',
  payoutProviders: () => '#/settings/payouts',
  blocklist: () => '#/settings/blocklist',
  account: () => '#/account',
};

export const go = (to: string) => {
  location.hash = to;
};
