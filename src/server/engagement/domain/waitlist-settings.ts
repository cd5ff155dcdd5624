/**
 * A campaign's waitlist settings as its row keeps them (the `waitlist` column): read, written, and the
 * changes the queue allows, apart from the queue itself (./waitlist.ts), so that the campaign's own rules
 * (../../campaigns/domain/campaigns.ts) can write them without depending on what reads campaigns.
 */
import type { WaitlistSettings } from '../../../api/schemas.js';
import type { CampaignRow, Store } from '../../store/store.js';
import { invalid } from '../../kernel/errors.js';

export function waitlistOf(c: Pick<CampaignRow, 'waitlist'>): Required<WaitlistSettings> | null {
  if (c.waitlist === null) return null;
  const w = JSON.parse(c.waitlist) as WaitlistSettings;
  return { spotsPerReferral: w.spotsPerReferral, counts: w.counts ?? 'signups' };
}

export const writeWaitlist = (settings: WaitlistSettings | null): string | null =>
  settings === null ? null : JSON.stringify({ spotsPerReferral: settings.spotsPerReferral, counts: settings.counts ?? 'signups' });

/**
 * A change of `waitlist` the queue allows: on (or the same settings again) while it never ran, off
 * (launch) at any time; new settings while on, or on again after launch, are 400.
 */
export async function assertWaitlistChange(store: Store, current: CampaignRow, next: string | null | undefined): Promise<void> {
  if (next === undefined || next === null || next === current.waitlist) return;
  if (current.waitlist !== null) throw invalid('waitlist', "A waitlist's settings cannot change while it is on: the queue was built with them");
  if (await store.waitlists.exists(current.id)) throw invalid('waitlist', 'This campaign has launched from its waitlist: a waitlist cannot begin again');
}

