/**
 * Connecting a campaign to Stripe: the endpoint URL to add in Stripe, the events to select there, the
 * endpoint's signing secret (write-only on the service), and how a checkout names the participant.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { REFKIT_CODE_METADATA, STRIPE_EVENT_TYPES } from '../../../api/billing-schemas.js';
import type { CampaignSettings } from '../../../api/client.js';
import { api } from '../../api.js';
import { confirmAction } from '../../confirm.js';
import { Page } from '../../page.js';

/** The events the service acts on (src/server/billing/domain/stripe-events.ts); Stripe sends only those selected. */
const SECRET_FIELD = 'stripeWebhookSecret';

/**
 * @summary The Stripe card of a campaign's Billing page.
 *
 * @property campaignId - The campaign.
 * @property campaign - The campaign's settings: `stripeWebhookConfigured` says whether a secret is set.
 *
 * @event campaigns-changed - Bubbles after the secret is set or removed, so the shell reads the settings again.
 */
@customElement('rk-stripe-setup')
export class StripeSetup extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .endpoint { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
      .endpoint code { flex: 1 1 28ch; min-width: 0; background: #f9fafb; border: 1px solid var(--border); border-radius: 6px; padding: 6px 10px; overflow-wrap: anywhere; }
      ul.events { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 0 0 16px; padding: 0; list-style: none; }
      form.add { margin-top: 6px; }
      form .actions { flex-wrap: nowrap; }
      @media (max-width: 640px) { form .actions { flex-wrap: wrap; } }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  /** What the last save here made of the secret, until the shell's settings (read again) say it themselves. */
  @state() private configured: boolean | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) this.forgetMessages();
    if (changed.has('campaign')) this.configured = undefined;
  }

  get #endpoint() {
    return `${location.origin}/api/v1/integrations/stripe/${encodeURIComponent(this.campaignId)}`;
  }

  async #copy() {
    await navigator.clipboard.writeText(this.#endpoint);
    this.notice = 'Endpoint URL copied to the clipboard.';
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const secret = String(new FormData(form).get('secret')).trim();
    if (await this.#write(secret)) {
      form.reset();
      this.notice = 'Signing secret saved. Stripe’s events are verified with it from now on.';
    }
  }

  async #remove() {
    const ok = await confirmAction(this, 'Remove the signing secret?', 'Every Stripe event is refused until a secret is set again; Stripe retries them for up to three days.', 'Remove secret', true);
    if (ok && (await this.#write(''))) this.notice = 'Signing secret removed.';
  }

  /** Sets (or with '' removes) the secret; true once the service took it. */
  async #write(secret: string): Promise<boolean> {
    this.notice = '';
    const saved = await this.attempt(() => api().updateCampaign({ id: this.campaignId, [SECRET_FIELD]: secret }));
    if (!saved) return false;
    this.configured = secret !== '';
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
    return true;
  }

  override render() {
    const configured = this.configured ?? this.campaign?.stripeWebhookConfigured;
    const fieldError = this.errorField === SECRET_FIELD ? this.error : '';
    return html`<section class="card" aria-labelledby="stripe-h">
      <h2 id="stripe-h">Stripe</h2>
      <p class="muted">Payments, refunds and disputes in your Stripe account qualify referrals, earn commissions and reverse rewards, with no code on your backend.</p>
      ${fieldError ? nothing : this.messages()}
      <div class="field">
        <label id="endpoint-l">Endpoint URL</label>
        <div class="endpoint">
          <code aria-labelledby="endpoint-l">${this.#endpoint}</code>
          <button class="small" @click=${this.#copy}>Copy endpoint URL</button>
        </div>
        <div class="hint">In Stripe: Developers, Webhooks, Add destination. Select these events:</div>
      </div>
      <ul class="events" aria-label="Events to select in Stripe">
        ${STRIPE_EVENT_TYPES.map((t) => html`<li><code>${t}</code></li>`)}
      </ul>
      <div class="label-badge">
        <label for="secret">Signing secret</label>
        ${configured === undefined
          ? nothing
          : html`<span class="badge ${configured ? 'ok' : 'warn'}" id="secret-state">${configured ? 'set' : 'not set'}</span>`}
      </div>
      <form class="add" @submit=${this.#save}>
        <fieldset ?disabled=${!this.mayChange}>
        <div>
          <input
            id="secret"
            name="secret"
            type="password"
            autocomplete="off"
            required
            placeholder="whsec_..."
            aria-invalid=${fieldError ? 'true' : 'false'}
            aria-describedby="secret-hint ${fieldError ? 'secret-error' : ''}"
          />
          ${fieldError ? html`<div class="field-error" id="secret-error" role="alert">${fieldError}</div>` : nothing}
        </div>
        </fieldset>
        ${this.mayChange
          ? html`<div class="actions">
              <button class="primary" type="submit">${configured ? 'Replace secret' : 'Save secret'}</button>
              ${configured ? html`<button type="button" class="danger-ghost" @click=${this.#remove}>Remove secret</button>` : nothing}
            </div>`
          : nothing}
      </form>
      <div class="hint muted" id="secret-hint">Stripe shows it on the endpoint’s page. It is never shown again here, only whether it is set.</div>
      <h3 style="margin-top:16px">Naming the participant at checkout</h3>
      <p>
        Your checkout names the paying participant by their own referral code (the widget’s <code>referral-signup</code> event hands it to
        your page) as the Checkout Session’s <code>client_reference_id</code>, or as <code>metadata.${REFKIT_CODE_METADATA}</code> on a
        subscription or invoice. Their later invoices, refunds and disputes follow; an event without a code is matched by the customer’s email,
        else listed below to match by hand.
      </p>
    </section>`;
  }
}
