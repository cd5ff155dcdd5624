/**
 * The signed-up view, the screen people share from: the offer, the full link with copy feedback at the
 * button, share buttons with icons (and the device's share sheet), the QR code, balances in the
 * campaign's currency, progress toward the next reward and who the participant referred. In a paused or
 * ended campaign the participant keeps their link, referrals and balances, with the state explained.
 *
 * Loaded on demand (src/widget/referral-widget.ts), so that the sign-up form's first load stays small.
 */
import { html, nothing } from 'lit';
import { msg, str } from '@lit/localize';
import { unsafeSVG } from 'lit/directives/unsafe-svg.js';
import type { Campaign, LeaderboardEntry, MyReferral, Participant, WidgetSettings } from '../api/client.js';
import type { LeaderboardSettings, RewardRules, ShareMessages } from '../api/schemas.js';
import type { MyRank, MyRewards, MyWaitlist } from '../api/widget-schemas.js';
import type { PromotionCodeRef } from '../api/promotion-schemas.js';
import type { OwnStanding } from './reward-standing.js';
import { qrSvg } from './qr.js';
import { icons } from './icons.js';
import { leaderboardView } from './leaderboard-view.js';
import { waitlistView } from './waitlist-view.js';
import { hasOfferRuleLines, offerRuleLines } from './offer-rules.js';
import { rewardCodes } from './reward-codes-view.js';
import { dateOf, milestoneProgress, owedNote, pendingRewards } from './reward-standing.js';
import { shareTargets, shareTexts, tagLink } from './share-links.js';

export interface ShareViewOptions {
  campaign: Campaign | undefined;
  participant: Participant;
  /** Who the participant referred; undefined when not known (then no list is shown). */
  referrals: MyReferral[] | undefined;
  /** More referrals exist than listed. */
  moreReferrals: boolean;
  /** Pending credits, what is owed and milestones; undefined when not known (an older service, a new participant). */
  rewards: MyRewards | undefined;
  /** The campaign's reward rules, for the offer; undefined from an older service. */
  rules: RewardRules | undefined;
  /** A reward value in the campaign's currency or unit, as the locale writes it. */
  amount: (value: number) => string;
  locale: string;
  /** A number as the locale writes it. */
  count: (n: number) => string;
  messages: ShareMessages;
  /** SVG markup that qrcode made from the share link (never campaign text); '' until it is drawn. */
  qrSvg: string;
  /** The link was just copied: the copy button says so. */
  copied: boolean;
  /** The reward code just copied ('' for none): its button says so. */
  copiedCode: string;
  onCopyCode: (code: string) => void;
  /** The participant's own promotion code (getMyReferrals), for friends to use at checkout; absent until made. */
  promotionCode?: PromotionCodeRef | undefined;
  /** Copies the promotion code (the copied one is `copiedCode` too); sharing it is sharing. */
  onCopyPromotionCode?: ((code: string) => void) | undefined;
  /** The visitor copied or shared the link on this page: the first step toward a reward is done. */
  shared: boolean;
  copyLabel: string;
  shareLabel: string;
  onCopy: () => void;
  /** A share link (email, X, WhatsApp...) was followed. */
  onShared: () => void;
  /** Present only where the browser has native share. */
  onShare: (() => void) | undefined;
  /** Show referrals, balances and progress (false when the service shared only the link). */
  stats: boolean;
  /** The campaign's leaderboard, when the element shows it (`show-leaderboard`) and the campaign has one. */
  leaderboard?: { settings: LeaderboardSettings; board: LeaderboardEntry[] | undefined; rank: MyRank | undefined } | undefined;
  /** The participant's place on the campaign's waitlist (getMyReferrals), with what counts as a referral there. */
  waitlist?: { place: MyWaitlist; counts: 'signups' | 'qualified' } | undefined;
}

/** The element's state this view reads and the feedback it writes (src/widget/referral-widget.ts). */
export interface ShareHost {
  campaign: Campaign | undefined;
  participant: Participant | undefined;
  own: OwnStanding | undefined;
  settings: WidgetSettings | undefined;
  board: LeaderboardEntry[] | undefined;
  showLeaderboard: boolean;
  qr: string;
  copied: boolean;
  copiedCode: string;
  shared: boolean;
  copyLabel: string;
  shareLabel: string;
  limited: boolean;
  returning: boolean;
  email: string;
  notice: string;
  status: string;
  renderRoot: HTMLElement | DocumentFragment;
  refereeReward(): string;
  amount(value: number): string;
  locale(): string;
}

