/**
 * Sales from beyond Stripe: a picker of the providers whose webhooks the service receives (Paddle, Lemon
 * Squeezy, Shopify, Chargebee, Segment) and, for the one chosen, its endpoint URL to copy, the events to
 * select in its console, its secret (write-only on the service: set, replaced or removed here, never shown)
 * and the events it sent (./payment-events.ts).
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { PAYMENT_PROVIDERS, PROVIDER_SECRET_FIELDS, type PaymentProvider } from '../../../api/payment-source-schemas.js';
import type { CampaignSettings } from '../../../api/client.js';
import { api } from '../../api.js';
import { confirmAction } from '../../confirm.js';
import { Page } from '../../page.js';
import './payment-events.js';
import type { PaymentEvents } from './payment-events.js';

interface ProviderSpec {
  name: string;
  /** What to select in the provider's console (src/server/billing/routes/payment-sources.ts, SOURCES). */
  events: string[];
  /** Where the endpoint is added and which events to pick, in the provider's own words. */
  where: string;
  /** The secret's label (Chargebee has a username and a password instead: `basicAuth`). */
  secret: string;
  secretHint: string;
  placeholder: string;
  basicAuth?: true;
  /** How a sale names its participant to the service. */
  naming: ReturnType<typeof html>;
}

const SPECS: Record<PaymentProvider, ProviderSpec> = {
  paddle: {
    name: 'Paddle',
    events: ['transaction.completed', 'adjustment.created', 'adjustment.updated'],
    where: 'In Paddle: Developer tools, Notifications, New destination (a webhook to this URL). Select these events:',
    secret: 'Paddle secret key',
    secretHint: 'The destination’s secret key (pdl_ntfset_…), shown on the destination in Paddle.',
    placeholder: 'pdl_ntfset_...',
    naming: html`The participant’s own referral code as <code>custom_data.refkit_code</code> of the checkout. Paddle sends no email: a transaction without a code
      is matched by its customer once an earlier one named them, else listed below to match by hand.`,
  },
  lemonsqueezy: {
    name: 'Lemon Squeezy',
    events: ['order_created', 'subscription_payment_success', 'order_refunded'],
    where: 'In Lemon Squeezy: Settings, Webhooks, add a webhook with this callback URL. Select these events:',
    secret: 'Lemon Squeezy secret',
    secretHint: 'The webhook’s signing secret: the one you type in Lemon Squeezy when adding it.',
    placeholder: 'The signing secret you chose',
    naming: html`The participant’s own referral code as <code>checkout[custom][refkit_code]</code> (it arrives as <code>meta.custom_data.refkit_code</code>),
      else the customer’s email.`,
  },
  shopify: {
    name: 'Shopify',
    events: ['orders/paid', 'refunds/create'],
    where: 'In Shopify: your app’s webhook subscriptions (or Settings, Notifications, Webhooks), format JSON, with this URL. Select these events:',
    secret: 'Shopify secret',
    secretHint: 'Your app’s client secret, or the webhook signing key Settings, Notifications shows for webhooks made there.',
    placeholder: 'The client secret or signing key',
    naming: html`The participant’s own referral code as the order’s note attribute <code>refkit_code</code>, else the order’s email. A participant’s code
      used as the discount code makes the buyer their referee.`,
  },
  chargebee: {
    name: 'Chargebee',
    events: ['payment_succeeded', 'payment_refunded'],
    where: 'In Chargebee: Settings, Configure Chargebee, Webhooks, Add webhook (API version v2), with this URL and basic authentication. Select these events:',
    secret: 'Chargebee',
    secretHint: 'Chargebee signs nothing: give its webhook a username and password (Protect webhook URL with basic authentication), the same here.',
    placeholder: '',
    basicAuth: true,
    naming: html`The participant’s own referral code as <code>meta_data.refkit_code</code> of the customer or the subscription (or the customer field
      <code>cf_refkit_code</code>), else the customer’s email.`,
  },
  segment: {
    name: 'Segment',
    events: ['Order Completed', 'Order Refunded'],
    where: 'In Segment: add a Webhooks destination to your source, with this URL. The track calls it uses (V2 Ecommerce spec):',
    secret: 'Segment shared secret',
    secretHint: 'The shared secret you set on the Webhooks destination: Segment signs every call with it.',
    placeholder: 'The shared secret',
    naming: html`The participant’s own referral code as <code>properties.refkit_code</code> of the track call, else the email in its traits. A participant’s
      code as <code>properties.coupon</code> makes the buyer their referee.`,
  },
};

