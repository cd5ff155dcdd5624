/**
 * The reward engine as the participant sees it on the signed-up screen: the offer's lines for the
 * campaign's reward rules (getWidgetSettings `rules`), pending credits with their dates, what a refund
 * left owed, milestone progress (getMyReferrals `rewards`), and each friend's status in words. The
 * service is faked.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type { MyReferrals } from '../../src/api/client.js';
import type { RewardRules } from '../../src/api/schemas.js';
import type { MyRewards } from '../../src/api/widget-schemas.js';
import type { ReferralWidget } from '../../src/widget/index.js';
import { rememberParticipant } from '../../src/widget/storage.js';
import { campaign, fakeServicePerTest, json, myRewards, participant, settings, settingsWithRules } from './fake-service.js';
import { mountSignedUp, q, text, texts } from './helpers.js';
import { setLocale } from '../../src/widget/i18n.js';

const service = fakeServicePerTest();

const FREE_MONTH = { referrals: 3, reward: 50, label: 'Free month' };
const VIP_YEAR = { referrals: 10, reward: 200, label: 'VIP year' };

function standing(extra: Partial<MyReferrals> = {}): MyReferrals {
  const { fraudScore: _, ...self } = participant('ann@example.com', { firstName: 'Ann' });
  return { participant: self, referrals: [], more: false, ...extra };
}

/** The remembered participant's signed-up screen, with these reward rules and this standing. */
async function shown({ rules, rewards, mine = {}, attrs = '' }: { rules?: Partial<RewardRules>; rewards?: Partial<MyRewards>; mine?: Partial<MyReferrals>; attrs?: string } = {}) {
  rememberParticipant('cmp_1', 'ann@example.com', 'pt_token');
  service().routes['/api/v1/getWidgetSettings'] = () => json(rules ? settingsWithRules(rules) : settings);
  service().routes['/api/v1/getMyReferrals'] = () => json(standing({ ...(rewards && { rewards: myRewards(rewards) }), ...mine }));
  return mountSignedUp(attrs);
}

const none = (el: ReferralWidget, selector: string) => expect(q(el, selector), `no ${selector}`).to.equal(null);


describe('<referral-widget> the offer for the reward rules', () => {
  it('a commission on every payment', async () => {
    const el = await shown({ rules: { referrerRewardPercent: 12.5 } });
    expect(texts(el, '[part=offer] [data-offer=commission]')).to.deep.equal(['Plus 12.5% of what each friend pays.']);
  });

  it("a commission on a friend's first payments only", async () => {
    const el = await shown({ rules: { referrerRewardPercent: 10, commissionPayments: 3 } });
    expect(texts(el, '[part=offer] [data-offer=commission]')).to.deep.equal(["Plus 10% of each friend's first 3 payments."]);
  });

  it('each milestone is a bonus line', async () => {
    const el = await shown({ rules: { milestones: [FREE_MONTH, VIP_YEAR] } });
    expect(texts(el, '[part=offer] [data-offer=milestone]')).to.deep.equal([
      '$50 bonus when 3 friends qualify: Free month.',
      '$200 bonus when 10 friends qualify: VIP year.',
    ]);
  });

  it('the hold before rewards are confirmed', async () => {
    const el = await shown({ rules: { holdDays: 30 } });
    expect(texts(el, '[part=offer] [data-offer=hold]')).to.deep.equal(['Rewards are confirmed 30 days after a friend qualifies.']);
  });

  it('a count of one reads in the singular, as the language counts it (French: 0 and 1)', async () => {
    const one = { referrerRewardPercent: 10, commissionPayments: 1, holdDays: 1, milestones: [{ referrals: 1, reward: 5, label: 'Starter' }] };
    let el = await shown({ rules: one });
    expect(texts(el, '[part=offer] [data-offer]').slice(-3)).to.deep.equal([
      "Plus 10% of each friend's first payment.",
      '$5 bonus when your first friend qualifies: Starter.',
      'Rewards are confirmed 1 day after a friend qualifies.',
    ]);
    el.remove();
    el = await shown({ rules: one, attrs: 'lang="fr"' });
    await waitUntil(() => text(el, '[part=offer] [data-offer=hold]') === 'Les récompenses sont confirmées 1 jour après qu’un ami a rempli les conditions.', 'French singular');
    expect(text(el, '[part=offer] [data-offer=commission]')).to.equal('En plus, 10 % du premier paiement de chaque ami.');
    await setLocale('en');
  });

  it('the ceiling on what one referrer earns', async () => {
    const el = await shown({ rules: { maxReferralReward: 500 } });
    expect(texts(el, '[part=offer] [data-offer=cap]')).to.deep.equal(['Up to $500 in all.']);
  });

  it('rules not in effect add no line, and neither does an older service without rules', async () => {
    for (const rules of [{}, undefined]) {
      const el = await shown({ rules });
      // The fixed rewards' lines are there; none of the rules'.
      expect(texts(el, '[part=offer] li').map((t) => t.slice(0, 12))).to.deep.equal(['You get $10 ', 'Your friends']);
      el.remove();
    }
  });

  it('a campaign whose only reward is a commission still shows its offer', async () => {
    service().routes['/api/v1/getCampaign'] = () => json({ ...campaign, referrerRewardValue: undefined, refereeRewardValue: undefined, rewardHeader: undefined });
    const el = await shown({ rules: { referrerRewardPercent: 5 } });
    expect(texts(el, '[part=offer] li')).to.deep.equal(['Plus 5% of what each friend pays.']);
  });
});