/** Double opt-in: the sign-up waits for the emailed link. */
export function checkEmailView(email: string, onOtherEmail: () => void) {
  return html`<h2 part="header" tabindex="-1">${msg('Check your inbox')}</h2>
    <p part="description">
      ${msg(html`We sent a link to <strong>${email}</strong>. Open it to confirm your email and get your referral link.`)}
    </p>
    <button part="button other-email" type="button" @click=${onOtherEmail}>${msg('Use another email')}</button>`;
}

/** How long the copy button says "Copied!". */
const COPIED_MS = 2500;
const copiedTimers = new WeakMap<ShareHost, ReturnType<typeof setTimeout>>();

/** The signed-up screen of an element: the share view, its notice, and "Not you?" for a remembered visitor. */
export function signedUpScreen(host: ShareHost, participant: Participant, onNotMe: () => void) {
  const email = participant.email ?? '';
  return html`${shareView({
      campaign: host.campaign,
      participant,
      referrals: host.own?.referrals,
      moreReferrals: host.own?.more ?? false,
      rewards: host.own?.rewards,
      rules: host.settings?.rules,
      amount: (value) => host.amount(value),
      locale: host.locale(),
      count: (n) => new Intl.NumberFormat(host.locale()).format(n),
      messages: host.settings?.shareMessages ?? {},
      qrSvg: host.qr,
      copied: host.copied,
      copiedCode: host.copiedCode,
      onCopyCode: (code) => void copyCode(host, code),
      promotionCode: host.own?.promotionCode,
      onCopyPromotionCode: (code) => void copyCode(host, code, true),
      shared: host.shared,
      copyLabel: host.copyLabel,
      shareLabel: host.shareLabel,
      onCopy: () => void copyLink(host),
      onShared: () => (host.shared = true),
      onShare: 'share' in navigator ? () => void nativeShare(host) : undefined,
      // Balances are private: shown only to a browser that proved it is this participant.
      stats: !host.limited,
      leaderboard: host.showLeaderboard && host.settings?.leaderboard ? { settings: host.settings.leaderboard, board: host.board, rank: host.own?.leaderboard } : undefined,
      waitlist: host.own?.waitlist ? { place: host.own.waitlist, counts: host.settings?.waitlist?.counts ?? 'signups' } : undefined,
    })}
    ${host.notice ? html`<p part="notice">${host.notice}</p>` : nothing}
    ${(host.returning || host.limited) && !host.email
      ? html`<p part="returning">
          ${msg(str`Signed up as ${email}.`)}
          <button part="not-me" type="button" @click=${onNotMe}>${msg('Not you?')}</button>
        </p>`
      : nothing}`;
}

/**
 * Copies a reward code, or the participant's promotion code (`shares`: copying it is a step toward a
 * reward, as copying the link is); without clipboard access, selects it so that one key press copies.
 */
async function copyCode(host: ShareHost, code: string, shares = false): Promise<void> {
  try {
    await navigator.clipboard.writeText(code);
    host.copiedCode = code;
    if (shares) host.shared = true;
    host.status = msg('Code copied.');
    clearTimeout(copiedTimers.get(host));
    copiedTimers.set(host, setTimeout(() => (host.copiedCode = ''), COPIED_MS));
  } catch {
    const shown = [...host.renderRoot.querySelectorAll(shares ? '[part~=promotion-code]' : '[part~=reward-code]')].find((el) => el.textContent === code);
    if (shown) getSelection()?.selectAllChildren(shown);
    host.status = msg('Press Ctrl+C (or Cmd+C) to copy the selected code.');
  }
}

