/**
 * The waitlist place in the share view: "You are #120 of 4,503", how far a friend moves them (sign-ups
 * or qualified friends, one place in the singular), "You're in!" once let in, a new sign-up's place asked
 * for with the token just given, other languages, nothing in a normal campaign. Axe-clean. The service is
 * faked.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type { MyReferrals, Participant } from '../../src/api/client.js';
import type { WaitlistSettings } from '../../src/api/schemas.js';
import type { MyWaitlist, WidgetSettings } from '../../src/api/widget-schemas.js';
import { rememberParticipant } from '../../src/widget/storage.js';
import { fakeServicePerTest, json, noRules, participant, settings } from './fake-service.js';
import { mount, mountSignedUp, q, settled, signUp, text } from './helpers.js';

const service = fakeServicePerTest();

const WAITING: MyWaitlist = { position: 120, of: 4503, granted: false, spotsPerReferral: 5 };

/** The remembered participant's signed-up screen in a campaign with this waitlist. */
async function shown({
  place = WAITING,
  waitlist = { spotsPerReferral: 5, counts: 'signups' },
  attrs = '',
  friends = [],
  widgetSettings,
  self: extra = {},
}: {
  place?: MyWaitlist | null;
  waitlist?: Required<WaitlistSettings> | null;
  attrs?: string;
  friends?: MyReferrals['referrals'];
  /** Replaces the settings this waitlist makes. */
  widgetSettings?: WidgetSettings;
  self?: Partial<Participant>;
} = {}) {
  rememberParticipant('cmp_1', 'ann@example.com', 'pt_token');
  const { fraudScore: _, ...self } = participant('ann@example.com', { firstName: 'Ann', ...extra });
  const mine: MyReferrals = { participant: self, referrals: friends, more: false, ...(place && { waitlist: place }) };
  service().routes['/api/v1/getWidgetSettings'] = () => json(widgetSettings ?? { ...settings, ...(waitlist && { waitlist }) });
  service().routes['/api/v1/getMyReferrals'] = () => json(mine);
  return mountSignedUp(attrs);
}


