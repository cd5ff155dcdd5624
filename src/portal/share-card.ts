/**
 * The participant's link, as the widget shows it to them: the widget's own share view (link and copy,
 * their promotion code for friends at checkout, share buttons, the QR code, balances, progress, the friends
 * who joined), with the widget's styles and the campaign's look, in a card of its own (its own shadow
 * root, as in the widget).
 */
import { LitElement, css, html, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { msg } from '@lit/localize';
import type { PortalMe } from '../api/portal-schemas.js';
import { shareStyles, shareView } from '../widget/share-view.js';
import { shareTexts, tagLink } from '../widget/share-links.js';
import { qrSvg } from '../widget/qr.js';
import { styles as widgetStyles } from '../widget/styles.js';
import { formatReward, rewardFormat } from '../widget/amounts.js';
import { getLocale } from './i18n.js';

/** How long the copy button says "Copied!" (as the widget's). */
const COPIED_MS = 2500;

@customElement('portal-share')
export class PortalShare extends LitElement {
  static override styles = [
    widgetStyles,
    shareStyles,
    // The card fills its column of the page rather than the widget's 28rem.
    css`
      :host { max-width: none; }
    `,
  ];

  @property({ attribute: false }) me!: PortalMe;
  @state() private qr = '';
  @state() private copied = false;
  /** The promotion code just copied ('' for none): its button says so. */
  @state() private copiedCode = '';
  @state() private shared = false;
  @state() private status = '';
  #timer: ReturnType<typeof setTimeout> | undefined;
  #codeTimer: ReturnType<typeof setTimeout> | undefined;

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (!changed.has('me')) return;
    for (const [k, v] of Object.entries(this.me.settings.look ?? {})) this.style.setProperty(`--_-${k}`, v);
    const link = this.me.participant.shareLink;
    if (link && (changed.get('me') as PortalMe | undefined)?.participant.shareLink !== link) {
      // Tagged as the widget's (utm_medium=qr), so that the owner's analytics count the channel.
      qrSvg(tagLink(link, 'qr')).then(
        (svg) => {
          if (this.me.participant.shareLink === link) this.qr = svg;
        },
        () => undefined,
      );
    }
  }

  #amount = (value: number) => formatReward(value, rewardFormat(this.me.settings, this.me.campaign), getLocale());

  async #copy(): Promise<void> {
    // Tagged as the widget's copy is (utm_medium=copy), so that the owner's analytics count the channel.
    const link = tagLink(this.me.participant.shareLink ?? '', 'copy');
    try {
      await navigator.clipboard.writeText(link);
      this.copied = true;
      this.shared = true;
      this.status = msg('Link copied.');
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => (this.copied = false), COPIED_MS);
    } catch {
      this.renderRoot.querySelector<HTMLTextAreaElement>('[part~=link]')?.select();
      this.status = msg('Press Ctrl+C (or Cmd+C) to copy the selected link.');
    }
  }

  /** Copies the participant's promotion code; without clipboard access, selects it so that one key press copies. */
  async #copyCode(code: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(code);
      this.copiedCode = code;
      this.shared = true;
      this.status = msg('Code copied.');
      clearTimeout(this.#codeTimer);
      this.#codeTimer = setTimeout(() => (this.copiedCode = ''), COPIED_MS);
    } catch {
      const shown = this.renderRoot.querySelector('[part~=promotion-code]');
      if (shown) getSelection()?.selectAllChildren(shown);
      this.status = msg('Press Ctrl+C (or Cmd+C) to copy the selected code.');
    }
  }

  async #nativeShare(): Promise<void> {
    const link = this.me.participant.shareLink ?? '';
    const referee = this.me.campaign.refereeRewardValue;
    const { native } = shareTexts(link, this.me.settings.shareMessages, referee ? this.#amount(referee) : '');
    try {
      await navigator.share({ text: native, ...(this.me.campaign.rewardHeader && { title: this.me.campaign.rewardHeader }) });
      this.shared = true;
    } catch {
      // The share sheet was closed: nothing to say.
    }
  }

  protected override render() {
    const me = this.me;
    const locale = getLocale();
    return html`<div part="card">
      <p part="status" role="status">${this.status}</p>
      ${shareView({
        campaign: me.campaign,
        participant: me.participant,
        referrals: me.referrals,
        moreReferrals: me.moreReferrals,
        rewards: undefined,
        rules: me.settings.rules,
        amount: this.#amount,
        locale,
        count: (n) => new Intl.NumberFormat(locale).format(n),
        messages: me.settings.shareMessages,
        qrSvg: this.qr,
        copied: this.copied,
        copiedCode: this.copiedCode,
        onCopyCode: () => undefined,
        promotionCode: me.promotionCode,
        onCopyPromotionCode: (code) => void this.#copyCode(code),
        shared: this.shared,
        copyLabel: '',
        shareLabel: '',
        onCopy: () => void this.#copy(),
        onShared: () => (this.shared = true),
        onShare: 'share' in navigator ? () => void this.#nativeShare() : undefined,
        stats: true,
      })}
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'portal-share': PortalShare;
  }
}