/** Copies the link, tagged `utm_medium=copy` (the field shows it plain until a copy has to be made by hand). */
async function copyLink(host: ShareHost): Promise<void> {
  const shareLink = host.participant?.shareLink;
  if (!shareLink) return;
  const link = tagLink(shareLink, 'copy');
  try {
    await navigator.clipboard.writeText(link);
    host.copied = true;
    host.shared = true;
    host.status = msg('Link copied.');
    clearTimeout(copiedTimers.get(host));
    copiedTimers.set(host, setTimeout(() => (host.copied = false), COPIED_MS));
  } catch {
    // No clipboard access (permissions, insecure page): the link as the button would have copied it,
    // selected, so that one key press copies.
    const field = host.renderRoot.querySelector<HTMLTextAreaElement>('[part~=link]');
    if (field) {
      field.value = link;
      field.select();
    }
    host.status = msg('Press Ctrl+C (or Cmd+C) to copy the selected link.');
  }
}

async function nativeShare(host: ShareHost): Promise<void> {
  const link = host.participant?.shareLink;
  if (!link) return;
  // The friend's message, as on the other channels (not the participant's instructions).
  const { native } = shareTexts(link, host.settings?.shareMessages ?? {}, host.refereeReward());
  try {
    await navigator.share({ text: native, ...(host.campaign?.rewardHeader && { title: host.campaign.rewardHeader }) });
    host.shared = true;
  } catch {
    // The visitor closed the share sheet: nothing to report.
  }
}

/**
 * Draws the QR code of the participant's link (tagged `utm_medium=qr`) into `host.qr`, unless the
 * participant changed meanwhile.
 */
export function drawQr(host: ShareHost): void {
  host.qr = '';
  const link = host.participant?.shareLink;
  if (!link) return;
  qrSvg(tagLink(link, 'qr')).then(
    (svg) => {
      if (host.participant?.shareLink === link) host.qr = svg;
    },
    () => {
      // No QR code: the link, copy and share buttons still work.
    },
  );
}

const selectAll = (e: FocusEvent) => (e.target as HTMLTextAreaElement).select();

/**
 * Whether the campaign gives rewards at all: a waitlist before its launch often gives none but places, and
 * then the widget shows no reward tiles and says where a friend is without talking of payments.
 */
export const givesRewards = (c: Campaign | undefined, rules: RewardRules | undefined): boolean =>
  !c ||
  c.referrerRewardValue === undefined ||
  c.referrerRewardValue > 0 ||
  (c.refereeRewardValue ?? 0) > 0 ||
  (!!rules && (rules.referrerRewardPercent > 0 || rules.milestones.some((m) => m.reward > 0)));

/** Why a friend is where they are, in words. */
function statusText(r: MyReferral, locale: string, rewards: boolean) {
  if (!rewards) return r.status === 'qualified' ? msg('Qualified') : r.status === 'in_review' ? msg('Being reviewed') : msg('Joined');
  switch (r.status) {
    case 'qualified':
      return msg('Reward earned');
    case 'in_review':
      return msg('Being reviewed');
    case 'pending':
      return r.availableOn ? msg(html`Reward on hold until ${dateOf(r.availableOn, locale)}`) : msg('Reward on hold');
    case 'refunded':
      return msg('Refunded');
    default:
      return msg('Waiting for their first payment');
  }
}

