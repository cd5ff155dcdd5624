/**
 * One set of PayPal REST app credentials of the account: the live ones (`paypal`, live campaigns) or the
 * sandbox's (`paypalSandbox`, test campaigns). The client id and webhook id are shown; the secret is
 * write-only (only whether it is set shows): left empty, the stored one stays, unless the client id is
 * another app's.
 */
import { css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { AccountSettings } from '../../../api/settings-schemas.js';
import { api } from '../../api.js';
import { confirmAction } from '../../confirm.js';
import { Page } from '../../page.js';

type Field = 'paypal' | 'paypalSandbox';
const NAMES: Record<Field, { title: string; mode: string; remove: string }> = {
  paypal: { title: 'PayPal', mode: 'Live campaigns are paid through this app of your PayPal business account (with Payouts enabled).', remove: 'live campaigns' },
  paypalSandbox: { title: 'PayPal sandbox', mode: 'Test campaigns are paid through this sandbox app: no real money moves.', remove: 'test campaigns' },
};

/**
 * @summary A PayPal credentials card of the Payout providers page.
 *
 * @property field - `paypal` (live) or `paypalSandbox` (test campaigns).
 * @property settings - The account's settings, as last read.
 *
 * @event account-settings-changed - Bubbles with the settings the service answered after a save or removal.
 */
@customElement('rk-paypal-credentials')
export class PayPalCredentials extends Page {
  static override styles = [
    ...Page.styles,
    css`
      /* Side by side on a wide screen: as tall as the other card of the row. */
      :host { height: 100%; }
      section.card { height: 100%; }
      .title { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; margin-bottom: 8px; }
      .title h2 { margin: 0; }
      .actions { margin-top: 4px; }
    `,
  ];
  @property({ reflect: true }) field: Field = 'paypal';
  @property({ attribute: false }) settings: AccountSettings | undefined;

  get #current() {
    return this.settings?.[this.field] ?? null;
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const webhookId = String(data.get('webhookId')).trim();
    // A secret left empty keeps the stored one (the service asks for it the first time and with a new client ID).
    const clientSecret = String(data.get('clientSecret')).trim();
    const value = { clientId: String(data.get('clientId')).trim(), ...(clientSecret && { clientSecret }), ...(webhookId && { webhookId }) };
    if (await this.#write(value)) {
      (form.elements.namedItem('clientSecret') as HTMLInputElement).value = '';
      this.notice = `${NAMES[this.field].title} credentials saved.`;
    }
  }

  async #remove() {
    const { title, remove } = NAMES[this.field];
    const ok = await confirmAction(this, `Remove the ${title} credentials?`, `Payouts of ${remove} by PayPal wait, with the reason, until credentials are set again.`, 'Remove credentials', true);
    if (ok && (await this.#write(null))) this.notice = `${title} credentials removed.`;
  }

  async #write(value: { clientId: string; clientSecret?: string; webhookId?: string } | null): Promise<boolean> {
    this.notice = '';
    const saved = await this.attempt(() => api().updateAccountSettings({ [this.field]: value }));
    if (!saved) return false;
    this.dispatchEvent(new CustomEvent('account-settings-changed', { detail: saved, bubbles: true, composed: true }));
    return true;
  }

  /** The service's refusal of one field of this card, said beside it. */
  #errorOf(name: string): string {
    return this.errorField === `${this.field}.${name}` ? this.error : '';
  }

  #input(name: 'clientId' | 'webhookId', label: string, value: string, hint: string, required: boolean) {
    const error = this.#errorOf(name);
    return html`<div class="field">
      <label for=${name}>${label}</label>
      <input id=${name} name=${name} autocomplete="off" spellcheck="false" ?required=${required} maxlength="200" .value=${value}
        aria-invalid=${error ? 'true' : 'false'} aria-describedby="${name}-hint ${error ? `${name}-error` : ''}" />
      <div class="hint" id="${name}-hint">${hint}</div>
      ${error ? html`<div class="field-error" id="${name}-error" role="alert">${error}</div>` : nothing}
    </div>`;
  }

  override render() {
    const current = this.#current;
    const { title, mode } = NAMES[this.field];
    const secretSet = current?.clientSecretConfigured ?? false;
    const secretError = this.#errorOf('clientSecret');
    const shownError = secretError || this.#errorOf('clientId') || this.#errorOf('webhookId');
    const h = `${this.field}-h`;
    return html`<section class="card" aria-labelledby=${h}>
      <div class="title">
        <h2 id=${h}>${title}</h2>
        ${this.field === 'paypalSandbox' ? html`<span class="badge test">Test campaigns</span>` : nothing}
        ${this.settings ? html`<span class="badge ${current ? 'ok' : 'warn'} state">${current ? 'configured' : 'not configured'}</span>` : nothing}
      </div>
      <p class="muted">${mode}</p>
      ${shownError ? nothing : this.messages()}
      <form @submit=${this.#save}>
        <fieldset ?disabled=${!this.mayChange}>
          ${this.#input('clientId', 'Client ID', current?.clientId ?? '', 'On the app’s page in PayPal’s developer dashboard (Apps & Credentials).', true)}
          <div class="field">
            <div class="label-badge">
              <label for="clientSecret">Client secret</label>
              ${this.settings ? html`<span class="badge ${secretSet ? 'ok' : 'warn'}">${secretSet ? 'set' : 'not set'}</span>` : nothing}
            </div>
            <input id="clientSecret" name="clientSecret" type="password" autocomplete="off" ?required=${!secretSet} maxlength="200"
              placeholder=${secretSet ? 'Leave empty to keep it' : ''}
              aria-invalid=${secretError ? 'true' : 'false'} aria-describedby="clientSecret-hint ${secretError ? 'clientSecret-error' : ''}" />
            <div class="hint" id="clientSecret-hint">Never shown again here, only whether it is set. Left empty, the stored one stays; a new client ID needs its own.</div>
            ${secretError ? html`<div class="field-error" id="clientSecret-error" role="alert">${secretError}</div>` : nothing}
          </div>
          ${this.#input('webhookId', 'Webhook ID', current?.webhookId ?? '', 'The ID PayPal gives the webhook you add with the receiver URL above. Without it, payouts are followed by asking PayPal, hourly.', false)}
        </fieldset>
        ${this.mayChange
          ? html`<div class="actions">
              <button class="primary" type="submit">Save ${title} credentials</button>
              ${current ? html`<button type="button" class="danger-ghost" aria-label="Remove ${title} credentials" @click=${this.#remove}>Remove</button>` : nothing}
            </div>`
          : nothing}
      </form>
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-paypal-credentials': PayPalCredentials;
  }
}
