/**
 * Settings → Payout providers: how cash payouts are paid, for every campaign of the account. The
 * receiver URLs to paste into PayPal and Stripe (one each, for live and test alike: the service tells
 * them apart by the credentials that verify an event), PayPal's live and sandbox credentials, Stripe
 * Connect's live and test keys, and the tax settings.
 */
import { css, html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import type { AccountSettings } from '../../../api/settings-schemas.js';
import { api } from '../../api.js';
import { Page } from '../../page.js';
import './paypal-credentials.js';
import './stripe-connect-credentials.js';
import './tax-settings.js';

const RECEIVERS = [
  {
    id: 'paypal-url',
    label: 'PayPal webhook URL',
    path: 'paypal',
    hint: 'In PayPal’s developer dashboard, on the live app and on the sandbox app: Webhooks, Add webhook, with the Payouts events (PAYMENT.PAYOUTS-ITEM.* and PAYMENT.PAYOUTSBATCH.*). Give its Webhook ID below.',
  },
  {
    id: 'stripe-url',
    label: 'Stripe Connect endpoint URL',
    path: 'stripe-connect',
    hint: 'In Stripe, in live and in test mode: Developers, Webhooks, Add destination, events from Connected accounts, account.updated. Give its signing secret below.',
  },
] as const;

@customElement('rk-payout-providers')
export class PayoutProviders extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .pairs { display: grid; gap: 16px; grid-template-columns: repeat(auto-fit, minmax(min(100%, 380px), 1fr)); margin-top: 16px; }
      rk-paypal-credentials, rk-stripe-connect-credentials, rk-tax-settings { display: block; }
      rk-tax-settings { margin-top: 16px; }
      .url { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
      .url code { flex: 1 1 28ch; min-width: 0; background: #f9fafb; border: 1px solid var(--border); border-radius: 6px; padding: 6px 10px; overflow-wrap: anywhere; }
    `,
  ];
  @state() private settings: AccountSettings | undefined;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  async #load() {
    this.settings = await this.attempt(() => api().getAccountSettings());
  }

  #url(path: string, accountId: number) {
    return `${location.origin}/api/v1/integrations/${path}/${accountId}`;
  }

  async #copy(label: string, url: string) {
    await navigator.clipboard.writeText(url);
    this.notice = `${label} copied to the clipboard.`;
  }

  #receivers(s: AccountSettings) {
    return html`<section class="card" aria-labelledby="receivers-h">
      <h2 id="receivers-h">Receiver URLs</h2>
      <p class="muted">PayPal and Stripe tell Refkit here when a payout is paid, fails or is returned, and when a participant’s Stripe account can be paid.</p>
      ${RECEIVERS.map((r) => {
        const url = this.#url(r.path, s.id);
        return html`<div class="field">
          <label id="${r.id}-l">${r.label}</label>
          <div class="url">
            <code aria-labelledby="${r.id}-l">${url}</code>
            <button class="small" @click=${() => this.#copy(r.label, url)}>Copy ${r.label}</button>
          </div>
          <div class="hint">${r.hint}</div>
        </div>`;
      })}
    </section>`;
  }

  override render() {
    const s = this.settings;
    return html`<div class="page-head">
        <div>
          <h1>Payout providers</h1>
          <p>How cash payouts are paid, for every campaign of this account: live campaigns through the live credentials, test campaigns through the sandbox and test ones.</p>
        </div>
      </div>
      ${this.messages()}
      ${s
        ? html`${this.#receivers(s)}
            <div class="pairs" @account-settings-changed=${(e: CustomEvent<AccountSettings>) => (this.settings = e.detail)}>
              <rk-paypal-credentials field="paypal" .settings=${s}></rk-paypal-credentials>
              <rk-paypal-credentials field="paypalSandbox" .settings=${s}></rk-paypal-credentials>
              <rk-stripe-connect-credentials field="stripe" .settings=${s}></rk-stripe-connect-credentials>
              <rk-stripe-connect-credentials field="stripeTest" .settings=${s}></rk-stripe-connect-credentials>
            </div>
            <rk-tax-settings .settings=${s} @account-settings-changed=${(e: CustomEvent<AccountSettings>) => (this.settings = e.detail)}></rk-tax-settings>`
        : nothing}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-payout-providers': PayoutProviders;
  }
}
