/**
 * <referral-widget campaign-id="..."> — a referral program on any page.
 *
 * Flow: load the campaign and its widget settings; a participant this browser can prove it is (a token
 * from an earlier sign-up, or the page's `email-signature`) sees their own standing at once, in any
 * campaign state; otherwise take the referral code from the share link (validated) or from an earlier
 * visit, sign the visitor up with addParticipant, then show their share view (./share-view.ts, loaded
 * on demand). Campaign texts are rendered as text, never as HTML; every other text comes from the
 * locale catalogue (./i18n.ts).
 *
 * The element is defined by ./index.ts (in the npm package, by packages/widget/src/define.ts), so that
 * loading the bundle twice does not throw.
 */
import { LitElement, adoptStyles, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { msg, str, updateWhenLocaleChanges } from '@lit/localize';
import {
  ApiError,
  BrowserClient,
  type AddParticipantBody,
  type Campaign,
  type LeaderboardEntry,
  type MyReferrals,
  type Participant,
  type SignupAnswer,
  type WidgetSettings,
} from '../api/client.js';
import { formatCount, formatReward, rewardFormat } from './amounts.js';
import { promotionOffer, promotionRef, type PromotionCodeOffer, type PromotionCodeRef } from './attribution.js';
import { captureCode, utmFromUrl } from './code-capture.js';
import { describeFailure, endedText, pausedText, SETUP_CODES } from './failures.js';
import { directionOf, getLocale, languageOf, setLocale, supportedLocale } from './i18n.js';
import { withNetworkRetries } from './retry.js';
import type { OwnStanding } from './reward-standing.js';
import type { Challenge, ChallengeState } from './captcha/challenge.js';
import { defaultApiBase } from './script-origin.js';
import * as storage from './storage.js';
import { styles } from './styles.js';

type ShareViewModule = typeof import('./share-view.js');
type DiscountTextModule = typeof import('./discount-text.js');
let discountTextModule: Promise<DiscountTextModule> | undefined;
let shareViewModule: Promise<ShareViewModule> | undefined;
/** The share view's code: fetched once, as soon as a share view is likely (a sign-up, a known visitor). */
const loadShareView = () => (shareViewModule ??= import('./share-view.js'));

export type WidgetState =
  | 'loading'
  | 'ready'
  | 'submitting'
  | 'signed-up'
  | 'check-email'
  | 'paused'
  | 'ended'
  | 'not-found'
  | 'not-allowed'
  | 'error'
  | 'offline';

/** The URL parameter of the links the service emails (confirmation, sign-in). */
const LINK_PARAM = 'refkit_verify';


export interface FieldError {
  field: string;
  message: string;
}

/** Same rule as the service: one @, a dot in the domain, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** The fields the form can show; a server error about another field is shown under the form. */
const FORM_FIELDS = ['email', 'firstName', 'lastName', 'captchaToken'];

/** The service refused the CAPTCHA's token (none, not solved, not checkable now): a new one is needed. */
const refusesCaptcha = (err: unknown) => err instanceof ApiError && err.code.startsWith('captcha_');

/** The service refused the referral code itself, not the visitor: sign up again without it. */
const refusesCode = (err: unknown) =>
  err instanceof ApiError &&
  (err.code === 'referrer_not_found' || err.code === 'self_referral' || (err.code === 'invalid_request' && err.field === 'referredByCode'));

/** What the form says of the CAPTCHA's challenge: not solved yet, refused, not checkable, not loaded. */
const captchaText = (code: string) =>
  code === 'captcha_failed'
    ? msg('The security check did not pass. Please try it again.')
    : code === 'captcha_unavailable'
      ? msg('The security check could not be verified just now. Please try it again.')
      : code === 'error'
        ? msg('The security check could not load. Check your connection, then reload the page.')
        : msg('Complete the security check to sign up.');

/** Shown while the browser reports no connection and the form is still open. */
const offlineNotice = () => msg('You are offline. You can fill in the form; it is sent once you are back online.');

const fieldErrorOf = (err: ApiError): FieldError => ({ field: err.field ?? 'email', message: err.message });
const errorDetail = (err: ApiError): WidgetEvents['referral-error'] => ({ code: err.code, message: err.message, status: err.status });

/**
 * A referral program on any page: the sign-up form, then the participant's share view.
 *
 * @summary Referral sign-up and share widget for a Refkit campaign.
 *
 * @attr campaign-id - The campaign's id (required; a console warning names it when missing or unknown).
 * @attr api-base - The service's address; by default the origin this script was loaded from (with the npm package, the page's origin).
 * @attr email - A visitor the page already knows: shown their share view without a form.
 * @attr email-signature - Your backend's hex HMAC-SHA256 of `email` with the campaign's signing secret: proof that shows balances and referrals.
 * @attr cookie-domain - A parent domain (`example.com`) to keep the referral code in a cookie its subdomains share.
 * @attr first-name - Boolean: ask for a first name.
 * @attr last-name - Boolean: ask for a last name.
 * @attr show-leaderboard - Boolean: show the campaign's leaderboard (when it has one) and the participant's rank in the share view.
 * @attr lang - The language of the widget's texts (en, de, fr, es, ar); by default the page's `<html lang>`.
 * @attr submit-label - Text of the sign-up button.
 * @attr email-label - Label of the email field.
 * @attr first-name-label - Label of the first-name field.
 * @attr last-name-label - Label of the last-name field.
 * @attr invited-text - Says the visitor arrived with an invitation.
 * @attr copy-label - Text of the copy button.
 * @attr share-label - Text of the native share button.
 * @attr retry-label - Text of the retry button.
 *
 * @prop {WidgetState} state - What the widget shows: loading, ready, submitting, signed-up, check-email, paused, ended, not-found, not-allowed, error, offline.
 * @prop {Participant | undefined} participant - The participant shown in the share view.
 * @prop {Campaign | undefined} campaign - The campaign as the service answered it.
 *
 * @event referral-signup - `{participant, outcome, referrerPromotionCode}`: a sign-up or followed email link succeeded (`created`, `existing`, `pending`); `referrerPromotionCode` is `{code, id}` of the referrer's promotion code for the friend's checkout, or null.
 * @event referral-code - `{code, valid}`: the service checked the referral code of the share link.
 * @event referral-error - `{code, message, status}`: a call failed (`campaign_not_found`, `forbidden_origin`, `network_error`, ...).
 *
 * @slot header - Replaces the header of the sign-up view.
 * @slot share-header - Replaces the header of the share view.
 * @slot footer - Below the card's content, e.g. terms.
 * @slot captcha - Filled by the widget itself: the CAPTCHA's challenge, in a campaign that has one (an element of the page's DOM, as the providers' scripts need).
 *
 * @csspart card - The card around everything; `data-state` on it is the state.
 * @csspart placeholder - The skeleton shown while loading.
 * @csspart header - The heading of each view.
 * @csspart description - Campaign description texts.
 * @csspart invited - Says the visitor arrived with an invitation, and their reward.
 * @csspart invalid-code - The notice that the invitation link is not valid (also a `notice`).
 * @csspart discount - The friend's discount at checkout, with the referrer's promotion code (a `code` in it), before they sign up.
 * @csspart offer - The reward offer in the share view; each line has `data-offer`: referrer, referee, commission, milestone, hold or cap.
 * @csspart form - The sign-up form.
 * @csspart field - Each form field (also `email-field`, `firstName-field` or `lastName-field`).
 * @csspart label - Field labels.
 * @csspart input - Text inputs and the link field.
 * @csspart field-error - The error text under a field.
 * @csspart captcha - The CAPTCHA's challenge in the form (a campaign with a CAPTCHA), with what went wrong with it.
 * @csspart captcha-error - Says the security check must be completed, did not pass, or could not load (also a `field-error`).
 * @csspart button - Every filled button; each also has one of `submit`, `copy`, `copy-code`, `copy-promotion-code`, `native-share`, `retry`, `other-email`.
 * @csspart submit - The sign-up button.
 * @csspart copy - The copy-link button.
 * @csspart native-share - The button that opens the device's share sheet.
 * @csspart retry - The retry button after a failure.
 * @csspart other-email - The button that goes back to the form with another email.
 * @csspart returning - The line that greets a returning participant.
 * @csspart not-me - The "Not you?" button in it.
 * @csspart link-box - The link, its buttons and the share links.
 * @csspart link-row - The link field with the copy and share buttons.
 * @csspart link - The referral link field.
 * @csspart promotion - "Your code for friends at checkout:" with the participant's own promotion code, once it is made.
 * @csspart promotion-code-row - The promotion code with its copy button.
 * @csspart promotion-code - The participant's own promotion code.
 * @csspart copy-promotion-code - The button that copies the promotion code (also a `button`).
 * @csspart share-links - The list of share buttons.
 * @csspart share-link - One share button (`data-target` is email, whatsapp, x, facebook or linkedin).
 * @csspart qr-box - The figure around the QR code.
 * @csspart qr - The QR code.
 * @csspart stats - What the participant earned, and what is left of it to use.
 * @csspart progress - Progress toward the next reward.
 * @csspart pending - Rewards on hold (each `li` has `data-pending` referral or referee): amount, date available, what for.
 * @csspart pending-label - What a pending reward is for.
 * @csspart owed - The note that a refund left an amount to be taken from the next rewards.
 * @csspart codes - The reward codes the participant got (each `li` has `data-code-kind` referral, referee or milestone), and a note while one is on its way.
 * @csspart reward-code-label - What a reward code is for.
 * @csspart reward-code-row - A reward code with its copy button.
 * @csspart reward-code - A reward code.
 * @csspart copy-code - The button that copies a reward code (also a `button`).
 * @csspart codes-waiting - Says a reward code is on its way (the program's codes ran out).
 * @csspart milestones - Milestone bonuses: progress toward the next, and the reached ones ticked (`data-milestone=reached`).
 * @csspart leaderboard - The campaign's leaderboard (with `show-leaderboard`): the participant's rank and the top referrers.
 * @csspart my-rank - The participant's own rank (`data-ranked` true or false).
 * @csspart leaderboard-list - The ordered list of top referrers (each `li` has `data-rank`).
 * @csspart leaderboard-rank - An entry's rank.
 * @csspart leaderboard-name - An entry's display name (first name and initial, or a masked email).
 * @csspart leaderboard-count - An entry's qualified friends.
 * @csspart leaderboard-empty - Said when no one is on the board yet.
 * @csspart waitlist - The participant's place on the campaign's waitlist, in waitlist mode (`data-granted` true once let in); a polite status region.
 * @csspart waitlist-position - "You are #120 of 4,503 on the waitlist."
 * @csspart waitlist-hint - How many places each friend moves them up.
 * @csspart waitlist-granted - "You're in!", once the owner let them in.
 * @csspart milestone-progress - The progress bar (a native `progress`) toward the next milestone.
 * @csspart step-marker - The number or check mark of each progress step.
 * @csspart referrals - The list of friends invited.
 * @csspart referrals-empty - Said when no friend has joined yet.
 * @csspart referral-name - A friend's first name or masked email.
 * @csspart referral-status - Why a friend is where they are, in words (`data-status` is joined, in_review, pending, qualified or refunded).
 * @csspart referrals-more - Said when the list shows only the latest friends.
 * @csspart campaign-state - The notice of a paused or ended campaign in the share view.
 * @csspart status - The polite live region.
 * @csspart notice - A sentence about what happened (an invitation that could not apply, an email sent).
 *
 * @cssprop --referral-widget-accent - Buttons, links and the focus ring (default: the campaign's accent, else #4f46e5).
 * @cssprop --referral-widget-accent-text - Text on accent buttons (default #fff).
 * @cssprop --referral-widget-radius - Corner radius (default: the campaign's, else 12px).
 * @cssprop --referral-widget-font - Font family (default: the campaign's, else the system font).
 * @cssprop --referral-widget-background - Card background (default #fff).
 * @cssprop --referral-widget-text - Text colour (default #1f2937).
 * @cssprop --referral-widget-muted - Secondary text colour (default #4b5563).
 * @cssprop --referral-widget-border - Borders (default #d1d5db).
 * @cssprop --referral-widget-error - Error text (default #b91c1c).
 * @cssprop --referral-widget-input-background - Input background, for dark pages (default: the card background).
 * @cssprop --referral-widget-input-text - Input text colour (default: the text colour).
 * @cssprop --referral-widget-focus-ring - Focus ring colour; keep 3:1 against the background (default: the accent).
 */
export class ReferralWidget extends LitElement {
  static override styles = styles;
  // Reactive properties and their attributes (static rather than decorators: less code in the bundle).
  static override properties = {
    campaignId: { attribute: 'campaign-id' },
    apiBase: { attribute: 'api-base' },
    email: {},
    emailSignature: { attribute: 'email-signature' },
    cookieDomain: { attribute: 'cookie-domain' },
    firstNameField: { type: Boolean, attribute: 'first-name' },
    lastNameField: { type: Boolean, attribute: 'last-name' },
    showLeaderboard: { type: Boolean, attribute: 'show-leaderboard' },
    submitLabel: { attribute: 'submit-label' },
    emailLabel: { attribute: 'email-label' },
    firstNameLabel: { attribute: 'first-name-label' },
    lastNameLabel: { attribute: 'last-name-label' },
    invitedText: { attribute: 'invited-text' },
    copyLabel: { attribute: 'copy-label' },
    shareLabel: { attribute: 'share-label' },
    retryLabel: { attribute: 'retry-label' },
    lang: {},
    state: { state: true },
    campaign: { state: true },
    participant: { state: true },
    referralCode: { state: true },
    invalidCode: { state: true },
    discount: { state: true },
    returning: { state: true },
    limited: { state: true },
    notice: { state: true },
    fieldError: { state: true },
    status: { state: true },
    qr: { state: true },
    settings: { state: true },
    board: { state: true },
    own: { state: true },
    copied: { state: true },
    copiedCode: { state: true },
    shared: { state: true },
    shareViewLib: { state: true },
    captchaState: { state: true },
  };

  /** Waits before re-sending a sign-up that got no answer at all; after them the visitor gets Retry. */
  static networkRetryDelaysMs: readonly number[] = [400, 1200];
  /** How long referral-signup waits for the referrer's promotion code still being read; then it says null. */
  static promotionWaitMs = 4000;

  campaignId = '';
  /** The service's address; by default the origin this script was loaded from (with the npm package, the page's origin). */
  apiBase = '';
  /** A visitor the page already knows: shown their share view without a form. */
  email = '';
  /**
   * Your backend's HMAC-SHA256 (hex) of `email` with the campaign's signing secret: proves the visitor
   * is that participant, so the widget may show their balances (see docs/privacy.md).
   */
  emailSignature = '';
  /** A parent domain (`example.com`) to keep the referral code in a cookie its subdomains share. */
  cookieDomain = '';
  firstNameField = false;
  lastNameField = false;
  /** Show the campaign's leaderboard (when it has one) and the participant's rank in the share view. */
  showLeaderboard = false;

  // Texts, each overridable by the attribute of the same name; empty means the locale catalogue's text.
  // Campaign texts come from the service.
  submitLabel = '';
  emailLabel = '';
  firstNameLabel = '';
  lastNameLabel = '';
  invitedText = '';
  copyLabel = '';
  shareLabel = '';
  retryLabel = '';
  /** The language of the texts; by default the nearest `lang` above the element, or the page's. */
  override lang = '';

  state: WidgetState = 'loading';
  campaign: Campaign | undefined;
  participant: Participant | undefined;
  /** The referral code the sign-up will carry. */
  referralCode: string | undefined;
  /** The share link carried a code the service does not know. */
  invalidCode = false;
  /**
   * The friend's discount at checkout: the promotion code of the referrer whose code the visitor arrived
   * with; set once the module that says it (#discountText) has loaded.
   */
  discount: PromotionCodeOffer | undefined;
  #discountText: DiscountTextModule['discountText'] | undefined;
  /** The utm_* of the link the referral code came on (or of this page, without a code), sent with the sign-up. */
  #utm: storage.Utm | undefined;
  /** Shown their share view without signing up on this page. */
  returning = false;
  /** The service showed only what a stranger may see (no proof of being this participant on this browser). */
  limited = false;
  /** A sentence about what happened beyond the obvious: an invitation that could not apply, an email sent. */
  notice = '';
  fieldError: FieldError | undefined;
  /** The one sentence in the aria-live status line. */
  status = '';
  /** The QR code of the share link (SVG markup from qrcode), drawn by the share view. */
  qr = '';
  /** The reward's currency or unit and the share messages (getWidgetSettings); undefined when unavailable. */
  settings: WidgetSettings | undefined;
  /** The leaderboard's top entries (getLeaderboard), with `show-leaderboard` in a campaign that has one. */
  board: LeaderboardEntry[] | undefined;
  /**
   * Who the participant referred and their rewards beyond the balances, when known (getMyReferrals).
   * @internal
   */
  own: OwnStanding | undefined;
  /** The copy button says "Copied!" for a moment. */
  copied = false;
  /** The reward code whose copy button says "Copied!" for a moment ('' for none). */
  copiedCode = '';
  /** The link was copied or shared on this page (the share view's first step). */
  shared = false;
  /**
   * The share view's module, once loaded.
   * @internal
   */
  shareViewLib: ShareViewModule | undefined;
  /** The language being loaded: the load waits for it, so that its sentences are in that language. */
  #localeReady: Promise<void> = Promise.resolve();
  /**
   * The CAPTCHA's challenge in a campaign that has one (./captcha/challenge.ts, loaded only then): its state.
   * @internal
   */
  captchaState: ChallengeState | undefined;
  #challenge: Promise<Challenge> | undefined;
  /** The token of the solved challenge ('' until solved), sent with the sign-up. */
  #captchaToken = '';

  #client: BrowserClient | undefined;
  /** Bumped by each load, so that the answers of a superseded load are dropped. */
  #run = 0;
  /** What Retry (or coming back online) does again. */
  #retry: (() => Promise<void>) | undefined;
  /** Focus follows a state change the visitor caused; a page load never steals focus. */
  #moveFocus = false;

  readonly #onOnline = () => {
    if (this.state === 'offline') void this.#retry?.();
    else if (this.status === offlineNotice()) this.status = '';
  };
  readonly #onOffline = () => {
    if (this.state === 'ready') this.status = offlineNotice();
  };

  constructor() {
    super();
    // Re-render in the new language when the page's locale changes.
    updateWhenLocaleChanges(this);
  }

  get client(): BrowserClient {
    // fetch is looked up on each call, so a page (or a test) that wraps window.fetch later is honoured.
    this.#client ??= new BrowserClient({ baseUrl: this.apiBase || defaultApiBase(), fetch: (input, init) => fetch(input, init) });
    return this.#client;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('online', this.#onOnline);
    window.addEventListener('offline', this.#onOffline);
  }

  override disconnectedCallback(): void {
    window.removeEventListener('online', this.#onOnline);
    window.removeEventListener('offline', this.#onOffline);
    super.disconnectedCallback();
  }

  protected override firstUpdated(): void {
    // Not in the markup, nor set by the page's script by now: nothing will ever load. Tell the developer.
    if (!this.campaignId) {
      this.#warnSetup('missing_campaign_id');
      this.#settle('not-found', '');
    }
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // The share view brings its own styles: adopted beside the element's once it has loaded.
    if ((changed as PropertyValues).has('shareViewLib') && this.shareViewLib) {
      adoptStyles(this.renderRoot as ShadowRoot, [...ReferralWidget.elementStyles, this.shareViewLib.shareStyles]);
    }
    if (changed.has('lang') || !this.hasUpdated) {
      const locale = supportedLocale(languageOf(this));
      if (locale !== getLocale()) this.#localeReady = setLocale(locale).catch(() => {});
    }
    if (changed.has('apiBase')) this.#client = undefined;
    if ((changed.has('campaignId') || changed.has('apiBase') || changed.has('email') || changed.has('emailSignature')) && this.campaignId) {
      void this.#load();
    }
    if (changed.has('participant')) this.shareViewLib?.drawQr(this);
  }

  protected override updated(changed: PropertyValues<this>): void {
    // The form of a campaign with a CAPTCHA shows its challenge: loaded the first time the form shows.
    const captcha = this.settings?.captcha;
    if (captcha && this.state === 'ready' && !this.#challenge) {
      const challenge = import('./captcha/challenge.js').then(
        (m) =>
          new m.Challenge(this, captcha, (state, token) => {
            if (this.#challenge !== challenge) return;
            this.captchaState = state;
            this.#captchaToken = token;
          }),
      );
      this.#challenge = challenge;
      challenge.catch(() => {
        if (this.#challenge === challenge) this.captchaState = 'error';
      });
    }
    if (this.#moveFocus && changed.has('state') && this.state !== 'loading' && this.state !== 'submitting') {
      this.#moveFocus = false;
      // The status line ("You are in!") heads the card, above the header that takes the focus: on a
      // phone the signed-up screen is longer than the screen, so it is brought into view, not scrolled past.
      const status = this.status ? this.renderRoot.querySelector<HTMLElement>('[part=status]') : null;
      this.renderRoot.querySelector<HTMLElement>(this.#focusTarget())?.focus(status ? { preventScroll: true } : undefined);
      status?.scrollIntoView({ block: 'nearest' });
    }
  }

  // ---- flow ----

  async #load(): Promise<void> {
    const run = ++this.#run;
    const superseded = () => run !== this.#run;
    this.#retry = () => this.#load();
    this.#settle('loading', msg('Loading…'));
    this.participant = undefined;
    this.own = undefined;
    this.board = undefined;
    this.discount = undefined;
    this.shared = false;
    // Another campaign's texts must not stand in for this one's while it loads or if it fails.
    if (this.campaign?.campaignId !== this.campaignId) this.campaign = undefined;
    this.returning = false;
    this.limited = false;
    this.notice = '';
    this.fieldError = undefined;
    this.#dropChallenge();
    let known = this.email || storage.storedParticipant(this.campaignId);
    if (known) void loadShareView();
    let campaign: Campaign;
    try {
      // The settings only refine the texts: without them (an older service), the widget works as before.
      const [c, settings] = await Promise.all([this.client.getCampaign(this.campaignId), this.client.getWidgetSettings(this.campaignId).catch(() => undefined)]);
      campaign = c;
      await this.#localeReady;
      if (!superseded()) {
        this.settings = settings;
        // The campaign's look (CSS values, every one given), beneath the page's own (./styles.ts).
        for (const [k, v] of Object.entries(settings?.look ?? {})) this.style.setProperty(`--_-${k}`, v);
        if (this.showLeaderboard && settings?.leaderboard) void this.#loadBoard(superseded);
      }
    } catch (err) {
      if (!superseded()) this.#fail(err);
      return;
    }
    if (superseded()) return;
    this.campaign = campaign;

    // A participant this browser can prove it is sees their own standing, whatever the campaign's state.
    const proof = known ? this.#proofFor(known) : undefined;
    if (proof) {
      try {
        const mine = await this.client.getMyReferrals(this.campaignId, proof, proof.emailSignature ? this.email : undefined);
        if (superseded()) return;
        return await this.#showOwn(mine, superseded);
      } catch (err) {
        if (superseded()) return;
        // No answer at all: the same failure as any other load. An answer (a revoked token, an older
        // service without the route): go on as a visitor without proof.
        if (err instanceof ApiError && err.isNetworkError) return this.#fail(err);
        // The token is refused (expired, revoked, or its participant proved the address from their
        // mailbox): this browser is signed out. It forgets the token and whom it was for, so that it
        // shows the form (or the page's own email) rather than someone it can no longer prove it is.
        if (proof.token !== undefined && err instanceof ApiError && err.status === 401) {
          storage.forgetParticipant(this.campaignId);
          known = this.email;
        }
      }
    }
    if (campaign.status === 'Pause' || campaign.paused) return this.#settle('paused', pausedText());
    if (campaign.status === 'End' || campaign.ended) return this.#settle('ended', endedText());

    const { code, utm, checked } = await captureCode(
      this.campaignId,
      location.search,
      (c) => this.client.validateCode(this.campaignId, c),
      this.cookieDomain || undefined,
    );
    if (superseded()) return;
    this.referralCode = code;
    this.invalidCode = checked?.valid === false;
    // The channel the visitor came by: of the link their code came on; without a code, of this page.
    this.#utm = code ? utm : utmFromUrl(location.search);
    if (checked) this.#emit('referral-code', checked);
    if (code) void this.#loadDiscount(code, superseded);

    if (this.#emailedLink()) return this.#followLink(this.#emailedLink()!, superseded);

    if (known) {
      try {
        // addParticipant is idempotent per email: for a known visitor it answers with their record.
        const answer = await this.#addParticipant({ id: this.campaignId, email: known }, false);
        if (superseded()) return;
        if (answer.outcome !== 'pending') {
          await this.#show(answer, true);
          if (superseded()) return;
          return this.#settle('signed-up', msg('Welcome back.'));
        }
      } catch (err) {
        if (superseded()) return;
        // The campaign has a CAPTCHA: the visitor solves it in the form first.
        if (refusesCaptcha(err)) return this.#settle('ready', navigator.onLine ? '' : offlineNotice());
        if (!(err instanceof ApiError && err.code === 'invalid_request')) return this.#fail(err);
        // The remembered or given address is not one the service takes: ask for one instead.
        storage.forgetParticipant(this.campaignId);
        this.#emit('referral-error', errorDetail(err));
        if (this.email) this.fieldError = fieldErrorOf(err);
      }
    }
    this.#settle('ready', navigator.onLine ? '' : offlineNotice());
  }

  /** The friend's discount, beside the rest of the load: none (404) or none read says nothing. */
  async #loadDiscount(code: string, superseded: () => boolean): Promise<void> {
    try {
      const offer = await promotionOffer(this.client, this.campaignId, code);
      if (!offer) return;
      this.#discountText = (await (discountTextModule ??= import('./discount-text.js'))).discountText;
      if (!superseded() && this.referralCode === code) this.discount = offer;
    } catch {
      // No answer, or its texts could not load: the form says nothing of a discount.
    }
  }

  /**
   * The promotion code of the referrer the sign-up carried the code of (null without one, or when the
   * service has none or gave no answer in time), for referral-signup.
   */
  async #referrerPromotionCode(): Promise<PromotionCodeRef | null> {
    const code = this.referralCode;
    if (!code) return null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ReferralWidget.promotionWaitMs)));
    try {
      return await Promise.race([promotionOffer(this.client, this.campaignId, code).then(promotionRef), late]);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The leaderboard, beside the rest of the load: a board that cannot be read is simply not shown. */
  async #loadBoard(superseded: () => boolean): Promise<void> {
    const board = await this.client.getLeaderboard(this.campaignId).catch(() => undefined);
    if (!superseded()) this.board = board;
  }

  /**
   * What proves this browser is the participant with this email: the page's signature of its `email`,
   * or the token this browser was given for the participant it remembers (only for that participant).
   */
  #proofFor(email: string): { token?: string; emailSignature?: string } | undefined {
    const same = (a: string | undefined) => a?.trim().toLowerCase() === email.trim().toLowerCase();
    if (this.emailSignature && same(this.email)) return { emailSignature: this.emailSignature };
    const token = storage.storedToken(this.campaignId);
    return token && same(storage.storedParticipant(this.campaignId)) ? { token } : undefined;
  }

  /** The proven participant's own standing (getMyReferrals): balances, referrals, in any campaign state. */
  async #showOwn(mine: MyReferrals, superseded: () => boolean): Promise<void> {
    this.shareViewLib = await loadShareView();
    if (superseded()) return;
    this.participant = mine.participant;
    this.own = mine;
    this.returning = true;
    this.limited = false;
    const c = this.campaign;
    const closed = c?.status === 'End' || c?.ended ? endedText() : c?.status === 'Pause' || c?.paused ? pausedText() : '';
    this.#settle('signed-up', closed || msg('Welcome back.'));
  }

  /** The code of an emailed link this page was opened from, when it is for this campaign. */
  #emailedLink(): string | undefined {
    const params = new URLSearchParams(location.search);
    const id = params.get('id');
    return id === null || id === this.campaignId ? (params.get(LINK_PARAM) ?? undefined) : undefined;
  }

  /** Exchanges an emailed link for the participant and a token; the link leaves the address bar at once. */
  async #followLink(code: string, superseded: () => boolean): Promise<void> {
    const url = new URL(location.href);
    url.searchParams.delete(LINK_PARAM);
    history.replaceState(history.state, '', url.href);
    try {
      const answer = await this.client.verifyEmail(this.campaignId, code, getLocale());
      if (superseded()) return;
      this.#remember(answer);
      await this.#show(answer, answer.outcome === 'existing');
      const referrerPromotionCode = await this.#referrerPromotionCode();
      if (superseded()) return;
      this.#emit('referral-signup', { participant: answer.participant, outcome: answer.outcome, referrerPromotionCode });
      this.#settle('signed-up', answer.outcome === 'created' ? msg('Your email is confirmed. You are in!') : msg('Welcome back.'));
    } catch (err) {
      if (superseded()) return;
      if (!(err instanceof ApiError && err.code === 'link_not_found')) return this.#fail(err);
      this.#emit('referral-error', errorDetail(err));
      this.notice = msg('That email link has expired or was already used. Enter your email to get a new one.');
      this.#settle('ready', '');
    }
  }

  /**
   * Shows a participant as the service answered: in full, or only the shared fields (limited). A new
   * participant has referred no one yet; of an existing one the list is not known here.
   */
  async #show(answer: SignupAnswer, returning: boolean): Promise<void> {
    this.shareViewLib = await loadShareView();
    this.participant = answer.participant;
    this.returning = returning;
    this.limited = answer.participant.totalReferrals === undefined;
    this.own = answer.outcome === 'created' ? { referrals: [], more: false } : undefined;
    // In a waitlist campaign the new participant's place is known only to the service: ask for it with
    // the token just given (without one, or if it cannot be read, the share view shows no place).
    if (answer.outcome === 'created' && this.settings?.waitlist && answer.token) {
      try {
        this.own = await this.client.getMyReferrals(this.campaignId, { token: answer.token });
      } catch {
        // The link and the rest of the share view do not depend on it.
      }
    }
  }

  /** Takes the CAPTCHA's challenge off the page (signed up, or another campaign): the next form shows a new one. */
  #dropChallenge(): void {
    void this.#challenge?.then((c) => c.remove(), () => {});
    this.#challenge = undefined;
    this.#captchaToken = '';
    this.captchaState = undefined;
  }

  #remember(answer: SignupAnswer): void {
    const email = answer.participant.email;
    if (email) storage.rememberParticipant(this.campaignId, email, answer.token);
  }

  async #submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const text = (name: string) => String(data.get(name) ?? '').trim();
    const email = text('email');
    if (!EMAIL.test(email)) {
      this.fieldError = { field: 'email', message: msg('Enter an email address like name@example.com.') };
      this.renderRoot.querySelector<HTMLInputElement>('input[name=email]')?.focus();
      return;
    }
    if (this.#challenge && !this.#captchaToken) {
      this.fieldError = { field: 'captchaToken', message: captchaText(this.captchaState ?? '') };
      return;
    }
    this.fieldError = undefined;
    this.#moveFocus = true;
    const body: AddParticipantBody = { id: this.campaignId, email };
    if (text('firstName')) body.firstName = text('firstName');
    if (text('lastName')) body.lastName = text('lastName');
    this.#retry = () => this.#signUp(body);
    await this.#signUp(body);
  }

  async #signUp(body: AddParticipantBody): Promise<void> {
    void loadShareView();
    this.#settle('submitting', msg('Signing you up…'));
    const invited = this.referralCode !== undefined && !this.invalidCode;
    let answer: SignupAnswer;
    try {
      answer = await this.#addParticipant(this.#captchaToken ? { ...body, captchaToken: this.#captchaToken } : body, true);
    } catch (err) {
      if (refusesCaptcha(err)) {
        // A token is good for one sign-up: a new challenge, and what went wrong.
        void this.#challenge?.then((c) => c.reset());
        this.#captchaToken = '';
        this.fieldError = { field: 'captchaToken', message: captchaText((err as ApiError).code) };
        this.#emit('referral-error', errorDetail(err as ApiError));
        return this.#settle('ready', '');
      }
      if (err instanceof ApiError && err.code === 'invalid_request' && err.field) {
        this.fieldError = fieldErrorOf(err);
        this.#emit('referral-error', errorDetail(err));
        return this.#settle('ready', '');
      }
      return this.#fail(err);
    }
    this.#dropChallenge();
    this.#emit('referral-signup', { participant: answer.participant, outcome: answer.outcome, referrerPromotionCode: await this.#referrerPromotionCode() });
    if (answer.outcome === 'pending') {
      try {
        this.shareViewLib = await loadShareView();
      } catch (err) {
        return this.#fail(err);
      }
      this.participant = answer.participant;
      this.notice = '';
      const address = answer.participant.email ?? body.email;
      return this.#settle('check-email', msg(str`Check your inbox: we sent a confirmation link to ${address}.`));
    }
    this.#remember(answer);
    // Used: the next visitor on this browser starts without it.
    storage.forgetCode(this.campaignId, this.cookieDomain || undefined);
    try {
      await this.#show(answer, answer.outcome === 'existing');
    } catch (err) {
      return this.#fail(err);
    }
    if (answer.outcome === 'created') return this.#settle('signed-up', msg('You are in! Your link is ready to share.'));
    // Already a participant: say so, rather than "You are in" and an invitation that was not applied.
    const notices = [invited ? msg('You had already joined with this email, so this invitation could not be added to it.') : msg('You had already joined with this email.')];
    if (answer.emailLink) notices.push(msg('We emailed you a link to see your rewards. Check your inbox.'));
    this.notice = notices.join(' ');
    this.#settle('signed-up', this.notice);
  }

  /**
   * addParticipant with the visitor's referral code (without it when the service refuses the code) and
   * whatever proves who they are: this browser's token, or the page's email signature for its email.
   * `typed`: the visitor entered the address just now, so the service may email them a sign-in link.
   */
  async #addParticipant(body: AddParticipantBody, typed: boolean): Promise<SignupAnswer> {
    const code = this.referralCode;
    const utm = this.#utm;
    // The channel goes with the sign-up whether or not the code is taken.
    const request: AddParticipantBody = { ...body, ...(code && { referredByCode: code }), ...(utm && { utm }) };
    const signed = this.emailSignature && this.email.trim().toLowerCase() === body.email.trim().toLowerCase();
    const proof = {
      token: storage.storedToken(this.campaignId),
      ...(signed && { emailSignature: this.emailSignature }),
      sendLink: typed,
    };
    try {
      return await withNetworkRetries(() => this.client.signUp(request, proof, getLocale()), ReferralWidget.networkRetryDelaysMs);
    } catch (err) {
      if (!code || !refusesCode(err)) throw err;
      storage.forgetCode(this.campaignId, this.cookieDomain || undefined);
      this.referralCode = undefined;
      this.invalidCode = (err as ApiError).code !== 'self_referral';
      // The refused sign-up spent the CAPTCHA's token: the visitor solves it again, then signs up without the code.
      if ('captchaToken' in body) throw new ApiError(400, 'captcha_required', '');
      return this.#addParticipant(body, typed);
    }
  }

  #fail(err: unknown): void {
    const { state, message, error } = describeFailure(err, navigator.onLine);
    this.#warnSetup(error.code);
    this.#emit('referral-error', errorDetail(error));
    this.#settle(state, message);
  }

  /** Tells the developer, in the console, how to fix a setup mistake (a no-op for other failures). */
  #warnSetup(code: string): void {
    if (!SETUP_CODES.has(code)) return;
    const campaignId = this.campaignId;
    void import('./setup-advice.js').then((m) => console.warn(m.setupAdvice(code, campaignId, location.origin)));
  }

  #settle(state: WidgetState, status: string): void {
    this.state = state;
    this.status = status;
  }

  #emit<K extends keyof WidgetEvents>(type: K, detail: WidgetEvents[K]): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  #focusTarget(): string {
    switch (this.state) {
      case 'ready':
        return this.fieldError ? `[name=${this.fieldError.field}], [part~=submit]` : 'input[name=email]';
      case 'error':
      case 'offline':
        return '[part~=retry]';
      case 'check-email':
      default:
        return '[part=header]';
    }
  }

  // ---- actions ----

  readonly #onRetry = () => {
    this.#moveFocus = true;
    void this.#retry?.();
  };

  /** Someone else on a shared browser: give the token up, forget the remembered visitor, show the form. */
  readonly #onNotMe = () => {
    const token = storage.storedToken(this.campaignId);
    if (token) this.client.revokeToken(this.campaignId, token).catch(() => {});
    storage.forgetParticipant(this.campaignId);
    this.participant = undefined;
    this.shared = false;
    this.returning = false;
    this.limited = false;
    this.notice = '';
    this.#moveFocus = true;
    this.#settle('ready', '');
  };

  /** A reward value in the campaign's currency or unit, as the widget's language writes it. */
  amount(value: number): string {
    return formatReward(value, rewardFormat(this.settings, this.campaign), getLocale());
  }

  /** The language the widget's texts are in now. */
  locale(): string {
    return getLocale();
  }

  /** What a friend gets ('' when nothing). */
  refereeReward(): string {
    const value = this.campaign?.refereeRewardValue;
    return value ? this.amount(value) : '';
  }

  // ---- rendering ----

  protected override render(): TemplateResult {
    const busy = this.state === 'loading' || this.state === 'submitting';
    const locale = getLocale();
    return html`<section
      part="card"
      lang=${locale}
      dir=${directionOf(locale)}
      data-state=${this.state}
      ?data-returning=${this.returning}
      aria-busy=${busy ? 'true' : 'false'}
    >
      <div part="status" role="status" aria-live="polite">${this.status}</div>
      ${this.#body()}
      <slot name="footer"></slot>
    </section>`;
  }

  #body() {
    switch (this.state) {
      case 'loading':
        // The status line says "Loading…"; this only keeps the card's shape until the campaign arrives.
        return this.#placeholder();
      case 'ready':
      case 'submitting':
        return this.#signupView();
      case 'signed-up':
        return this.#signedUpView();
      case 'check-email':
        // Loaded with the sign-up (#signUp awaits it before this state): the rarer views live there.
        return this.shareViewLib ? this.shareViewLib.checkEmailView(this.participant?.email ?? '', this.#onNotMe) : this.#placeholder();
      case 'paused':
      case 'ended':
      case 'not-found':
      case 'not-allowed':
        // Never the campaign's internal name: visitors see its public header, or a neutral title.
        return this.#header(this.campaign?.rewardHeader || msg('Referral program'));
      case 'error':
      case 'offline':
        return html`${this.campaign ? this.#header(this.campaign.rewardHeader || msg('Referral program')) : nothing}
          <button part="button retry" type="button" @click=${this.#onRetry}>${this.retryLabel || msg('Try again')}</button>`;
    }
  }

  #placeholder() {
    return html`<div part="placeholder" aria-hidden="true"><span></span><span></span><span></span></div>`;
  }

  #signedUpView() {
    const lib = this.shareViewLib;
    if (!lib || !this.participant) return this.#placeholder();
    return lib.signedUpScreen(this, this.participant, this.#onNotMe);
  }

  #header(text: string | undefined) {
    return html`<h2 part="header" tabindex="-1" dir="auto"><slot name="header">${text}</slot></h2>`;
  }

  #signupView() {
    const c = this.campaign;
    const submitting = this.state === 'submitting';
    const strayError = this.fieldError && !FORM_FIELDS.includes(this.fieldError.field) ? this.fieldError.message : '';
    const reward = this.refereeReward();
    const invited = this.invitedText || msg('You were invited');
    return html`
      ${this.#header(c?.rewardHeader || msg('Referral program'))}
      ${c?.rewardDescription ? html`<p part="description" dir="auto">${c.rewardDescription}</p>` : nothing}
      ${this.referralCode && !this.invalidCode
        ? html`<p part="invited">${invited}.${reward ? html` ${msg(str`Your reward: ${reward}.`)}` : nothing}</p>`
        : nothing}
      ${this.referralCode && !this.invalidCode && this.discount && this.#discountText
        ? html`<p part="discount">${this.#discountText(this.discount, getLocale(), { reward: formatReward, count: formatCount })}</p>`
        : nothing}
      ${this.invalidCode ? html`<p part="notice invalid-code">${msg('That invitation link is not valid, but you can still join.')}</p>` : nothing}
      ${this.notice ? html`<p part="notice">${this.notice}</p>` : nothing}
      <form part="form" novalidate @submit=${this.#submit}>
        ${this.firstNameField ? this.#field('firstName', this.firstNameLabel || msg('First name'), 'text', 'given-name', 100) : nothing}
        ${this.lastNameField ? this.#field('lastName', this.lastNameLabel || msg('Last name'), 'text', 'family-name', 100) : nothing}
        ${this.#field('email', this.emailLabel || msg('Email address'), 'email', 'email', 254, this.email)}
        ${this.captchaState ? this.#captchaView() : nothing}
        ${strayError ? html`<p part="field-error">${strayError}</p>` : nothing}
        <button part="button submit" type="submit" ?disabled=${submitting}>
          ${submitting ? msg('Signing up…') : this.submitLabel || (this.referralCode && !this.invalidCode && reward ? msg('Claim my reward') : msg('Get my referral link'))}
        </button>
      </form>
    `;
  }

  /** The CAPTCHA's challenge (its slot) and what went wrong with it, announced as it changes. */
  #captchaView() {
    const error = this.fieldError?.field === 'captchaToken' ? this.fieldError.message : this.captchaState === 'error' ? captchaText('error') : '';
    return html`<div part="captcha">
      <slot name="captcha"></slot>
      <p part="field-error captcha-error" role="alert">${error}</p>
    </div>`;
  }

  /** A labelled input with its error message next to it (and tied to it for screen readers). */
  #field(name: string, label: string, type: string, autocomplete: string, maxLength: number, value = '') {
    const error = this.fieldError?.field === name ? this.fieldError.message : '';
    return html`<div part="field ${name}-field">
      <label part="label" for=${name}>${label}</label>
      <input
        id=${name}
        part="input"
        name=${name}
        type=${type}
        autocomplete=${autocomplete}
        maxlength=${maxLength}
        ?required=${name === 'email'}
        aria-invalid=${error ? 'true' : 'false'}
        aria-describedby="${name}-error"
        .value=${value}
      />
      <span id="${name}-error" part="field-error">${error}</span>
    </div>`;
  }

}

/** The `detail` of each event the element dispatches (bubbling and composed, so a page can listen on document). */
export interface WidgetEvents {
  /**
   * `outcome`: `created` (a new participant), `existing` (already one) or `pending` (confirmation emailed).
   * `referrerPromotionCode`: the promotion code of the referrer whose code the sign-up carried, as
   * getPromotionCode answered it (`id` for a Stripe Checkout Session's `discounts`, `code` to type or
   * prefill), for the friend's first payment; null when the sign-up carried no referral code, the
   * campaign has no promotion code for it, or the service gave no answer.
   */
  'referral-signup': { participant: Participant; outcome: SignupAnswer['outcome']; referrerPromotionCode: PromotionCodeRef | null };
  'referral-code': { code: string; valid: boolean };
  'referral-error': { code: string; message: string; status: number };
}

declare global {
  interface HTMLElementTagNameMap {
    'referral-widget': ReferralWidget;
  }
  interface HTMLElementEventMap {
    'referral-signup': CustomEvent<WidgetEvents['referral-signup']>;
    'referral-code': CustomEvent<WidgetEvents['referral-code']>;
    'referral-error': CustomEvent<WidgetEvents['referral-error']>;
  }
}
