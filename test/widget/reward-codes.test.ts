/**
 * Reward codes on the signed-up screen (getMyReferrals `rewards.codes`): each code with what it is for
 * and a copy button (the clipboard, or the code selected where it is refused), the note while a code is
 * on the way, nothing in a campaign without pools; in all five languages. The service is faked.
 */
import { expect, waitUntil } from '@open-wc/testing';
import type { MyReferrals } from '../../src/api/client.js';
import type { MyRewards } from '../../src/api/widget-schemas.js';
import type { ReferralWidget } from '../../src/widget/index.js';
import { rememberParticipant } from '../../src/widget/storage.js';
import { fakeServicePerTest, json, myRewards, participant, settings } from './fake-service.js';
import { mountSignedUp, q, stubNavigator, text, texts } from './helpers.js';

const service = fakeServicePerTest();

const CODES: MyRewards['codes'] = [
  { code: 'GIFT-7Q2X-91KD', label: 'Referral reward', kind: 'referral' },
  { code: 'BONUS-3', label: 'Milestone: Free month (3 referrals)', kind: 'milestone' },
];

async function shown(rewards: Partial<MyRewards>, attrs = '') {
  rememberParticipant('cmp_1', 'ann@example.com', 'pt_token');
  const { fraudScore: _, ...self } = participant('ann@example.com', { firstName: 'Ann' });
  const mine: MyReferrals = { participant: self, referrals: [], more: false, rewards: myRewards(rewards) };
  service().routes['/api/v1/getWidgetSettings'] = () => json(settings);
  service().routes['/api/v1/getMyReferrals'] = () => json(mine);
  return mountSignedUp(attrs);
}

const copyButton = (el: ReferralWidget, i: number) => el.shadowRoot!.querySelectorAll<HTMLButtonElement>('[part~=copy-code]')[i]!;


describe('<referral-widget> reward codes', () => {
  it('shows each code with what it is for and a copy button named for its code', async () => {
    const el = await shown({ codes: CODES });
    expect(text(el, '[part=codes] h3')).to.equal('Your reward codes');
    expect(texts(el, '[part=reward-code]')).to.deep.equal(['GIFT-7Q2X-91KD', 'BONUS-3']);
    expect(texts(el, '[part=reward-code-label]')).to.deep.equal(['Referral reward', 'Milestone: Free month (3 referrals)']);
    expect([...el.shadowRoot!.querySelectorAll('[part=codes] li')].map((li) => li.getAttribute('data-code-kind'))).to.deep.equal(['referral', 'milestone']);
    expect(copyButton(el, 0).getAttribute('aria-label')).to.equal('Copy the code GIFT-7Q2X-91KD');
    expect(q(el, '[part=codes-waiting]')).to.equal(null);
  });

  it('copies a code to the clipboard and says so at its button only; selects it where the clipboard is refused', async () => {
    let copied = '';
    let undo = stubNavigator('clipboard', { writeText: async (t: string) => void (copied = t) });
    try {
      const el = await shown({ codes: CODES });
      copyButton(el, 1).click();
      await waitUntil(() => text(el, '[part=status]') === 'Code copied.');
      expect(copied).to.equal('BONUS-3');
      expect(copyButton(el, 1).hasAttribute('data-copied')).to.equal(true);
      expect(copyButton(el, 1).textContent!.trim()).to.equal('Copied!');
      expect(copyButton(el, 0).hasAttribute('data-copied')).to.equal(false);
      // The link's own copy button is not the code's.
      expect(q(el, '[part~=copy]')!.hasAttribute('data-copied')).to.equal(false);
      undo();
      undo = stubNavigator('clipboard', { writeText: () => Promise.reject(new DOMException('denied', 'NotAllowedError')) });
      copyButton(el, 0).click();
      await waitUntil(() => text(el, '[part=status]').includes('Ctrl+C'));
      // Chromium tells a selection inside a shadow root through the root's own getSelection.
      const root = el.shadowRoot as ShadowRoot & { getSelection(): Selection | null };
      expect(root.getSelection()?.toString()).to.equal('GIFT-7Q2X-91KD');
    } finally {
      undo();
    }
  });

  it('says a code is on its way while a credit waits for one', async () => {
    const el = await shown({ codes: [], codesWaiting: 1 });
    expect(text(el, '[part=codes-waiting]')).to.equal('A reward code is on its way: it will show here as soon as it is ready.');
    expect(q(el, '[part=reward-code]')).to.equal(null);
  });

  it('nothing in a campaign without pools (no codes in the answer)', async () => {
    const el = await shown({});
    expect(q(el, '[part=codes]')).to.equal(null);
  });

  for (const [lang, heading, label, waiting] of [
    ['de', 'Ihre Prämiencodes', 'Code GIFT-7Q2X-91KD kopieren', 'Ein Prämiencode ist unterwegs: Er erscheint hier, sobald er bereit ist.'],
    ['fr', 'Vos codes de récompense', 'Copier le code GIFT-7Q2X-91KD', 'Un code de récompense arrive : il s’affichera ici dès qu’il sera prêt.'],
    ['es', 'Tus códigos de recompensa', 'Copiar el código GIFT-7Q2X-91KD', 'Tu código de recompensa está en camino: aparecerá aquí en cuanto esté listo.'],
    ['ar', 'رموز مكافآتك', 'نسخ الرمز GIFT-7Q2X-91KD', 'رمز مكافأتك في الطريق: سيظهر هنا بمجرد أن يصبح جاهزًا.'],
  ]) {
    it(`in ${lang}: the heading, the copy button's name, the note; the code itself left to right`, async () => {
      const el = await shown({ codes: CODES, codesWaiting: 1 }, `lang="${lang}"`);
      await waitUntil(() => text(el, '[part=codes] h3') === heading, `${lang} texts`);
      expect(copyButton(el, 0).getAttribute('aria-label')).to.equal(label);
      expect(text(el, '[part=codes-waiting]')).to.equal(waiting);
      expect(q(el, '[part=reward-code]')!.getAttribute('dir')).to.equal('ltr');
    });
  }
});
