/**
 * Test mode: a campaign is live or test, chosen when it is made and never changed after. Never changed,
 * because a test campaign's data are made under rules live data are not (a clock that can be moved,
 * emails that go to the team only, events to test endpoints only): a campaign turned live would carry
 * ledger entries, sent emails and webhooks that never really happened into live exports and payouts,
 * and one turned test would hide real participants' rewards. A secret key is live or test too, and sees
 * only campaigns of its mode; users and the CLI see both (the dashboard's "Test mode" switch chooses).
 */
import type { CampaignRow } from '../store/store.js';
import type { Actor } from './context.js';
import { invalid } from './errors.js';

/** Whether the actor may see a campaign of this mode: a key only its own mode's, a user or the CLI any. */
export const seesMode = (actor: Actor, c: Pick<CampaignRow, 'test'>): boolean => actor.test === undefined || actor.test === (c.test === 1);

/**
 * Whether what the actor reads or changes across campaigns (a person's data, the audit log) is limited to
 * test campaigns' rows: a test key's is; a live key's, a user's and the CLI's span both modes (an erasure
 * must reach a person wherever they are; docs/testing-mode.md).
 */
export const testOnly = (actor: Actor): boolean => actor.test === true;

/** Whether the actor may see a key's or a webhook endpoint's row of this mode (as for campaigns: seesMode). */
export const seesRow = (actor: Actor, row: { test: number }): boolean => actor.test === undefined || actor.test === (row.test === 1);

/**
 * The mode of the rows a list shows: a key's own, whatever it asks (asking for the other is refused: it
 * could not see them); a user's or the CLI's, the one asked for, or both (undefined).
 */
export function listedMode(actor: Actor, asked: 'live' | 'test' | undefined): boolean | undefined {
  const test = asked === undefined ? undefined : asked === 'test';
  if (actor.test === undefined || test === undefined) return actor.test ?? test;
  if (test !== actor.test) throw invalid('mode', `A ${actor.test ? 'test' : 'live'} key sees ${actor.test ? 'test' : 'live'} data only`);
  return test;
}

/**
 * The mode of a campaign the actor creates: `test` as asked; a key's own mode when not asked. A key asking
 * for the other mode is refused (it could not see what it made).
 */
export function campaignMode(actor: Actor, test: boolean | undefined): boolean {
  if (actor.test === undefined) return test ?? false;
  if (test !== undefined && test !== actor.test) {
    throw invalid('test', actor.test ? 'A test key creates test campaigns only: use a live key for a live campaign' : 'A live key creates live campaigns only: use a test key (sk_test_...) for a test campaign');
  }
  return actor.test;
}

/** The header and the subject prefix that mark a test campaign's emails. */
export const TEST_HEADER = 'X-Refkit-Test';
export const TEST_SUBJECT_PREFIX = '[Test] ';

/**
 * Whether a test campaign may email this address: only one at a domain reserved for testing and
 * documentation (RFC 2606 and RFC 6761: example.com, .org, .net, and *.test, *.example, *.invalid,
 * *.localhost), which no real person reads. Others are recorded as skipped, never sent: a test
 * campaign fed real addresses (a copy of a live import) mails no one.
 */
export function testMayEmail(address: string): boolean {
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
  return ['example.com', 'example.org', 'example.net'].some((d) => domain === d || domain.endsWith(`.${d}`)) || /\.(test|example|invalid|localhost)$/.test(domain) || ['test', 'example', 'invalid', 'localhost'].includes(domain);
}

export const NOT_A_TEST_ADDRESS = 'a test campaign emails addresses at domains reserved for testing only (example.com, *.test, ...: docs/testing-mode.md)';