/**
 * @summary The "Sales from other providers" card of a campaign's Billing page.
 *
 * @property campaignId - The campaign.
 * @property campaign - Its settings: `paymentSourcesConfigured` names the providers whose secret is set.
 *
 * @event campaigns-changed - Bubbles after a secret is set or removed, so the shell reads the settings again.
 */
@customElement('rk-payment-sources')
export class PaymentSources extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .tabs { flex-wrap: wrap; margin: 4px 0 16px; }
      .tabs button { display: inline-flex; align-items: center; gap: 6px; }
      .tabs .dot { width: 8px; height: 8px; border-radius: 50%; background: var(--ok); }
      .endpoint { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
      .endpoint code { flex: 1 1 28ch; min-width: 0; background: #f9fafb; border: 1px solid var(--border); border-radius: 6px; padding: 6px 10px; overflow-wrap: anywhere; }
      ul.events { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 0 0 16px; padding: 0; list-style: none; }
      form.secret { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 12px; align-items: end; margin-top: 6px; }
      form.secret.pair { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr) auto; }
      form.secret .field { margin: 0; }
      form.secret fieldset { display: contents; }
      form .actions { flex-wrap: nowrap; }
      @media (max-width: 640px) { form.secret, form.secret.pair { grid-template-columns: minmax(0, 1fr); } form .actions { flex-wrap: wrap; } }
      rk-payment-events { display: block; }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  /** The provider shown; until the owner picks one, the first whose secret is set (else Paddle). */
  @state() private picked: PaymentProvider | undefined;
  /** What the last save here made of the providers set, until the shell's settings (read again) say it themselves. */
  @state() private configured: string[] | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      this.picked = undefined;
    }
    if (changed.has('campaign')) this.configured = undefined;
  }

  /** Reads the shown provider's events again (exchange rates saved may have applied held ones). */
  async refreshEvents(): Promise<void> {
    await this.renderRoot.querySelector<PaymentEvents>('rk-payment-events')?.refresh();
  }

  get #configured(): string[] {
    return this.configured ?? this.campaign?.paymentSourcesConfigured ?? [];
  }

  get #provider(): PaymentProvider {
    return this.picked ?? PAYMENT_PROVIDERS.find((p) => this.#configured.includes(p)) ?? 'paddle';
  }

  #endpoint(provider: PaymentProvider) {
    return `${location.origin}/api/v1/integrations/${provider}/${encodeURIComponent(this.campaignId)}`;
  }

  #pick(provider: PaymentProvider) {
    if (provider === this.#provider) return;
    this.picked = provider;
    this.forgetMessages();
    // What was typed for one provider is never sent as another's.
    this.renderRoot.querySelector<HTMLFormElement>('form.secret')?.reset();
  }

  async #copy() {
    const provider = this.#provider;
    await navigator.clipboard.writeText(this.#endpoint(provider));
    this.notice = `${SPECS[provider].name} endpoint URL copied to the clipboard.`;
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const provider = this.#provider;
    const secret = SPECS[provider].basicAuth ? `${String(data.get('user')).trim()}:${String(data.get('password'))}` : String(data.get('secret')).trim();
    if (await this.#write(provider, secret)) {
      form.reset();
      this.notice = `${SPECS[provider].name} secret saved. Its events are verified with it from now on.`;
    }
  }

  async #remove() {
    const provider = this.#provider;
    const { name } = SPECS[provider];
    const ok = await confirmAction(this, `Remove the ${name} secret?`, `Every ${name} event is refused until a secret is set again; ${name} retries them for a while.`, 'Remove secret', true);
    if (ok && (await this.#write(provider, ''))) this.notice = `${name} secret removed.`;
  }

  /** Sets (or with '' removes) a provider's secret; true once the service took it. */
  async #write(provider: PaymentProvider, secret: string): Promise<boolean> {
    this.notice = '';
    const saved = await this.attempt(() => api().updateCampaign({ id: this.campaignId, [PROVIDER_SECRET_FIELDS[provider]]: secret }));
    if (!saved) return false;
    this.configured = saved.paymentSourcesConfigured;
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
    return true;
  }

  #picker(current: PaymentProvider) {
    return html`<div class="tabs" role="group" aria-label="Provider">
      ${PAYMENT_PROVIDERS.map(
        (p) => html`<button type="button" aria-pressed=${p === current ? 'true' : 'false'} @click=${() => this.#pick(p)}>
          ${SPECS[p].name}${this.#configured.includes(p) ? html`<span class="dot" title="Secret set"></span><span class="sr-only">(secret set)</span>` : nothing}
        </button>`,
      )}
    </div>`;
  }

  #inputs(spec: ProviderSpec, fieldError: string) {
    const invalid = fieldError ? 'true' : 'false';
    const described = `src-secret-hint ${fieldError ? 'src-secret-error' : ''}`;
    if (spec.basicAuth) {
      return html`<div class="field">
          <label for="src-user">${spec.name} username</label>
          <input id="src-user" name="user" autocomplete="off" required pattern="[^:]+" title="Any characters but a colon" aria-invalid=${invalid} aria-describedby=${described} />
        </div>
        <div class="field">
          <label for="src-password">${spec.name} password</label>
          <input id="src-password" name="password" type="password" autocomplete="new-password" required aria-invalid=${invalid} aria-describedby=${described} />
        </div>`;
    }
    return html`<div class="field">
      <label for="src-secret">${spec.secret}</label>
      <input id="src-secret" name="secret" type="password" autocomplete="off" required placeholder=${spec.placeholder} aria-invalid=${invalid} aria-describedby=${described} />
    </div>`;
  }

  override render() {
    const provider = this.#provider;
    const spec = SPECS[provider];
    const configured = this.campaign === undefined && this.configured === undefined ? undefined : this.#configured.includes(provider);
    const fieldError = this.errorField === PROVIDER_SECRET_FIELDS[provider] ? this.error : '';
    return html`<section class="card" aria-labelledby="sources-h">
      <h2 id="sources-h">Sales from other providers</h2>
      <p class="muted">Payments and refunds in Paddle, Lemon Squeezy, Shopify, Chargebee or Segment qualify referrals, earn commissions and reverse rewards, as Stripe’s do.</p>
      ${this.#picker(provider)}
      ${fieldError ? nothing : this.messages()}
      <div class="field">
        <label id="src-endpoint-l">${spec.name} endpoint URL</label>
        <div class="endpoint">
          <code aria-labelledby="src-endpoint-l">${this.#endpoint(provider)}</code>
          <button class="small" @click=${this.#copy}>Copy ${spec.name} endpoint URL</button>
        </div>
        <div class="hint">${spec.where}</div>
      </div>
      <ul class="events" aria-label="Events to select in ${spec.name}">
        ${spec.events.map((t) => html`<li><code>${t}</code></li>`)}
      </ul>
      <div class="label-badge">
        <strong>${spec.basicAuth ? 'Username and password' : 'Secret'}</strong>
        ${configured === undefined ? nothing : html`<span class="badge ${configured ? 'ok' : 'warn'}" id="src-secret-state">${configured ? 'set' : 'not set'}</span>`}
      </div>
      <form class="secret ${spec.basicAuth ? 'pair' : ''}" @submit=${this.#save}>
        <fieldset ?disabled=${!this.mayChange}>${this.#inputs(spec, fieldError)}</fieldset>
        ${this.mayChange
          ? html`<div class="actions">
              <button class="primary" type="submit">${configured ? `Replace ${spec.name} secret` : `Save ${spec.name} secret`}</button>
              ${configured ? html`<button type="button" class="danger-ghost" @click=${this.#remove}>Remove ${spec.name} secret</button>` : nothing}
            </div>`
          : nothing}
      </form>
      ${fieldError ? html`<div class="field-error" id="src-secret-error" role="alert">${fieldError}</div>` : nothing}
      <div class="hint muted" id="src-secret-hint">${spec.secretHint} It is never shown again here, only whether it is set.</div>
      <h3 style="margin-top:16px">Naming the participant</h3>
      <p>${spec.naming}</p>
      <rk-payment-events .campaignId=${this.campaignId} .campaign=${this.campaign} .provider=${provider} .providerName=${spec.name}></rk-payment-events>
    </section>`;
  }
}
