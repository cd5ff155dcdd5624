/**
 * <refkit-portal>: the referrer's portal page. Signed out, it asks for the participant's email and the
 * service emails a sign-in link; the link opens this page with `?token=`, which it exchanges for the
 * session (and drops from the address at once). Signed in, it shows the participant's link (the widget's
 * share view, with their promotion code for friends at checkout), a form to choose their referral code,
 * their balances, reward history and payouts, and where their money goes. Everything is read
 * through /api/v1/portal (./portal-client.ts); texts in the page's language (./i18n.ts).
 */
import { LitElement, css, html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import type { PortalMe } from '../api/portal-schemas.js';
import { base } from '../dashboard/styles.js';
import { describeFailure } from '../widget/failures.js';
import { formatReward, rewardFormat } from '../widget/amounts.js';
import { directionOf, getLocale, setLocale, supportedLocale } from './i18n.js';
import { ApiError, PortalClient } from './portal-client.js';
import { balances, ledgerTable, payoutsTable } from './ledger-view.js';
import { t } from './texts.js';
import './share-card.js';
import './payout-settings.js';
import './code-form.js';

type View = 'loading' | 'sign-in' | 'sent' | 'ready';

/** The campaign the page is about: /portal/{campaignId}. */
const campaignIdOf = (path: string) => decodeURIComponent(path.split('/')[2] ?? '');

/**
 * Whether this browser signed in to the campaign's portal (kept beside the httpOnly cookie, which the page
 * cannot read): a visit signed out then asks the service nothing it would refuse.
 */
const signedInKey = (id: string) => `refkit-portal:${id}`;
function remember(id: string, on: boolean): void {
  try {
    if (on) localStorage.setItem(signedInKey(id), '1');
    else localStorage.removeItem(signedInKey(id));
  } catch {
    // No storage (a private window's settings): each visit asks for a link.
  }
}
function remembered(id: string): boolean {
  try {
    return localStorage.getItem(signedInKey(id)) === '1';
  } catch {
    return false;
  }
}

@customElement('refkit-portal')
export class RefkitPortal extends LitElement {
  static override styles = [
    base,
    css`
      :host { min-height: 100vh; background: var(--bg); }
      .top { display: flex; align-items: center; justify-content: space-between; gap: 12px; flex-wrap: wrap; padding: 12px 24px; background: var(--surface); border-bottom: 1px solid var(--border); }
      .brand { font-weight: 650; font-size: 16px; }
      .who { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; color: var(--muted); overflow-wrap: anywhere; }
      main { max-width: 1200px; margin: 0 auto; padding: 24px; }
      .layout { display: grid; gap: 24px; grid-template-columns: minmax(0, 26rem) minmax(0, 1fr); align-items: start; }
      .side { display: grid; gap: 16px; }
      .money > section + section { margin-top: 8px; }
      .head2 { margin-top: 24px; }
      .money .head2:first-child { margin-top: 0; }
      portal-payout-settings { margin-top: 24px; }
      .signin { max-width: 440px; margin: 48px auto; }
      .signin h1 { margin-bottom: 4px; }
      .signin form { margin-top: 16px; }
      .signin button.primary { width: 100%; }
      @media (max-width: 900px) {
        .layout { grid-template-columns: minmax(0, 1fr); }
      }
      @media (max-width: 640px) {
        main { padding: 16px; }
        .top { padding: 12px 16px; }
        .signin { margin: 16px auto; }
      }
    `,
  ];

  readonly #client = new PortalClient(campaignIdOf(location.pathname));
  @state() private view: View = 'loading';
  @state() private me: PortalMe | undefined;
  @state() private email = '';
  @state() private error = '';
  @state() private busy = false;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#start();
  }

  async #start(): Promise<void> {
    const params = new URLSearchParams(location.search);
    const token = params.get('token');
    // The token leaves the address before anything else: it must not stay in the history or be shared.
    if (token) history.replaceState(null, '', location.pathname + (params.get('lang') ? `?lang=${encodeURIComponent(params.get('lang')!)}` : ''));
    const language = supportedLocale(params.get('lang') ?? navigator.languages?.[0] ?? navigator.language);
    await setLocale(language).catch(() => undefined);
    document.documentElement.lang = getLocale();
    document.documentElement.dir = directionOf(getLocale());
    document.title = t.title();
    if (token) {
      try {
        await this.#client.verify(token);
        remember(this.#client.campaignId, true);
      } catch (err) {
        this.error =
          err instanceof ApiError && err.code === 'link_not_found'
            ? t.linkSpent()
            : describeFailure(err, navigator.onLine).message;
        this.view = 'sign-in';
        return;
      }
    }
    if (remembered(this.#client.campaignId)) await this.#load();
    else this.view = 'sign-in';
  }

  /** Reads the portal; a session that is gone sends the participant to sign in again. */
  async #load(): Promise<void> {
    try {
      this.me = await this.#client.me();
      this.error = '';
      this.view = 'ready';
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        this.#signedOut();
        return;
      }
      this.error = describeFailure(err, navigator.onLine).message;
      if (!this.me) this.view = 'sign-in';
    }
  }

  #signedOut(): void {
    remember(this.#client.campaignId, false);
    this.me = undefined;
    this.view = 'sign-in';
  }

  async #askForLink(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    this.email = String(new FormData(e.currentTarget as HTMLFormElement).get('email') ?? '').trim();
    this.busy = true;
    this.error = '';
    try {
      await this.#client.signIn(this.email);
      this.view = 'sent';
    } catch (err) {
      this.error = describeFailure(err, navigator.onLine).message;
    } finally {
      this.busy = false;
    }
  }

  async #signOut(): Promise<void> {
    try {
      await this.#client.signOut();
    } catch {
      // Signed out here whatever the service said: the session is forgotten, and the cookie ends with it.
    }
    this.#signedOut();
  }

  #amount = (value: number) => (this.me ? formatReward(value, rewardFormat(this.me.settings, this.me.campaign), getLocale()) : String(value));
  #date = (iso: string) => new Intl.DateTimeFormat(getLocale(), { dateStyle: 'medium' }).format(new Date(iso));

  #alert() {
    return this.error ? html`<div class="alert" role="alert">${this.error}</div>` : nothing;
  }

  #signIn() {
    return html`<main class="signin">
      <div class="card">
        ${this.view === 'sent'
          ? html`<h1>${t.checkInbox()}</h1>
              <p class="muted" role="status">${t.linkOnItsWay(this.email)}</p>
              <button type="button" @click=${() => (this.view = 'sign-in')}>${t.useAnotherEmail()}</button>`
          : html`<h1>${t.title()}</h1>
              <p class="muted">${t.signInIntro()}</p>
              ${this.#alert()}
              <form @submit=${this.#askForLink}>
                <div class="field">
                  <label for="email">${t.email()}</label>
                  <input id="email" name="email" type="email" autocomplete="email" required .value=${this.email} />
                </div>
                <button class="primary" type="submit" ?disabled=${this.busy}>${t.emailMeALink()}</button>
              </form>`}
      </div>
    </main>`;
  }

  #portal(me: PortalMe) {
    return html`<header class="top">
        <div class="brand">${me.campaign.campaignName}</div>
        <div class="who">
          <span>${t.signedInAs(me.participant.email ?? '')}</span>
          <button type="button" class="small" @click=${() => void this.#signOut()}>${t.signOut()}</button>
        </div>
      </header>
      <main>
        <div class="page-head"><h1>${t.title()}</h1></div>
        ${this.#alert()}
        <div class="layout">
          <div class="side">
            <portal-share .me=${me}></portal-share>
            <portal-code-form .me=${me} .client=${this.#client} @portal-changed=${() => void this.#load()} @portal-signed-out=${() => this.#signedOut()}></portal-code-form>
          </div>
          <div class="money">
            ${balances(me, this.#amount)} ${ledgerTable(me, this.#amount, this.#date)} ${payoutsTable(me, getLocale(), this.#date)}
            <portal-payout-settings .me=${me} .client=${this.#client} .amount=${this.#amount} @portal-changed=${() => void this.#load()} @portal-signed-out=${() => this.#signedOut()}></portal-payout-settings>
          </div>
        </div>
      </main>`;
  }

  protected override render() {
    if (this.view === 'loading') return html`<main class="signin" aria-busy="true"></main>`;
    if (this.view === 'ready' && this.me) return this.#portal(this.me);
    return this.#signIn();
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'refkit-portal': RefkitPortal;
  }
}