describe('<referral-widget> in waitlist mode', () => {
  it('a waitlist that gives no rewards shows no reward tiles and says where friends are without talking of payments', async () => {
    const friends: MyReferrals['referrals'] = [
      { name: 'Ben', status: 'joined', joinedOn: '2026-03-02T10:00:00.000Z' },
      { name: 'Cy', status: 'qualified', joinedOn: '2026-03-03T10:00:00.000Z' },
    ];
    const free = { ...settings, waitlist: { spotsPerReferral: 5, counts: 'signups' as const }, rules: noRules };
    service().routes['/api/v1/getCampaign'] = () => json({ campaignId: 'cmp_1', status: 'Live', referrerRewardValue: 0, refereeRewardValue: 0 });
    const el = await shown({ friends, widgetSettings: free, self: { referralReward: 0, referralRewardBalance: 0, refereeReward: 0, refereeRewardBalance: 0 } });
    await waitUntil(() => q(el, '[part=referral-status]'), 'the friends');
    expect(q(el, '[data-stat=referrals]')).to.not.equal(null);
    expect(q(el, '[data-stat=referral-earned]')).to.equal(null);
    expect(q(el, '[data-stat=referral-balance]')).to.equal(null);
    expect([...el.shadowRoot!.querySelectorAll('[part=referral-status]')].map((s) => s.textContent!.trim())).to.deep.equal(['Joined', 'Qualified']);
    await expect(el).shadowDom.to.be.accessible();
    el.remove();

    // With a reward, the same friends are waiting for their first payment, and the tiles are back.
    service().routes['/api/v1/getCampaign'] = () => json({ campaignId: 'cmp_1', status: 'Live', referrerRewardValue: 10, refereeRewardValue: 0 });
    const paid = await shown({ friends, widgetSettings: free });
    await waitUntil(() => q(paid, '[part=referral-status]'), 'the friends');
    expect(q(paid, '[data-stat=referral-earned]')).to.not.equal(null);
    expect(text(paid, '[part=referral-status]')).to.equal('Waiting for their first payment');
  });

  it('shows the position of how many wait, and how far each friend who signs up moves them; a status region; passes axe', async () => {
    const el = await shown();
    expect(text(el, '[part=waitlist-position]')).to.equal('You are #120 of 4,503 on the waitlist.');
    expect(text(el, '[part=waitlist-hint]')).to.equal('Each friend who signs up with your link moves you up 5 places.');
    expect(q(el, '[part=waitlist]')!.getAttribute('role')).to.equal('status');
    expect(q(el, '[part=waitlist]')!.dataset.granted).to.equal('false');
    expect(q(el, '[part~=link]')).to.not.equal(null);
    await expect(el).shadowDom.to.be.accessible();
  });

  it('counting qualified friends says so; one place in the singular', async () => {
    const el = await shown({ place: { ...WAITING, spotsPerReferral: 1 }, waitlist: { spotsPerReferral: 1, counts: 'qualified' } });
    expect(text(el, '[part=waitlist-hint]')).to.equal('Each friend who qualifies moves you up 1 place.');
    el.remove();
    const many = await shown({ place: { ...WAITING, spotsPerReferral: 10 }, waitlist: { spotsPerReferral: 10, counts: 'qualified' } });
    expect(text(many, '[part=waitlist-hint]')).to.equal('Each friend who qualifies moves you up 10 places.');
  });

  it("once let in: You're in!, no position; passes axe", async () => {
    const el = await shown({ place: { position: null, of: 4000, granted: true, spotsPerReferral: 5 } });
    expect(q(el, '[part=waitlist]')!.dataset.granted).to.equal('true');
    expect(text(el, '[part=waitlist-granted]')).to.equal("You're in! You have access now. Keep sharing your link: your friends count.");
    expect(q(el, '[part=waitlist-position]') === null).to.equal(true);
    await expect(el).shadowDom.to.be.accessible();
  });

  it('a visitor who just signed up is shown their place, read with the token the sign-up gave', async () => {
    service().routes['/api/v1/getWidgetSettings'] = () => json({ ...settings, waitlist: { spotsPerReferral: 5, counts: 'signups' } });
    service().routes['/api/v1/addParticipant'] = (_url, body) => json(participant((body as { email: string }).email), 200, { 'refkit-participant-token': 'pt_new', 'refkit-signup': 'created' });
    const { fraudScore: _, ...self } = participant('new@example.com');
    service().routes['/api/v1/getMyReferrals'] = () => json({ participant: self, referrals: [], more: false, waitlist: { position: 4504, of: 4504, granted: false, spotsPerReferral: 5 } } satisfies MyReferrals);
    const el = await mount();
    await settled(el, 'ready');
    signUp(el, 'new@example.com');
    await settled(el, 'signed-up');
    await waitUntil(() => q(el, '[part=waitlist]'), 'the waitlist place');
    expect(text(el, '[part=waitlist-position]')).to.equal('You are #4,504 of 4,504 on the waitlist.');
    const asked = service().calls.filter((c) => c.path === '/api/v1/getMyReferrals');
    expect(asked.at(-1)!.headers.get('refkit-participant-token')).to.equal('pt_new');
  });

  it('in German, French, Spanish and Arabic', async () => {
    const expected: [string, string, string][] = [
      ['de', 'Sie sind Nr. 120 von 4.503 auf der Warteliste.', 'Jeder Freund, der sich über Ihren Link anmeldet, bringt Sie 5 Plätze nach vorn.'],
      ['fr', 'Vous êtes n° 120 sur 4 503 dans la liste d’attente.', 'Chaque ami qui s’inscrit avec votre lien vous fait gagner 5 places.'],
      ['es', 'Estás en el puesto #120 de 4503 en la lista de espera.', 'Cada amigo que se registra con tu enlace te adelanta 5 puestos.'],
    ];
    for (const [lang, position, hint] of expected) {
      const el = await shown({ attrs: `lang="${lang}"` });
      await waitUntil(() => text(el, '[part=waitlist-hint]') === hint, `${lang} texts`);
      expect(text(el, '[part=waitlist-position]').replace(/\s/g, ' ')).to.equal(position.replace(/\s/g, ' '));
      el.remove();
    }
    const ar = await shown({ attrs: 'lang="ar"' });
    await waitUntil(() => text(ar, '[part=waitlist-hint]') === 'كل صديق يسجّل عبر رابطك يقدّمك ٥ من الأماكن.' || text(ar, '[part=waitlist-hint]').startsWith('كل صديق يسجّل'), 'Arabic texts');
    expect(text(ar, '[part=waitlist-position]')).to.match(/^ترتيبك #/);
    await expect(ar).shadowDom.to.be.accessible();
  });

  it('a normal campaign shows no waitlist', async () => {
    const el = await shown({ place: null, waitlist: null });
    expect(q(el, '[part=waitlist]') === null).to.equal(true);
  });
});
