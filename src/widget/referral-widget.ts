/**
 * <referral-widget campaign-id="..."> — a referral program on any page.
 *
 * Flow: load the campaign; read `referralCode` from the page URL (or the one remembered from an earlier
 * visit) and validate it; sign the visitor up with addParticipant; then show their share link, QR code,
 * share buttons and balances. A known visitor (the `email` attribute, or one who signed up on this
 * browser) goes straight to the share view. Campaign texts are rendered as text, never as HTML.
 */
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { unsafeSVG } from 'lit/directives/unsafe-svg.js';
import { ApiError, RefkitClient, type Campaign, type Participant } from '../api/client.js';
import { qrSvg } from './qr.js';
import { scriptOrigin } from './script-origin.js';
import { shareTargets } from './share-links.js';
import * as storage from './storage.js';
import { styles } from './styles.js';

export type WidgetState =
  | 'loading'
  | 'ready'
  | 'submitting'
  | 'signed-up'
  | 'paused'
  | 'ended'
  | 'not-found'
  | 'error'
  | 'offline';

/** Same rule as the service: one @, a dot in the domain, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
/** Waits before re-sending a sign-up that got no answer at all; then the visitor gets a Retry button. */
const NETWORK_RETRY_DELAYS_MS = [400, 1200];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@customElement('referral-widget')
export class ReferralWidget extends LitElement {
  static override styles = styles;

  @property({ attribute: 'campaign-id' }) campaignId = '';
  /** The service's address; by default the origin this script was loaded from. */
  @property({ attribute: 'api-base' }) apiBase = '';
  /** A visitor the page already knows: shown their share view without a form. */
  @property() email = '';
  @property({ type: Boolean, attribute: 'first-name' }) firstNameField = false;
  @property({ type: Boolean, attribute: 'last-name' }) lastNameField = false;
  @property({ attribute: 'submit-label' }) submitLabel = 'Get my referral link';
  @property({ attribute: 'email-label' }) emailLabel = 'Email address';
  @property({ attribute: 'invited-text' }) invitedText = 'You were invited';
  @property({ attribute: 'copy-label' }) copyLabel = 'Copy';

  @state() state: WidgetState = 'loading';
  @state() campaign: Campaign | undefined;
  @state() participant: Participant | undefined;
  /** The referral code this visitor arrived with, once validated. */
  @state() referralCode: string | undefined;
  @state() invalidCode = false;
  @state() returning = false;
  @state() fieldError: { field: string; message: string } | undefined;
  @state() status = '';
  @state() private qr = '';