describe('<referral-widget> pending rewards', () => {
  const pending: MyRewards['pending'] = [
    { rewardKind: 'referral', amount: 10, availableOn: '2027-01-12T10:00:00.000Z', label: 'Referral: Eve' },
    { rewardKind: 'referral', amount: 3, availableOn: '2027-01-20T10:00:00.000Z', label: 'Commission: Eve' },
  ];

  it('each pending credit with its amount, label and the date it becomes available, said to be outside the balance', async () => {
    const el = await shown({ rewards: { pending } });
    expect(texts(el, '[part=pending] li')).to.deep.equal([
      '$10 pending, available on Jan 12, 2027 Referral: Eve',
      '$3 pending, available on Jan 20, 2027 Commission: Eve',
    ]);
    expect(q(el, '[part=pending] li time')!.getAttribute('datetime')).to.equal('2027-01-12T10:00:00.000Z');
    expect(text(el, '[part=pending] p')).to.equal('These are not in your balance yet: each is added on its date.');
    expect(text(el, '[part=pending] h3')).to.equal('Pending rewards');
  });

  it('nothing pending, or an older service without rewards: no pending block', async () => {
    none(await shown({ rewards: {} }), '[part=pending]');
    none(await shown(), '[part=pending]');
  });
});

describe('<referral-widget> owed after a refund', () => {
  it('says how much will be taken from the next rewards', async () => {
    const el = await shown({ rewards: { owed: { referral: 4, referee: 1 } } });
    expect(text(el, '[part=owed]')).to.equal('A refund took back more than your balance held: $5 will be taken from your next rewards.');
  });

  it('nothing owed: no note', async () => {
    none(await shown({ rewards: { owed: { referral: 0, referee: 0 } } }), '[part=owed]');
  });
});

describe('<referral-widget> milestones', () => {
  const progress = (el: ReferralWidget) => q<HTMLProgressElement>(el, 'progress[part=milestone-progress]');

  it('progress toward the next milestone, as words and a labelled progress bar; reached ones ticked', async () => {
    const el = await shown({ rewards: { milestones: { qualifiedReferrals: 4, reached: [FREE_MONTH], next: VIP_YEAR } } });
    const bar = progress(el)!;
    expect([bar.value, bar.max]).to.deep.equal([4, 10]);
    expect(bar.labels[0]!.textContent!.replace(/\s+/g, ' ').trim()).to.equal('4 of 10 friends to VIP year (+$200)');
    expect(texts(el, '[part=milestones] [data-milestone=reached]')).to.deep.equal(['Free month (+$50) (reached)']);
    expect(q(el, '[data-milestone=reached] svg'), 'a tick').to.not.equal(null);
  });

  it('none reached yet: the progress only', async () => {
    const el = await shown({ rewards: { milestones: { qualifiedReferrals: 1, reached: [], next: FREE_MONTH } } });
    expect(progress(el)!.value).to.equal(1);
    none(el, '[data-milestone=reached]');
  });

  it('every milestone reached: the ticks, no progress bar', async () => {
    const el = await shown({ rewards: { milestones: { qualifiedReferrals: 12, reached: [FREE_MONTH, VIP_YEAR], next: null } } });
    expect(progress(el)).to.equal(null);
    expect(texts(el, '[data-milestone=reached]')).to.have.length(2);
  });

  it('a campaign without milestones: no milestones block', async () => {
    none(await shown({ rewards: { milestones: { qualifiedReferrals: 3, reached: [], next: null } } }), '[part=milestones]');
  });

  it('an ended campaign: what was reached stays, no progress toward more', async () => {
    service().routes['/api/v1/getCampaign'] = () => json({ ...campaign, status: 'End', ended: true });
    const el = await shown({ rewards: { milestones: { qualifiedReferrals: 4, reached: [FREE_MONTH], next: VIP_YEAR } } });
    expect(progress(el)).to.equal(null);
    expect(texts(el, '[data-milestone=reached]')).to.deep.equal(['Free month (+$50) (reached)']);
  });
});