export function shareView(o: ShareViewOptions) {
  const c = o.campaign;
  const p = o.participant;
  const link = p.shareLink ?? '';
  const amount = o.amount;
  const refereeReward = c?.refereeRewardValue ? amount(c.refereeRewardValue) : '';
  const ended = c?.status === 'End' || c?.ended === true;
  const paused = !ended && (c?.status === 'Pause' || c?.paused === true);
  const texts = shareTexts(link, o.messages, refereeReward);
  return html`
    ${paused
      ? html`<p part="campaign-state" data-campaign-state="paused">
          ${msg('This referral program is paused. Friends cannot join through your link until it resumes; your rewards are kept.')}
        </p>`
      : nothing}
    ${ended
      ? html`<p part="campaign-state" data-campaign-state="ended">
          ${msg('This referral program has ended. Your link no longer brings rewards; what you earned is kept.')}
        </p>`
      : nothing}
    ${ended
      ? // Nothing left to share for: what the participant earned, and with whom.
        html`<h2 part="header" tabindex="-1">${msg('Your rewards')}</h2>`
      : html`<h2 part="header" tabindex="-1" dir=${c?.shareHeader ? 'auto' : nothing}><slot name="share-header">${c?.shareHeader || msg('Share your link')}</slot></h2>
          ${offer(c, amount, o.rules, o.count)}
          ${c?.shareDescription ? html`<p part="description" dir="auto">${c.shareDescription}</p>` : nothing}`}
    ${o.waitlist && o.stats ? waitlistView(o.waitlist.place, o.waitlist.counts, o.count) : nothing}
    <div part="link-box">
      <label part="label" for="share-link">${msg('Your referral link')}</label>
      <div part="link-row">
        <textarea id="share-link" part="input link" readonly rows="2" spellcheck="false" .value=${link} @focus=${selectAll}></textarea>
        <button part="button copy" type="button" ?data-copied=${o.copied} @click=${o.onCopy}>
          ${o.copied ? icons.check : icons.copy}<span>${o.copied ? msg('Copied!') : o.copyLabel || msg('Copy')}</span>
        </button>
      </div>
      ${o.promotionCode && !ended ? promotionCodeLine(o.promotionCode.code, o.copiedCode === o.promotionCode.code, o.onCopyPromotionCode ?? o.onCopyCode) : nothing}
    </div>
    ${ended
      ? nothing
      : html`${o.onShare
            ? html`<button part="button native-share" type="button" @click=${o.onShare}>${icons.share}<span>${o.shareLabel || msg('Share…')}</span></button>`
            : nothing}
          <ul part="share-links" aria-label=${msg('Share on')}>
            ${shareTargets(link, texts).map(
              (t) =>
                html`<li>
                  <a part="share-link" data-target=${t.id} href=${t.href} target="_blank" rel="noopener noreferrer" @click=${o.onShared}>${icons[t.id]}<span>${t.label}</span></a>
                </li>`,
            )}
          </ul>
          <figure part="qr-box">
            <div part="qr" role="img" aria-label=${msg('QR code of your referral link')}>${o.qrSvg ? unsafeSVG(o.qrSvg) : nothing}</div>
            <figcaption>${msg('Friends nearby can scan this code with their phone camera.')}</figcaption>
          </figure>`}
    ${o.stats
      ? html`${stats(c, p, amount, o.count, givesRewards(c, o.rules))} ${rewardCodes(o.rewards, o.copiedCode, o.onCopyCode)} ${owedNote(o.rewards, amount)} ${pendingRewards(o.rewards, amount, o.locale)}
        ${ended ? nothing : progress(c, o.referrals, amount, o.shared)} ${milestoneProgress(o.rewards, amount, o.count, ended)} ${referralList(o)}`
      : nothing}
    ${o.leaderboard ? leaderboardView({ ...o.leaderboard, rank: o.stats ? o.leaderboard.rank : undefined, count: o.count }) : nothing}
  `;
}

/** The participant's own promotion code, for friends to type at checkout, with a button that copies it. */
function promotionCodeLine(code: string, copied: boolean, onCopy: (code: string) => void) {
  return html`<div part="promotion">
    <span>${msg('Your code for friends at checkout:')}</span>
    <span part="promotion-code-row">
      <code part="promotion-code" dir="ltr">${code}</code>
      <button part="button copy-promotion-code" type="button" ?data-copied=${copied} aria-label=${msg(str`Copy the code ${code}`)} @click=${() => onCopy(code)}>
        ${copied ? icons.check : icons.copy}<span aria-hidden="true">${copied ? msg('Copied!') : msg('Copy')}</span>
      </button>
    </span>
  </div>`;
}

/** The offer stays in view after sign-up: what the participant earns and what a friend gets. */
function offer(c: Campaign | undefined, amount: (v: number) => string, rules: RewardRules | undefined, count: (n: number) => string) {
  const mine = c?.referrerRewardValue ? amount(c.referrerRewardValue) : '';
  const theirs = c?.refereeRewardValue ? amount(c.refereeRewardValue) : '';
  if (!mine && !theirs && !c?.rewardHeader && !hasOfferRuleLines(rules)) return nothing;
  return html`<div part="offer">
    ${icons.gift}
    <div>
      ${c?.rewardHeader ? html`<strong dir="auto">${c.rewardHeader}</strong>` : nothing}
      <ul>
        ${mine ? html`<li data-offer="referrer">${msg(str`You get ${mine} for each friend who qualifies.`)}</li>` : nothing}
        ${theirs ? html`<li data-offer="referee">${msg(str`Your friends get ${theirs} when they qualify (for example, with a purchase).`)}</li>` : nothing}
        ${offerRuleLines(rules, amount, count)}
      </ul>
    </div>
  </div>`;
}

