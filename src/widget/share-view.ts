/** The signed-up view: the participant's link with copy, native share, share links, QR code and balances. */
import { html, nothing } from 'lit';
import { unsafeSVG } from 'lit/directives/unsafe-svg.js';
import type { Campaign, Participant } from '../api/client.js';
import { shareTargets } from './share-links.js';

export interface ShareViewOptions {
  campaign: Campaign | undefined;
  participant: Participant;
  /** SVG markup that qrcode made from the share link (never campaign text); '' until it is drawn. */
  qrSvg: string;
  copyLabel: string;
  shareLabel: string;
  onCopy: () => void;
  /** Present only where the browser has native share. */
  onShare: (() => void) | undefined;
  /** Show referrals and balances (false when the service shared only the link). */
  stats: boolean;
}

const selectAll = (e: FocusEvent) => (e.target as HTMLInputElement).select();

export function shareView({ campaign: c, participant: p, qrSvg, copyLabel, shareLabel, onCopy, onShare, stats }: ShareViewOptions) {
  const link = p.shareLink ?? '';
  return html`
    <h2 part="header" tabindex="-1"><slot name="share-header">${c?.shareHeader || 'Share your link'}</slot></h2>
    ${c?.shareDescription ? html`<p part="description">${c.shareDescription}</p>` : nothing}
    <div part="link-row">
      <label class="visually-hidden" for="share-link">Your referral link</label>
      <input id="share-link" part="input link" readonly .value=${link} @focus=${selectAll} />
      <button part="button copy" type="button" @click=${onCopy}>${copyLabel}</button>
    </div>
    ${onShare ? html`<button part="share-link native-share" type="button" @click=${onShare}>${shareLabel}</button>` : nothing}
    <ul part="share-links" aria-label="Share on">
      ${shareTargets(link, c?.shareDescription ?? '').map(
        (t) => html`<li><a part="share-link" data-target=${t.id} href=${t.href} target="_blank" rel="noopener noreferrer">${t.label}</a></li>`,
      )}
    </ul>
    <div part="qr" role="img" aria-label="QR code of your referral link">${qrSvg ? unsafeSVG(qrSvg) : nothing}</div>
    ${stats
      ? html`<dl part="stats">
          <div><dt>Referrals</dt><dd data-stat="referrals">${p.totalReferrals ?? 0}</dd></div>
          <div><dt>Referral rewards</dt><dd data-stat="referral-balance">${p.referralRewardBalance ?? 0}</dd></div>
          <div><dt>Your reward</dt><dd data-stat="referee-balance">${p.refereeRewardBalance ?? 0}</dd></div>
        </dl>`
      : nothing}
  `;
}
