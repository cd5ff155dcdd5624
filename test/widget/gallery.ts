/**
 * Every state of <referral-widget> side by side, against the fake service of the unit tests: the dev
 * page's `?gallery` mode (index.html), for looking at states that are hard to reach by hand.
 * Not a test file (web-test-runner runs *.test.ts only) and not part of the bundle.
 */
import { apiError, campaign, fakeService, json, myRewards, noAnswer, participant, settingsWithRules } from './fake-service.js';
import type { MyReferrals } from '../../src/api/client.js';
import { rememberCode, rememberParticipant } from '../../src/widget/storage.js';
import type { ReferralWidget } from '../../src/widget/index.js';

interface Panel {
  id: string;
  title: string;
  attrs?: string;
  /** Fill in the form and submit it once the widget is ready. */
  submit?: boolean;
}

const PANELS: Panel[] = [
  { id: 'loading', title: 'Loading' },
  { id: 'ready', title: 'Ready (with name fields)', attrs: 'first-name last-name' },
  { id: 'invited', title: 'Ready, arrived with a valid code' },
  { id: 'invalid', title: 'Invalid or unknown referral code' },
  { id: 'submitting', title: 'Submitting', submit: true },
  { id: 'signed-up', title: 'Signed up', submit: true },
  { id: 'returning', title: 'Returning visitor (remembered on this browser)' },
  { id: 'rewards', title: 'Reward rules: pending, owed, milestones, every friend status' },
  { id: 'known', title: 'An email that already joined, typed on a new browser (link only; sign-in link emailed)', submit: true },
  { id: 'pending', title: 'Double opt-in: check your inbox', submit: true },
  { id: 'paused', title: 'Campaign paused' },
  { id: 'ended', title: 'Campaign ended' },
  { id: 'missing', title: 'Campaign not found' },
  { id: 'broken', title: 'Server error, with Retry' },
  { id: 'offline', title: 'Offline, with Retry' },
];

/** A campaign with every reward rule, and a participant with something in each of its blocks. */
const REWARD_RULES = settingsWithRules({
  referrerRewardPercent: 10,
  commissionPayments: 3,
  milestones: [
    { referrals: 3, reward: 50, label: 'Free month' },
    { referrals: 10, reward: 200, label: 'VIP year' },
  ],
  holdDays: 30,
  maxReferralReward: 500,
});
const REWARDS_STANDING: MyReferrals = {
  participant: { ...participant('ann@example.com', { campaignId: 'rewards', totalReferrals: 5, referralRewardRedeemed: 20, referralRewardBalance: 0 }), fraudScore: undefined },
  referrals: [
    { name: 'Ben', status: 'qualified', joinedOn: '2026-03-02T10:00:00.000Z' },
    { name: 'c***@example.org', status: 'joined', joinedOn: '2026-03-05T10:00:00.000Z' },
    { name: 'Dee', status: 'in_review', joinedOn: '2026-03-06T10:00:00.000Z' },
    { name: 'Eve', status: 'pending', joinedOn: '2026-03-07T10:00:00.000Z', availableOn: '2027-01-12T10:00:00.000Z' },
    { name: 'Finn', status: 'refunded', joinedOn: '2026-03-08T10:00:00.000Z' },
  ],
  more: false,
  rewards: myRewards({
    pending: [
      { rewardKind: 'referral', amount: 10, availableOn: '2027-01-12T10:00:00.000Z', label: 'Referral: Eve' },
      { rewardKind: 'referral', amount: 3, availableOn: '2027-01-20T10:00:00.000Z', label: 'Commission: Eve' },
    ],
    owed: { referral: 4, referee: 0 },
    milestones: { qualifiedReferrals: 4, reached: [{ referrals: 3, reward: 50, label: 'Free month' }], next: { referrals: 10, reward: 200, label: 'VIP year' } },
  }),
};

const never = () => new Promise<Response>(() => {});