describe("<referral-widget> each friend's status, in words", () => {
  const referrals: MyReferrals['referrals'] = [
    { name: 'Ben', status: 'joined', joinedOn: '2026-03-02T10:00:00.000Z' },
    { name: 'Cy', status: 'in_review', joinedOn: '2026-03-03T10:00:00.000Z' },
    { name: 'Dee', status: 'pending', joinedOn: '2026-03-04T10:00:00.000Z', availableOn: '2027-01-12T10:00:00.000Z' },
    { name: 'Eve', status: 'qualified', joinedOn: '2026-03-05T10:00:00.000Z' },
    { name: 'Finn', status: 'refunded', joinedOn: '2026-03-06T10:00:00.000Z' },
  ];

  it('joined, in review, on hold until a date, earned, refunded', async () => {
    const el = await shown({ mine: { referrals } });
    expect(texts(el, '[part=referral-status]')).to.deep.equal([
      'Waiting for their first payment',
      'Being reviewed',
      'Reward on hold until Jan 12, 2027',
      'Reward earned',
      'Refunded',
    ]);
    expect(texts(el, '[part=referrals] li > time')).to.deep.equal(['Mar 2, 2026', 'Mar 3, 2026', 'Mar 4, 2026', 'Mar 5, 2026', 'Mar 6, 2026']);
  });

  it('on hold without a date (an older answer): on hold, no date', async () => {
    const el = await shown({ mine: { referrals: [{ name: 'Dee', status: 'pending', joinedOn: '2026-03-04T10:00:00.000Z' }] } });
    expect(texts(el, '[part=referral-status]')).to.deep.equal(['Reward on hold']);
  });

  it('friends on hold or refunded are not waiting to qualify: the next step is another friend signing up', async () => {
    const el = await shown({ mine: { referrals: referrals.filter((r) => r.status === 'pending' || r.status === 'refunded') } });
    expect(text(el, '[part=progress] [data-step=current]')).to.equal('2 A friend signs up (next step)');
  });
});

describe('<referral-widget> the reward engine in other languages', () => {
  it('German: the offer lines, pending credits with German dates, friend statuses', async () => {
    const el = await shown({
      attrs: 'lang="de"',
      rules: { referrerRewardPercent: 2.5, commissionPayments: 3, holdDays: 14 },
      rewards: { pending: [{ rewardKind: 'referral', amount: 10, availableOn: '2027-01-12T10:00:00.000Z', label: 'Empfehlung: Eve' }] },
      mine: { referrals: [{ name: 'Ben', status: 'joined', joinedOn: '2026-03-02T10:00:00.000Z' }] },
    });
    await waitUntil(() => text(el, '[part=pending] h3') === 'Ausstehende Prämien', 'German texts');
    expect(texts(el, '[data-offer=commission]')).to.deep.equal(['Dazu 2,5 % der ersten 3 Zahlungen jedes Freundes.']);
    expect(texts(el, '[data-offer=hold]')).to.deep.equal(['Prämien werden 14 Tage, nachdem ein Freund die Bedingungen erfüllt, bestätigt.']);
    expect(texts(el, '[part=pending] li')).to.deep.equal(['10 $ ausstehend, verfügbar ab 12.01.2027 Empfehlung: Eve']);
    expect(texts(el, '[part=referral-status]')).to.deep.equal(['Wartet auf die erste Zahlung']);
  });
});