  #client: RefkitClient | undefined;
  /** What Retry (or coming back online) does again. */
  #retry: (() => Promise<void>) | undefined;
  readonly #onOnline = () => {
    if (this.state === 'offline') void this.#retry?.();
  };

  get client(): RefkitClient {
    // fetch is looked up on each call, so a page (or a test) that wraps window.fetch later is honoured.
    this.#client ??= new RefkitClient({ baseUrl: this.apiBase || scriptOrigin, fetch: (input, init) => fetch(input, init) });
    return this.#client;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('online', this.#onOnline);
  }

  override disconnectedCallback(): void {
    window.removeEventListener('online', this.#onOnline);
    super.disconnectedCallback();
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('apiBase')) this.#client = undefined;
    if ((changed.has('campaignId') || changed.has('apiBase')) && this.campaignId) void this.#load();
  }

  protected override async updated(changed: PropertyValues<this>): Promise<void> {
    if (changed.has('participant') && this.participant?.shareLink) {
      this.qr = await qrSvg(this.participant.shareLink);
    }
  }

  // ---- flow ----

  async #load(): Promise<void> {
    this.#retry = () => this.#load();
    this.state = 'loading';
    this.status = 'Loading…';
    try {
      this.campaign = await this.client.getCampaign(this.campaignId);
    } catch (err) {
      return this.#fail(err);
    }
    if (this.campaign.status === 'Pause' || this.campaign.paused) return this.#settle('paused', 'This referral program is paused.');
    if (this.campaign.status === 'End' || this.campaign.ended) return this.#settle('ended', 'This referral program has ended.');
    await this.#captureCode();
    const known = this.email || storage.storedParticipant(this.campaignId);
    if (known) {
      try {
        // addParticipant is idempotent per email: for a known visitor it answers with their record.
        this.participant = await this.client.addParticipant({ id: this.campaignId, email: known });
        this.returning = true;
        return this.#settle('signed-up', 'Welcome back.');
      } catch {
        storage.forgetParticipant(this.campaignId);
      }
    }
    this.#settle('ready', '');
  }

  /** Takes the code from the share link (validated) or from an earlier visit (already validated). */
  async #captureCode(): Promise<void> {
    const params = new URLSearchParams(location.search);
    const fromUrl = params.get('referralCode')?.trim();
    const forCampaign = !params.get('id') || params.get('id') === this.campaignId;
    if (fromUrl && forCampaign) {
      let valid = false;
      try {
        valid = await this.client.validateCode(this.campaignId, fromUrl);
      } catch {
        valid = false;
      }
      this.#emit('referral-code', { code: fromUrl, valid });
      if (valid) {
        storage.rememberCode(this.campaignId, fromUrl);
        this.referralCode = fromUrl;
        this.invalidCode = false;
      } else {
        this.invalidCode = true;
        this.referralCode = storage.storedCode(this.campaignId);
      }
      return;
    }
    this.referralCode = storage.storedCode(this.campaignId);
  }

  async #submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const email = String(data.get('email') ?? '').trim();
    if (!EMAIL.test(email)) {
      this.fieldError = { field: 'email', message: 'Enter an email address like name@example.com.' };
      form.querySelector<HTMLInputElement>('input[name=email]')?.focus();
      return;
    }
    this.fieldError = undefined;
    const body = {
      id: this.campaignId,
      email,
      ...(data.get('firstName') ? { firstName: String(data.get('firstName')) } : {}),
      ...(data.get('lastName') ? { lastName: String(data.get('lastName')) } : {}),
    };
    this.#retry = () => this.#signUp(body);
    await this.#signUp(body);
  }

  async #signUp(body: { id: string; email: string; firstName?: string; lastName?: string }): Promise<void> {
    this.state = 'submitting';
    this.status = 'Signing you up…';
    const withCode = this.referralCode ? { ...body, referredByCode: this.referralCode } : body;
    try {
      this.participant = await this.#withNetworkRetries(() => this.client.addParticipant(withCode));
    } catch (err) {
      if (err instanceof ApiError && err.code === 'referrer_not_found' && this.referralCode) {
        // The code stopped being valid since it was checked: sign up without a referral.
        storage.forgetCode(this.campaignId);
        this.referralCode = undefined;
        this.invalidCode = true;
        return this.#signUp(body);
      }
      if (err instanceof ApiError && err.status === 400 && err.field) {
        this.fieldError = { field: err.field === 'referredByEmail' ? 'email' : err.field, message: err.message };
        this.#emit('referral-error', { code: err.code, message: err.message, status: err.status });
        return this.#settle('ready', '');
      }
      return this.#fail(err);
    }
    storage.rememberParticipant(this.campaignId, this.participant.email ?? body.email);
    storage.forgetCode(this.campaignId);
    this.returning = false;
    this.#emit('referral-signup', { participant: this.participant });
    this.#settle('signed-up', 'You are in! Your link is ready to share.');
  }

  async #withNetworkRetries<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        const delay = NETWORK_RETRY_DELAYS_MS[attempt];
        if (!(err instanceof ApiError && err.isNetworkError) || delay === undefined) throw err;
        await sleep(delay);
      }
    }
  }

  #fail(err: unknown): void {
    const e = err instanceof ApiError ? err : new ApiError(0, 'network_error', String(err));
    this.#emit('referral-error', { code: e.code, message: e.message, status: e.status });
    if (e.code === 'campaign_not_found') return this.#settle('not-found', 'This referral program could not be found.');
    if (e.code === 'campaign_paused') return this.#settle('paused', 'This referral program is paused.');
    if (e.code === 'campaign_ended') return this.#settle('ended', 'This referral program has ended.');
    if (!navigator.onLine) return this.#settle('offline', 'You seem to be offline. We will try again when you are back online.');
    // Online but no readable answer: the service is down, or refused this page's origin (CORS).
    if (e.isNetworkError) return this.#settle('error', 'The referral service could not be reached. Please try again.');
    const wait = e.code === 'rate_limited' && e.retryAfter ? ` Please wait ${e.retryAfter} s.` : '';
    this.#settle('error', `Something went wrong.${wait} Please try again.`);
  }

  #settle(state: WidgetState, status: string): void {
    this.state = state;
    this.status = status;
  }

  #emit(type: 'referral-signup' | 'referral-code' | 'referral-error', detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  async #copy(): Promise<void> {
    const link = this.participant?.shareLink;
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link);
      this.status = 'Link copied.';
    } catch {
      this.renderRoot.querySelector<HTMLInputElement>('[part~="link"]')?.select();
      this.status = 'Press Ctrl+C (or Cmd+C) to copy the selected link.';
    }
  }

  async #nativeShare(): Promise<void> {
    const link = this.participant?.shareLink;
    if (!link) return;
    try {
      await navigator.share({ url: link, title: this.campaign?.campaignName ?? '', text: this.campaign?.shareDescription ?? '' });
    } catch {
      // The visitor closed the share sheet: nothing to report.
    }
  }

  // ---- rendering ----

  protected override render() {
    return html`<section part="card" data-state=${this.state} aria-busy=${this.state === 'loading' || this.state === 'submitting'}>
      ${this.#body()}
      <div part="status" role="status" aria-live="polite">${this.status}</div>
      <slot name="footer"></slot>
    </section>`;
  }

  #body() {
    switch (this.state) {
      case 'loading':
        return html`<p part="notice">Loading…</p>`;
      case 'ready':
      case 'submitting':
        return this.#signupView();
      case 'signed-up':
        return this.#shareView();
      case 'paused':
      case 'ended':
      case 'not-found':
        return html`<h2 part="header"><slot name="header">${this.campaign?.campaignName ?? 'Referral program'}</slot></h2>`;
      case 'error':
      case 'offline':
        return html`<button part="button retry" type="button" @click=${() => this.#retry?.()}>Try again</button>`;
    }
  }

  #signupView() {
    const c = this.campaign;
    const emailError = this.fieldError?.field === 'email' ? this.fieldError.message : '';
    const otherError = this.fieldError && this.fieldError.field !== 'email' ? this.fieldError : undefined;
    return html`
      <h2 part="header"><slot name="header">${c?.rewardHeader || c?.campaignName}</slot></h2>
      ${c?.rewardDescription ? html`<p part="description">${c.rewardDescription}</p>` : nothing}
      ${this.referralCode && !this.invalidCode
        ? html`<p part="invited">${this.invitedText}${c?.refereeRewardValue ? ` — join and get ${c.refereeRewardValue} ${c.rewardType ?? ''}`.trimEnd() : ''}.</p>`
        : nothing}
      ${this.invalidCode
        ? html`<p part="notice invalid-code">That invitation link is not valid, but you can still join.</p>`
        : nothing}
      <form part="form" novalidate @submit=${this.#submit}>
        ${this.firstNameField ? html`<label>First name <input name="firstName" autocomplete="given-name" maxlength="100" /></label>` : nothing}
        ${this.lastNameField ? html`<label>Last name <input name="lastName" autocomplete="family-name" maxlength="100" /></label>` : nothing}
        <label part="email-label">
          ${this.emailLabel}
          <input
            part="input"
            name="email"
            type="email"
            autocomplete="email"
            required
            aria-invalid=${emailError ? 'true' : 'false'}
            aria-describedby="email-error"
            .value=${this.email}
          />
          <span id="email-error" part="field-error">${emailError}</span>
        </label>
        ${otherError ? html`<span part="field-error">${otherError.message}</span>` : nothing}
        <button part="button submit" type="submit" ?disabled=${this.state === 'submitting'}>
          ${this.state === 'submitting' ? 'Signing up…' : this.submitLabel}
        </button>
      </form>
    `;
  }

  #shareView() {
    const c = this.campaign;
    const p = this.participant!;
    const link = p.shareLink ?? '';
    return html`
      <h2 part="header"><slot name="share-header">${c?.shareHeader || 'Share your link'}</slot></h2>
      ${c?.shareDescription ? html`<p part="description">${c.shareDescription}</p>` : nothing}
      <div part="link-row">
        <label class="visually-hidden" for="share-link">Your referral link</label>
        <input id="share-link" part="input link" readonly .value=${link} @focus=${(e: FocusEvent) => (e.target as HTMLInputElement).select()} />
        <button part="button copy" type="button" @click=${this.#copy}>${this.copyLabel}</button>
      </div>
      ${'share' in navigator
        ? html`<button part="share-link native-share" type="button" @click=${this.#nativeShare}>Share…</button>`
        : nothing}
      <ul part="share-links" aria-label="Share on">
        ${shareTargets(link, c?.shareDescription ?? '').map(
          (t) => html`<li><a part="share-link" data-target=${t.id} href=${t.href} target="_blank" rel="noopener noreferrer">${t.label}</a></li>`,
        )}
      </ul>
      <div part="qr" role="img" aria-label="QR code of your referral link">${this.qr ? unsafeSVG(this.qr) : nothing}</div>
      <dl part="stats">
        <div><dt>Referrals</dt><dd data-stat="referrals">${p.totalReferrals ?? 0}</dd></div>
        <div><dt>Referral rewards</dt><dd data-stat="referral-balance">${p.referralRewardBalance ?? 0}</dd></div>
        <div><dt>Your reward</dt><dd data-stat="referee-balance">${p.refereeRewardBalance ?? 0}</dd></div>
      </dl>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'referral-widget': ReferralWidget;
  }
  interface HTMLElementEventMap {
    'referral-signup': CustomEvent<{ participant: Participant }>;
    'referral-code': CustomEvent<{ code: string; valid: boolean }>;
    'referral-error': CustomEvent<{ code: string; message: string; status: number }>;
  }
}
