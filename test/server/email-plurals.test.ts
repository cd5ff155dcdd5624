/**
 * `{friends}` in lifecycle emails (src/server/emails/domain/render.ts): a count with its noun as each
 * language counts it, so that no default text says "1 friends".
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { variables, type EmailToRender } from '../../src/server/emails/domain/render.js';
import type { Locale } from '../../src/api/locales.js';

const friendsIn = (locale: Locale, referrals: number) =>
  variables({ locale, data: { referrals }, recipient: { email: 'a@example.com', firstName: 'Ann', code: 'ANN1', shareLink: 'https://x.example/?r=ANN1' }, campaignName: 'Acme' } as EmailToRender).friends;

it('{friends} takes the singular for one and each language\'s forms for the rest', () => {
  assert.deepEqual([1, 2, 5].map((n) => friendsIn('en', n)), ['1 friend', '2 friends', '5 friends']);
  assert.deepEqual([1, 3].map((n) => friendsIn('de', n)), ['1 Freund', '3 Freunde']);
  assert.deepEqual([1, 3].map((n) => friendsIn('es', n)), ['1 amigo', '3 amigos']);
  // French counts 0 and 1 in the singular.
  assert.deepEqual([0, 1, 2, 1000].map((n) => friendsIn('fr', n)), ['0 ami', '1 ami', '2 amis', '1 000 amis'.replace(' ', '\u202f')]);
  // Arabic: one, two, few (3-10), many (11-99), other (100 ...).
  assert.deepEqual([1, 2, 3, 11, 100].map((n) => friendsIn('ar', n)), ['صديقًا واحدًا', 'صديقين', '3 أصدقاء', '11 صديقًا', '100 صديق']);
});
