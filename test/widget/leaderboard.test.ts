/**
 * The leaderboard in the share view (`show-leaderboard`): the top entries as getLeaderboard answers,
 * the participant's own rank from getMyReferrals, the month's heading, the empty board, another
 * language, and nothing at all without the attribute or in a campaign without a leaderboard. Axe-clean.
 * The service is faked.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type { LeaderboardEntry, MyReferrals } from '../../src/api/client.js';
import type { LeaderboardSettings } from '../../src/api/schemas.js';
import type { MyRank } from '../../src/api/widget-schemas.js';
import type { ReferralWidget } from '../../src/widget/index.js';
import { rememberParticipant } from '../../src/widget/storage.js';
import { apiError, fakeServicePerTest, json, participant, settings } from './fake-service.js';
import { mount, mountSignedUp, q, settled, signUp, text, texts } from './helpers.js';

const service = fakeServicePerTest();

const BOARD: LeaderboardEntry[] = [
  { rank: 1, name: 'Cy', referrals: 12 },
  { rank: 2, name: 'Ann L.', referrals: 7 },
  { rank: 3, name: 'b***@example.com', referrals: 7 },
  { rank: 4, name: 'Dee', referrals: 1 },
];

/** The remembered participant's signed-up screen in a campaign with this leaderboard. */
async function shown({ board = BOARD, rank, attrs = 'show-leaderboard', leaderboard = { period: 'all', size: 10 } }: { board?: LeaderboardEntry[] | 'refused'; rank?: MyRank; attrs?: string; leaderboard?: LeaderboardSettings | null } = {}) {
  rememberParticipant('cmp_1', 'ann@example.com', 'pt_token');
  const { fraudScore: _, ...self } = participant('ann@example.com', { firstName: 'Ann' });
  const mine: MyReferrals = { participant: self, referrals: [], more: false, ...(rank && { leaderboard: rank }) };
  service().routes['/api/v1/getWidgetSettings'] = () => json({ ...settings, ...(leaderboard && { leaderboard }) });
  service().routes['/api/v1/getMyReferrals'] = () => json(mine);
  service().routes['/api/v1/getLeaderboard'] = () => (board === 'refused' ? apiError(404, 'not_found') : json(board));
  return mountSignedUp(attrs);
}

const boardShown = (el: ReferralWidget) => waitUntil(() => q(el, '[part=leaderboard]'), 'the leaderboard');
const boardCalls = () => service().calls.filter((c) => c.path === '/api/v1/getLeaderboard');


describe('<referral-widget show-leaderboard>', () => {
  it('shows the top referrers in order and the participant’s own rank, and passes axe', async () => {
    const el = await shown({ rank: { period: 'all', rank: 2, referrals: 7 } });
    await boardShown(el);
    expect(text(el, '#leaderboard-title')).to.equal('Top referrers');
    expect(q(el, '[part=leaderboard]')!.getAttribute('aria-labelledby')).to.equal('leaderboard-title');
    expect(text(el, '[part=my-rank]')).to.equal('You are #2 with 7 qualified friends.');
    expect(q(el, '[part=my-rank]')!.dataset.ranked).to.equal('true');
    expect(q(el, '[part=leaderboard-list]')!.tagName).to.equal('OL');
    expect(texts(el, '[part=leaderboard-list] li')).to.deep.equal(['#1 Cy 12 qualified friends', '#2 Ann L. 7 qualified friends', '#3 b***@example.com 7 qualified friends', '#4 Dee 1 qualified friend']);
    expect(boardCalls()[0]!.url.searchParams.get('id')).to.equal('cmp_1');
    await expect(el).shadowDom.to.be.accessible();
  });

  it('one qualified friend is said in the singular', async () => {
    const el = await shown({ rank: { period: 'all', rank: 4, referrals: 1 } });
    await boardShown(el);
    expect(text(el, '[part=my-rank]')).to.equal('You are #4 with 1 qualified friend.');
  });

  it('a participant not ranked yet is told how to get on; a month board says so; an empty board invites the first', async () => {
    const el = await shown({ board: [], rank: { period: 'month', rank: null, referrals: 0 }, leaderboard: { period: 'month', size: 5 } });
    await boardShown(el);
    expect(text(el, '#leaderboard-title')).to.equal('Top referrers this month');
    expect(text(el, '[part=my-rank]')).to.equal('You are not on the board yet: your first friend who qualifies puts you on it.');
    expect(q(el, '[part=my-rank]')!.dataset.ranked).to.equal('false');
    expect(text(el, '[part=leaderboard-empty]')).to.equal('No one is on the board yet. Be the first!');
    expect(q(el, '[part=leaderboard-list]')).to.equal(null);
    await expect(el).shadowDom.to.be.accessible();
  });

  it('a visitor who just signed up sees the board, without a rank', async () => {
    service().routes['/api/v1/getWidgetSettings'] = () => json({ ...settings, leaderboard: { period: 'all', size: 10 } });
    service().routes['/api/v1/getLeaderboard'] = () => json(BOARD);
    const el = await mount('show-leaderboard');
    await settled(el, 'ready');
    signUp(el, 'new@example.com');
    await settled(el, 'signed-up');
    await boardShown(el);
    expect(texts(el, '[part=leaderboard-name]')).to.deep.equal(['Cy', 'Ann L.', 'b***@example.com', 'Dee']);
    expect(q(el, '[part=my-rank]')).to.equal(null);
  });

  it('in German: the heading, the rank and each entry', async () => {
    const el = await shown({ rank: { period: 'all', rank: 1, referrals: 12 }, attrs: 'show-leaderboard lang="de"' });
    await boardShown(el);
    await waitUntil(() => text(el, '#leaderboard-title') === 'Die besten Empfehler', 'German texts');
    expect(text(el, '[part=my-rank]')).to.equal('Sie sind Nr. 1 mit 12 qualifizierten Freunden.');
    expect(texts(el, '[part=leaderboard-list] li')[0]).to.equal('Nr. 1 Cy 12 qualifizierte Freunde');
    expect(texts(el, '[part=leaderboard-list] li')[3]).to.equal('Nr. 4 Dee 1 qualifizierter Freund');
  });

  it('in Arabic, right to left, the names isolated', async () => {
    const el = await shown({ rank: { period: 'all', rank: 3, referrals: 7 }, attrs: 'show-leaderboard lang="ar"' });
    await boardShown(el);
    await waitUntil(() => text(el, '#leaderboard-title') === 'أفضل المُحيلين', 'Arabic texts');
    expect(q(el, '[part=leaderboard-name]')!.tagName).to.equal('BDI');
    await expect(el).shadowDom.to.be.accessible();
  });

  it('without the attribute, or in a campaign without a leaderboard, there is no board and no request for one', async () => {
    for (const options of [{ attrs: '' }, { leaderboard: null }]) {
      const el = await shown({ rank: { period: 'all', rank: 2, referrals: 7 }, ...options });
      expect(q(el, '[part=leaderboard]')).to.equal(null);
      expect(boardCalls()).to.deep.equal([]);
      el.remove();
    }
  });

  it('a board the service cannot answer is left out; the rest of the share view stays', async () => {
    const el = await shown({ rank: { period: 'all', rank: 2, referrals: 7 }, board: 'refused' });
    await waitUntil(() => boardCalls().length === 1, 'the board asked for');
    await new Promise((r) => setTimeout(r, 50));
    expect(q(el, '[part=leaderboard]')).to.equal(null);
    expect(q(el, '[part~=link]')).to.not.equal(null);
  });
});