/**
 * What the participant earned (for good: redeeming does not lower it) and what is left of it to use.
 * A referred participant who has not earned their welcome reward yet reads what it is and how to get
 * it, rather than a zero.
 */
function stats(c: Campaign | undefined, p: Participant, amount: (v: number) => string, count: (n: number) => string, rewards: boolean) {
  const welcomeEarned = p.refereeReward ?? p.refereeRewardBalance ?? 0;
  const referralEarned = p.referralReward ?? p.referralRewardBalance ?? 0;
  const welcomeOffer = p.referredByCode !== undefined && c?.refereeRewardValue ? amount(c.refereeRewardValue) : '';
  const row = (label: string, stat: string, value: string) => html`<div><dt>${label}</dt><dd data-stat=${stat}>${value}</dd></div>`;
  return html`<dl part="stats">
    ${row(msg('Friends joined'), 'referrals', count(p.totalReferrals ?? 0))}
    ${rewards || referralEarned > 0
      ? html`${row(msg('Earned for referrals'), 'referral-earned', amount(referralEarned))}
        ${row(msg('Referral rewards left'), 'referral-balance', amount(p.referralRewardBalance ?? 0))}`
      : nothing}
    ${welcomeEarned > 0
      ? html`${row(msg('Your welcome reward'), 'referee-earned', amount(welcomeEarned))}
        ${row(msg('Welcome reward left'), 'referee-balance', amount(p.refereeRewardBalance ?? 0))}`
      : welcomeOffer
        ? row(msg('Your welcome reward'), 'referee-pending', msg(str`${welcomeOffer} when you qualify (for example, with a purchase)`))
        : nothing}
  </dl>`;
}

/**
 * Where the participant stands on the way to their next reward: share, a friend signs up, the friend
 * qualifies. Sharing is done once they copied or shared the link here, or a friend came through it; a
 * friend who joined and has not qualified yet puts them on the last step.
 */
function progress(c: Campaign | undefined, referrals: MyReferral[] | undefined, amount: (v: number) => string, shared: boolean) {
  if (!c?.referrerRewardValue) return nothing;
  // Friends still to qualify; a pending reward's friend has qualified (their reward waits out the hold).
  const waiting = referrals?.filter((r) => r.status === 'joined' || r.status === 'in_review').length ?? 0;
  const current = waiting > 0 ? 2 : shared || (referrals?.length ?? 0) > 0 ? 1 : 0;
  const steps = [msg('Share your link'), msg('A friend signs up'), msg(str`They qualify: you get ${amount(c.referrerRewardValue)}`)];
  return html`<section part="progress" aria-labelledby="progress-title">
    <h3 id="progress-title">${msg('Your next reward')}</h3>
    <ol>
      ${steps.map((label, i) => {
        const state = i < current ? 'done' : i === current ? 'current' : 'todo';
        const note = state === 'done' ? msg('(done)') : state === 'current' ? msg('(next step)') : '';
        return html`<li data-step=${state} aria-current=${state === 'current' ? 'step' : 'false'}>
          <span part="step-marker" aria-hidden="true">${state === 'done' ? icons.check : i + 1}</span>
          <span>${label}<span class="visually-hidden"> ${note}</span></span>
        </li>`;
      })}
    </ol>
  </section>`;
}

function referralList(o: ShareViewOptions) {
  if (!o.referrals) return nothing;
  return html`<section part="referrals" aria-labelledby="referrals-title">
    <h3 id="referrals-title">${msg('Friends you invited')}</h3>
    ${o.referrals.length === 0
      ? html`<p part="referrals-empty">${msg('No one yet. Share your link to invite your first friend.')}</p>`
      : html`<ul>
          ${o.referrals.map(
            (r) => html`<li data-referral-status=${r.status}>
              <span part="referral-name">${r.name}</span>
              <span part="referral-status" data-status=${r.status}>${statusText(r, o.locale, givesRewards(o.campaign, o.rules))}</span>
              ${dateOf(r.joinedOn, o.locale)}
            </li>`,
          )}
        </ul>`}
    ${o.moreReferrals ? html`<p part="referrals-more">${msg('…and more.')}</p>` : nothing}
  </section>`;
}
export { shareStyles } from './share-styles.js';
