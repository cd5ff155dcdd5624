/** The share link: hostURL with `id` and `referralCode` set, whatever hostURL already holds. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { shareLink } from '../../src/server/referrals/domain/present.js';
import type { CampaignRow } from '../../src/server/store/store.js';

const campaign = (hostURL: string) => ({ id: 'spring', host_url: hostURL }) as CampaignRow;

it('keeps hostURL query and fragment, and sets id and referralCode', () => {
  const c = campaign('https://shop.example/join?utm=x&referralCode=OLD#plans');
  const link = new URL(shareLink(c, 'ABCD2345'));
  assert.equal(link.origin + link.pathname, 'https://shop.example/join');
  assert.equal(link.hash, '#plans');
  assert.deepEqual([...link.searchParams], [['utm', 'x'], ['referralCode', 'ABCD2345'], ['id', 'spring']]);
  // The same campaign row gives each participant their own code.
  assert.equal(new URL(shareLink(c, 'WXYZ6789')).searchParams.get('referralCode'), 'WXYZ6789');
});

it('encodes a code that is not URL-safe', () => {
  const link = new URL(shareLink(campaign('https://shop.example/'), 'a&b c'));
  assert.equal(link.searchParams.get('referralCode'), 'a&b c');
  assert.equal(link.searchParams.get('id'), 'spring');
});
