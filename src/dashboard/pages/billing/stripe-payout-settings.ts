/**
 * Paying a campaign's rewards into Stripe: the restricted key (write-only on the service: only whether
 * one is set is shown) and how an available reward is paid (off, customer balance credit, promotion code).
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings } from '../../../api/client.js';
import type { StripeRewardMode } from '../../../api/schemas.js';
import { api } from '../../api.js';
import { confirmAction } from '../../confirm.js';
import { Page } from '../../page.js';

const KEY_FIELD = 'stripeRewardKey';
const MODES: [StripeRewardMode, string][] = [
  ['off', 'Off: rewards stay in Refkit'],
  ['balance', 'Customer balance credit'],
  ['promotion_code', 'Promotion code for that customer'],
];

/**
 * @summary The "Paying rewards into Stripe" card of a campaign's Billing page.
 *
 * @property campaignId - The campaign.
 * @property campaign - The campaign's settings: `stripeRewardKeyConfigured` and `stripeRewardMode`.
 *
 * @event campaigns-changed - Bubbles after the key or mode is saved, so the shell reads the settings again.
 */
@customElement('rk-stripe-payout-settings')
export class StripePayoutSettings extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .row { display: flex; gap: 12px; flex-wrap: wrap; align-items: end; }
      .row .field { flex: 1 1 24ch; margin: 0; }
      .actions { margin-top: 12px; }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  /** What the last save here made of the settings, until the shell's settings (read again) say it themselves. */
  @state() private saved: { configured: boolean; mode: StripeRewardMode } | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) this.forgetMessages();
    if (changed.has('campaign')) this.saved = undefined;
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const key = String(data.get('key')).trim();
    const mode = String(data.get('mode')) as StripeRewardMode;
    if (await this.#write({ ...(key && { [KEY_FIELD]: key }), stripeRewardMode: mode })) {
      (form.elements.namedItem('key') as HTMLInputElement).value = '';
      this.notice = mode === 'off' ? 'Saved. Rewards are not paid into Stripe.' : 'Saved. Available rewards are paid into Stripe from now on.';
    }
  }

  async #remove() {
    const ok = await confirmAction(this, 'Remove the restricted key?', 'Rewards stop being paid into Stripe; payouts not yet sent wait until a key is set again.', 'Remove key', true);
    if (ok && (await this.#write({ [KEY_FIELD]: '', stripeRewardMode: 'off' }))) this.notice = 'Restricted key removed. Rewards are not paid into Stripe.';
  }

  async #write(fields: { stripeRewardKey?: string; stripeRewardMode: StripeRewardMode }): Promise<boolean> {
    this.notice = '';
    const done = await this.attempt(() => api().updateCampaign({ id: this.campaignId, ...fields }));
    if (!done) return false;
    const configured = fields.stripeRewardKey === undefined ? this.#configured : fields.stripeRewardKey !== '';
    this.saved = { configured, mode: fields.stripeRewardMode };
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
    return true;
  }

  get #configured(): boolean {
    return this.saved?.configured ?? this.campaign?.stripeRewardKeyConfigured ?? false;
  }

  override render() {
    const configured = this.#configured;
    const mode = this.saved?.mode ?? this.campaign?.stripeRewardMode ?? 'off';
    const fieldError = this.errorField === KEY_FIELD || this.errorField === 'stripeRewardMode' ? this.error : '';
    return html`<section class="card" aria-labelledby="payout-settings-h">
      <h2 id="payout-settings-h">Paying rewards into Stripe</h2>
      <p class="muted">
        Each reward that becomes available is paid to the participant’s Stripe customer (the one their payments came from) and then counts as
        redeemed. Use a restricted key that may write Customers (balance transactions), Coupons and Promotion codes, and nothing else.
      </p>
      ${fieldError ? nothing : this.messages()}
      <form @submit=${this.#save}>
        <fieldset ?disabled=${!this.mayChange}>
        <div class="row">
          <div class="field">
            <div class="label-badge">
              <label for="reward-key">Restricted key</label>
              ${this.campaign === undefined ? nothing : html`<span class="badge ${configured ? 'ok' : 'warn'}" id="key-state">${configured ? 'set' : 'not set'}</span>`}
            </div>
            <input
              id="reward-key"
              name="key"
              type="password"
              autocomplete="off"
              placeholder=${configured ? 'Leave empty to keep the key' : 'rk_live_...'}
              aria-invalid=${fieldError ? 'true' : 'false'}
              aria-describedby="reward-key-hint ${fieldError ? 'reward-key-error' : ''}"
            />
          </div>
          <div class="field">
            <label for="reward-mode">Pay rewards as</label>
            <select id="reward-mode" name="mode" .value=${mode}>
              ${MODES.map(([value, text]) => html`<option value=${value} ?selected=${value === mode}>${text}</option>`)}
            </select>
          </div>
        </div>
        ${fieldError ? html`<div class="field-error" id="reward-key-error" role="alert">${fieldError}</div>` : nothing}
        <div class="hint muted" id="reward-key-hint">rk_live_... or rk_test_...: never shown again here, only whether it is set.</div>
        </fieldset>
        ${this.mayChange
          ? html`<div class="actions">
              <button class="primary" type="submit">Save payout settings</button>
              ${configured ? html`<button type="button" class="danger-ghost" @click=${this.#remove}>Remove key</button>` : nothing}
            </div>`
          : nothing}
      </form>
    </section>`;
  }
}
