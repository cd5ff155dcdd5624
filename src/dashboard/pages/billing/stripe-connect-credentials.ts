/**
 * One set of Stripe Connect keys of the account: the live ones (`stripe`, live campaigns) or the test
 * ones (`stripeTest`, test campaigns): the secret key and the Connect endpoint's signing secret, both
 * write-only (only whether each is set shows): either left empty keeps the stored one.
 */
import { css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { AccountSettings } from '../../../api/settings-schemas.js';
import { api } from '../../api.js';
import { confirmAction } from '../../confirm.js';
import { Page } from '../../page.js';

type Field = 'stripe' | 'stripeTest';
const NAMES: Record<Field, { title: string; mode: string; key: string; campaigns: string }> = {
  stripe: { title: 'Stripe Connect', mode: 'Live campaigns pay participants’ Express accounts with transfers from your Stripe balance.', key: 'rk_live_... or sk_live_...', campaigns: 'live campaigns' },
  stripeTest: { title: 'Stripe Connect test', mode: 'Test campaigns pay with your Stripe test keys: no real money moves.', key: 'rk_test_... or sk_test_...', campaigns: 'test campaigns' },
};

/**
 * @summary A Stripe Connect keys card of the Payout providers page.
 *
 * @property field - `stripe` (live) or `stripeTest` (test campaigns).
 * @property settings - The account's settings, as last read.
 *
 * @event account-settings-changed - Bubbles with the settings the service answered after a save or removal.
 */
@customElement('rk-stripe-connect-credentials')
export class StripeConnectCredentials extends Page {
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
  @property({ reflect: true }) field: Field = 'stripe';
  @property({ attribute: false }) settings: AccountSettings | undefined;

  async #save(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    // Either secret left empty keeps the stored one.
    const webhook = String(data.get('connectWebhookSecret')).trim();
    const secretKey = String(data.get('secretKey')).trim();
    if (await this.#write({ ...(secretKey && { secretKey }), ...(webhook && { connectWebhookSecret: webhook }) })) {
      form.reset();
      this.notice = `${NAMES[this.field].title} keys saved.`;
    }
  }

  async #remove() {
    const { title, campaigns } = NAMES[this.field];
    const ok = await confirmAction(this, `Remove the ${title} keys?`, `Payouts of ${campaigns} by Stripe Connect wait, with the reason, until keys are set again.`, 'Remove keys', true);
    if (ok && (await this.#write(null))) this.notice = `${title} keys removed.`;
  }

  async #write(value: { secretKey?: string; connectWebhookSecret?: string } | null): Promise<boolean> {
    this.notice = '';
    const saved = await this.attempt(() => api().updateAccountSettings({ [this.field]: value }));
    if (!saved) return false;
    this.dispatchEvent(new CustomEvent('account-settings-changed', { detail: saved, bubbles: true, composed: true }));
    return true;
  }

  #secret(name: 'secretKey' | 'connectWebhookSecret', label: string, set: boolean, placeholder: string, hint: string, required: boolean) {
    const error = this.errorField === `${this.field}.${name}` ? this.error : '';
    return html`<div class="field">
      <div class="label-badge">
        <label for=${name}>${label}</label>
        ${this.settings ? html`<span class="badge ${set ? 'ok' : 'warn'}">${set ? 'set' : 'not set'}</span>` : nothing}
      </div>
      <input id=${name} name=${name} type="password" autocomplete="off" ?required=${required} maxlength="260" placeholder=${placeholder}
        aria-invalid=${error ? 'true' : 'false'} aria-describedby="${name}-hint ${error ? `${name}-error` : ''}" />
      <div class="hint" id="${name}-hint">${hint}</div>
      ${error ? html`<div class="field-error" id="${name}-error" role="alert">${error}</div>` : nothing}
    </div>`;
  }

  override render() {
    const current = this.settings?.[this.field] ?? null;
    const { title, mode, key } = NAMES[this.field];
    const fieldError = this.errorField === `${this.field}.secretKey` || this.errorField === `${this.field}.connectWebhookSecret`;
    const h = `${this.field}-h`;
    return html`<section class="card" aria-labelledby=${h}>
      <div class="title">
        <h2 id=${h}>${title}</h2>
        ${this.field === 'stripeTest' ? html`<span class="badge test">Test campaigns</span>` : nothing}
        ${this.settings ? html`<span class="badge ${current ? 'ok' : 'warn'} state">${current ? 'configured' : 'not configured'}</span>` : nothing}
      </div>
      <p class="muted">${mode}</p>
      ${fieldError ? nothing : this.messages()}
      <form @submit=${this.#save}>
        <fieldset ?disabled=${!this.mayChange}>
          ${this.#secret(
            'secretKey',
            'Secret key',
            current?.secretKeyConfigured ?? false,
            current?.secretKeyConfigured ? 'Leave empty to keep it' : key,
            'A restricted key with Connect write access, or the secret key. Never shown again here, only whether it is set.',
            !current?.secretKeyConfigured,
          )}
          ${this.#secret(
            'connectWebhookSecret',
            'Connect endpoint signing secret',
            current?.connectWebhookSecretConfigured ?? false,
            current?.connectWebhookSecretConfigured ? 'Leave empty to keep it' : 'whsec_...',
            'Of the endpoint you add with the receiver URL above. Left empty, the stored one stays.',
            false,
          )}
        </fieldset>
        ${this.mayChange
          ? html`<div class="actions">
              <button class="primary" type="submit">Save ${title} keys</button>
              ${current ? html`<button type="button" class="danger-ghost" aria-label="Remove ${title} keys" @click=${this.#remove}>Remove</button>` : nothing}
            </div>`
          : nothing}
      </form>
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-stripe-connect-credentials': StripeConnectCredentials;
  }
}