export async function showGallery(stage: HTMLElement): Promise<void> {
  for (const key of Object.keys(localStorage)) if (key.startsWith('refkit:')) localStorage.removeItem(key);
  rememberCode('invited', 'FRIEND23');
  rememberParticipant('returning', 'ann@example.com');
  rememberParticipant('rewards', 'ann@example.com', 'pt_rewards');
  // Only the widget of campaign "invalid" reads this code: the link names that campaign.
  history.replaceState(null, '', '?gallery&id=invalid&referralCode=NOPE2345');

  fakeService({
    '/api/v1/getCampaign': (url) => {
      const id = url.searchParams.get('id')!;
      if (id === 'loading') return never();
      if (id === 'missing') return apiError(404, 'campaign_not_found');
      if (id === 'broken') return apiError(500, 'internal', 'boom');
      if (id === 'offline') return noAnswer();
      const status = id === 'paused' ? { status: 'Pause', paused: true } : id === 'ended' ? { status: 'End', ended: true } : {};
      return json({ ...campaign, campaignId: id, ...status });
    },
    '/api/v1/getWidgetSettings': (url) =>
      json(url.searchParams.get('id') === 'rewards' ? { ...REWARD_RULES, campaignId: 'rewards' } : { campaignId: url.searchParams.get('id'), rewardCurrency: 'USD', shareMessages: {} }),
    '/api/v1/getMyReferrals': () => json(REWARDS_STANDING),
    '/api/v1/validateCode': (url) => json(url.searchParams.get('campaignId') !== 'invalid'),
    '/api/v1/addParticipant': (_url, body) => {
      const { id, email } = body as { id: string; email: string };
      if (id === 'submitting') return never();
      if (id === 'pending') return json({ email, campaignId: id }, 200, { 'refkit-signup': 'pending', 'refkit-email-link': 'sent' });
      if (id === 'known') {
        const { shareLink, referralCode } = participant(email);
        return json({ email, referralCode, shareLink, campaignId: id }, 200, { 'refkit-signup': 'existing', 'refkit-email-link': 'sent' });
      }
      return json(participant(email, { campaignId: id }));
    },
  });

  stage.classList.add('gallery');
  for (const panel of PANELS) {
    const figure = document.createElement('figure');
    // The offline widget gets its campaign later (offlineLoad), once the others have loaded.
    const campaignId = panel.id === 'offline' ? '' : `campaign-id="${panel.id}"`;
    figure.innerHTML = `<figcaption></figcaption><referral-widget data-panel="${panel.id}" ${campaignId} ${panel.attrs ?? ''}></referral-widget>`;
    figure.querySelector('figcaption')!.textContent = panel.title;
    stage.append(figure);
  }
  await customElements.whenDefined('referral-widget');
  const widget = (id: string) => stage.querySelector<ReferralWidget>(`referral-widget[data-panel="${id}"]`)!;
  await Promise.all(PANELS.filter((p) => p.submit).map((p) => submitWhenReady(widget(p.id), `${p.id}@example.com`)));
  const others = PANELS.filter((p) => p.id !== 'loading' && p.id !== 'offline').map((p) => widget(p.id));
  await until(() => others.every((el) => el.state !== 'loading'));
  await offlineLoad(widget('offline'));
}

/** The browser says it is offline only while this one widget loads, so the others are unaffected. */
async function offlineLoad(el: ReferralWidget): Promise<void> {
  Object.defineProperty(navigator, 'onLine', { value: false, configurable: true });
  try {
    el.campaignId = 'offline';
    await until(() => el.state === 'offline');
  } finally {
    delete (navigator as { onLine?: boolean }).onLine;
  }
}

async function submitWhenReady(el: ReferralWidget, email: string): Promise<void> {
  await until(() => el.state === 'ready');
  await el.updateComplete;
  el.shadowRoot!.querySelector<HTMLInputElement>('input[name=email]')!.value = email;
  el.shadowRoot!.querySelector<HTMLFormElement>('form')!.requestSubmit();
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}
