/**
 * <referral-widget campaign-id="..."> — a referral program on any page.
 *
 * Flow: load the campaign; take the referral code from the share link (validated) or from an earlier
 * visit; sign the visitor up with addParticipant; then show their share link, QR code, share buttons and
 * balances. A known visitor (the `email` attribute, or one who signed up on this browser) goes straight
 * to the share view. Campaign texts are rendered as text, never as HTML.
 *
 * The element is defined by ./index.ts, so that loading the bundle twice does not throw.
 */
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { property, state } from 'lit/decorators.js';
import { ApiError, RefkitClient, type AddParticipantBody, type Campaign, type Participant, type SignupAnswer } from '../api/client.js';
import { captureCode } from './code-capture.js';
import { describeFailure, ENDED_TEXT, PAUSED_TEXT } from './failures.js';
import { qrSvg } from './qr.js';
import { withNetworkRetries } from './retry.js';
import { defaultApiBase } from './script-origin.js';
import { shareView } from './share-view.js';
import * as storage from './storage.js';
import { styles } from './styles.js';

export type WidgetState =
  | 'loading'
  | 'ready'
  | 'submitting'
  | 'signed-up'
  | 'check-email'
  | 'paused'
  | 'ended'
  | 'not-found'
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
const FORM_FIELDS = ['email', 'firstName', 'lastName'];

/** The service refused the referral code itself, not the visitor: sign up again without it. */
const refusesCode = (err: unknown) =>
  err instanceof ApiError &&
  (err.code === 'referrer_not_found' || err.code === 'self_referral' || (err.code === 'invalid_request' && err.field === 'referredByCode'));

/** Shown while the browser reports no connection and the form is still open. */
const OFFLINE_NOTICE = 'You are offline. You can fill in the form; it is sent once you are back online.';

const fieldErrorOf = (err: ApiError): FieldError => ({ field: err.field ?? 'email', message: err.message });
const errorDetail = (err: ApiError): WidgetEvents['referral-error'] => ({ code: err.code, message: err.message, status: err.status });

export class ReferralWidget extends LitElement {
  static override styles = styles;
  /** Waits before re-sending a sign-up that got no answer at all; after them the visitor gets Retry. */
  static networkRetryDelaysMs: readonly number[] = [400, 1200];

  @property({ attribute: 'campaign-id' }) campaignId = '';
  /** The service's address; by default the origin this script was loaded from. */
  @property({ attribute: 'api-base' }) apiBase = '';
  /** A visitor the page already knows: shown their share view without a form. */
  @property() email = '';
  /**
   * Your backend's HMAC-SHA256 (hex) of `email` with the campaign's signing secret: proves the visitor
   * is that participant, so the widget may show their balances (see README, Privacy).
   */
  @property({ attribute: 'email-signature' }) emailSignature = '';
  /** A parent domain (`example.com`) to keep the referral code in a cookie its subdomains share. */
  @property({ attribute: 'cookie-domain' }) cookieDomain = '';
  @property({ type: Boolean, attribute: 'first-name' }) firstNameField = false;
  @property({ type: Boolean, attribute: 'last-name' }) lastNameField = false;

  // Texts, each overridable by the attribute of the same name. Campaign texts come from the service.
  @property({ attribute: 'submit-label' }) submitLabel = 'Get my referral link';
  @property({ attribute: 'email-label' }) emailLabel = 'Email address';
  @property({ attribute: 'first-name-label' }) firstNameLabel = 'First name';
  @property({ attribute: 'last-name-label' }) lastNameLabel = 'Last name';
  @property({ attribute: 'invited-text' }) invitedText = 'You were invited';
  @property({ attribute: 'copy-label' }) copyLabel = 'Copy';
  @property({ attribute: 'share-label' }) shareLabel = 'Share…';
  @property({ attribute: 'retry-label' }) retryLabel = 'Try again';

  @state() state: WidgetState = 'loading';
  @state() campaign: Campaign | undefined;
  @state() participant: Participant | undefined;
  /** The referral code the sign-up will carry. */
  @state() referralCode: string | undefined;
  /** The share link carried a code the service does not know. */
  @state() invalidCode = false;
  /** Shown their share view without signing up on this page. */
  @state() returning = false;
  /** The service showed only what a stranger may see (no proof of being this participant on this browser). */
  @state() limited = false;
  /** A sentence about what happened beyond the obvious: an invitation that could not apply, an email sent. */
  @state() notice = '';
  @state() fieldError: FieldError | undefined;
  /** The one sentence in the aria-live status line. */
  @state() status = '';
  @state() private qr = '';

  #client: RefkitClient | undefined;
  /** Bumped by each load, so that the answers of a superseded load are dropped. */
  #run = 0;
  /** What Retry (or coming back online) does again. */
  #retry: (() => Promise<void>) | undefined;
  /** Focus follows a state change the visitor caused; a page load never steals focus. */
  #moveFocus = false;

  readonly #onOnline = () => {
    if (this.state === 'offline') void this.#retry?.();
    else if (this.status === OFFLINE_NOTICE) this.status = '';
  };
  readonly #onOffline = () => {
    if (this.state === 'ready') this.status = OFFLINE_NOTICE;
  };

  get client(): RefkitClient {
    // fetch is looked up on each call, so a page (or a test) that wraps window.fetch later is honoured.
    this.#client ??= new RefkitClient({ baseUrl: this.apiBase || defaultApiBase, fetch: (input, init) => fetch(input, init) });
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

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('apiBase')) this.#client = undefined;
    if ((changed.has('campaignId') || changed.has('apiBase') || changed.has('email') || changed.has('emailSignature')) && this.campaignId) {
      void this.#load();
    }
    if (changed.has('participant')) this.#drawQr();
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (this.#moveFocus && changed.has('state') && this.state !== 'loading' && this.state !== 'submitting') {
      this.#moveFocus = false;
      this.renderRoot.querySelector<HTMLElement>(this.#focusTarget())?.focus();
    }
  }

  // ---- flow ----

  async #load(): Promise<void> {
    const run = ++this.#run;
    const superseded = () => run !== this.#run;
    this.#retry = () => this.#load();
    this.#settle('loading', 'Loading…');
    this.participant = undefined;
    this.returning = false;
    this.limited = false;
    this.notice = '';
    this.fieldError = undefined;
    let campaign: Campaign;
    try {
      campaign = await this.client.getCampaign(this.campaignId);
    } catch (err) {
      if (!superseded()) this.#fail(err);
      return;
    }
    if (superseded()) return;
    this.campaign = campaign;
    if (campaign.status === 'Pause' || campaign.paused) return this.#settle('paused', PAUSED_TEXT);
    if (campaign.status === 'End' || campaign.ended) return this.#settle('ended', ENDED_TEXT);

    const { code, checked } = await captureCode(
      this.campaignId,
      location.search,
      (c) => this.client.validateCode(this.campaignId, c),
      this.cookieDomain || undefined,
    );
    if (superseded()) return;
    this.referralCode = code;
    this.invalidCode = checked?.valid === false;
    if (checked) this.#emit('referral-code', checked);

    if (this.#emailedLink()) return this.#followLink(this.#emailedLink()!, superseded);

    const known = this.email || storage.storedParticipant(this.campaignId);
    if (known) {
      try {
        // addParticipant is idempotent per email: for a known visitor it answers with their record.
        const answer = await this.#addParticipant({ id: this.campaignId, email: known }, false);
        if (superseded()) return;
        if (answer.outcome !== 'pending') {
          this.#show(answer, true);
          return this.#settle('signed-up', 'Welcome back.');
        }
      } catch (err) {
        if (superseded()) return;
        if (!(err instanceof ApiError && err.code === 'invalid_request')) return this.#fail(err);
        // The remembered or given address is not one the service takes: ask for one instead.
        storage.forgetParticipant(this.campaignId);
        this.#emit('referral-error', errorDetail(err));
        if (this.email) this.fieldError = fieldErrorOf(err);
      }
    }
    this.#settle('ready', navigator.onLine ? '' : OFFLINE_NOTICE);
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
      const answer = await this.client.verifyEmail(this.campaignId, code);
      if (superseded()) return;
      this.#remember(answer);
      this.#show(answer, answer.outcome === 'existing');
      this.#emit('referral-signup', { participant: answer.participant, outcome: answer.outcome });
      this.#settle('signed-up', answer.outcome === 'created' ? 'Your email is confirmed. You are in!' : 'Welcome back.');
    } catch (err) {
      if (superseded()) return;
      if (!(err instanceof ApiError && err.code === 'link_not_found')) return this.#fail(err);
      this.#emit('referral-error', errorDetail(err));
      this.notice = 'That email link has expired or was already used. Enter your email to get a new one.';
      this.#settle('ready', '');
    }
  }

  /** Shows a participant as the service answered: in full, or only the shared fields (limited). */
  #show(answer: SignupAnswer, returning: boolean): void {
    this.participant = answer.participant;
    this.returning = returning;
    this.limited = answer.participant.totalReferrals === undefined;
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
      this.fieldError = { field: 'email', message: 'Enter an email address like name@example.com.' };
      this.renderRoot.querySelector<HTMLInputElement>('input[name=email]')?.focus();
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
    this.#settle('submitting', 'Signing you up…');
    const invited = this.referralCode !== undefined && !this.invalidCode;
    let answer: SignupAnswer;
    try {
      answer = await this.#addParticipant(body, true);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid_request' && err.field) {
        this.fieldError = fieldErrorOf(err);
        this.#emit('referral-error', errorDetail(err));
        return this.#settle('ready', '');
      }
      return this.#fail(err);
    }
    this.#emit('referral-signup', { participant: answer.participant, outcome: answer.outcome });
    if (answer.outcome === 'pending') {
      this.participant = answer.participant;
      this.notice = '';
      return this.#settle('check-email', `Check your inbox: we sent a confirmation link to ${answer.participant.email ?? body.email}.`);
    }
    this.#remember(answer);
    // Used: the next visitor on this browser starts without it.
    storage.forgetCode(this.campaignId, this.cookieDomain || undefined);
    this.#show(answer, answer.outcome === 'existing');
    if (answer.outcome === 'created') return this.#settle('signed-up', 'You are in! Your link is ready to share.');
    // Already a participant: say so, rather than "You are in" and an invitation that was not applied.
    const notices = ['You had already joined with this email'];
    if (invited) notices[0] += ', so this invitation could not be added to it';
    if (answer.emailLink) notices.push('We emailed you a link to see your rewards. Check your inbox.');
    this.notice = notices.map((n) => (n.endsWith('.') ? n : `${n}.`)).join(' ');
    this.#settle('signed-up', this.notice);
  }

  /**
   * addParticipant with the visitor's referral code (without it when the service refuses the code) and
   * whatever proves who they are: this browser's token, or the page's email signature for its email.
   * `typed`: the visitor entered the address just now, so the service may email them a sign-in link.
   */
  async #addParticipant(body: AddParticipantBody, typed: boolean): Promise<SignupAnswer> {
    const code = this.referralCode;
    const request = code ? { ...body, referredByCode: code } : body;
    const signed = this.emailSignature && this.email.trim().toLowerCase() === body.email.trim().toLowerCase();
    const proof = {
      token: storage.storedToken(this.campaignId),
      ...(signed && { emailSignature: this.emailSignature }),
      sendLink: typed,
    };
    try {
      return await withNetworkRetries(() => this.client.signUp(request, proof), ReferralWidget.networkRetryDelaysMs);
    } catch (err) {
      if (!code || !refusesCode(err)) throw err;
      storage.forgetCode(this.campaignId, this.cookieDomain || undefined);
      this.referralCode = undefined;
      this.invalidCode = (err as ApiError).code !== 'self_referral';
      return this.#addParticipant(body, typed);
    }
  }

  #fail(err: unknown): void {
    const { state, message, error } = describeFailure(err, navigator.onLine);
    this.#emit('referral-error', errorDetail(error));
    this.#settle(state, message);
  }

  #settle(state: WidgetState, status: string): void {
    this.state = state;
    this.status = status;
  }

  #emit<K extends keyof WidgetEvents>(type: K, detail: WidgetEvents[K]): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  #drawQr(): void {
    this.qr = '';
    const link = this.participant?.shareLink;
    if (!link) return;
    qrSvg(link).then(
      (svg) => {
        if (this.participant?.shareLink === link) this.qr = svg;
      },
      () => {
        // No QR code: the link, copy and share buttons still work.
      },
    );
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
    this.returning = false;
    this.limited = false;
    this.notice = '';
    this.#moveFocus = true;
    this.#settle('ready', '');
  };

  readonly #onCopy = async () => {
    const link = this.participant?.shareLink;
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link);
      this.status = 'Link copied.';
    } catch {
      // No clipboard access (permissions, insecure page): select the link so that one key press copies.
      this.renderRoot.querySelector<HTMLInputElement>('[part~=link]')?.select();
      this.status = 'Press Ctrl+C (or Cmd+C) to copy the selected link.';
    }
  };

  readonly #onShare = async () => {
    const link = this.participant?.shareLink;
    if (!link) return;
    try {
      await navigator.share({ url: link, title: this.campaign?.campaignName ?? '', text: this.campaign?.shareDescription ?? '' });
    } catch {
      // The visitor closed the share sheet: nothing to report.
    }
  };

  // ---- rendering ----

  protected override render() {
    const busy = this.state === 'loading' || this.state === 'submitting';
    return html`<section part="card" data-state=${this.state} ?data-returning=${this.returning} aria-busy=${busy ? 'true' : 'false'}>
      ${this.#body()}
      <div part="status" role="status" aria-live="polite">${this.status}</div>
      <slot name="footer"></slot>
    </section>`;
  }

  #body() {
    switch (this.state) {
      case 'loading':
        // The status line says "Loading…"; this only keeps the card's shape until the campaign arrives.
        return html`<div part="placeholder" aria-hidden="true"><span></span><span></span><span></span></div>`;
      case 'ready':
      case 'submitting':
        return this.#signupView();
      case 'signed-up':
        return html`${shareView({
          campaign: this.campaign,
          participant: this.participant!,
          qrSvg: this.qr,
          copyLabel: this.copyLabel,
          shareLabel: this.shareLabel,
          onCopy: this.#onCopy,
          onShare: 'share' in navigator ? this.#onShare : undefined,
          // Balances are private: shown only to a browser that proved it is this participant.
          stats: !this.limited,
        })}
        ${this.notice ? html`<p part="notice">${this.notice}</p>` : nothing}
        ${(this.returning || this.limited) && !this.email ? this.#notMe() : nothing}`;
      case 'check-email':
        return html`${this.#header('Check your inbox')}
          <p part="description">
            We sent a link to <strong>${this.participant?.email}</strong>. Open it to confirm your email and get your referral link.
          </p>
          <button part="button other-email" type="button" @click=${this.#onNotMe}>Use another email</button>`;
      case 'paused':
      case 'ended':
      case 'not-found':
        return this.#header(this.campaign?.campaignName || 'Referral program');
      case 'error':
      case 'offline':
        return html`${this.campaign ? this.#header(this.campaign.rewardHeader || this.campaign.campaignName) : nothing}
          <button part="button retry" type="button" @click=${this.#onRetry}>${this.retryLabel}</button>`;
    }
  }

  #header(text: string | undefined) {
    return html`<h2 part="header" tabindex="-1"><slot name="header">${text}</slot></h2>`;
  }

  #signupView() {
    const c = this.campaign;
    const submitting = this.state === 'submitting';
    const strayError = this.fieldError && !FORM_FIELDS.includes(this.fieldError.field) ? this.fieldError.message : '';
    const refereeReward = c?.refereeRewardValue ? ` Your reward: ${c.refereeRewardValue} ${c.rewardType ?? ''}`.trimEnd() + '.' : '';
    return html`
      ${this.#header(c?.rewardHeader || c?.campaignName)}
      ${c?.rewardDescription ? html`<p part="description">${c.rewardDescription}</p>` : nothing}
      ${this.referralCode && !this.invalidCode ? html`<p part="invited">${this.invitedText}.${refereeReward}</p>` : nothing}
      ${this.invalidCode ? html`<p part="notice invalid-code">That invitation link is not valid, but you can still join.</p>` : nothing}
      ${this.notice ? html`<p part="notice">${this.notice}</p>` : nothing}
      <form part="form" novalidate @submit=${this.#submit}>
        ${this.firstNameField ? this.#field('firstName', this.firstNameLabel, 'text', 'given-name', 100) : nothing}
        ${this.lastNameField ? this.#field('lastName', this.lastNameLabel, 'text', 'family-name', 100) : nothing}
        ${this.#field('email', this.emailLabel, 'email', 'email', 254, this.email)}
        ${strayError ? html`<p part="field-error">${strayError}</p>` : nothing}
        <button part="button submit" type="submit" ?disabled=${submitting}>${submitting ? 'Signing up…' : this.submitLabel}</button>
      </form>
    `;
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

  #notMe() {
    return html`<p part="returning">
      Signed up as ${this.participant?.email}.
      <button part="not-me" type="button" @click=${this.#onNotMe}>Not you?</button>
    </p>`;
  }
}

/** The `detail` of each event the element dispatches (bubbling and composed, so a page can listen on document). */
export interface WidgetEvents {
  /** `outcome`: `created` (a new participant), `existing` (already one) or `pending` (confirmation emailed). */
  'referral-signup': { participant: Participant; outcome: SignupAnswer['outcome'] };
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
