/**
 * A campaign's cash payouts (`cashPayouts`): the methods participants may choose, the least a payout
 * pays, when runs are made, and whether the owner approves each payout; off is null. A campaign whose
 * rewards are not money (points, months free) cannot pay them in cash: the card says why instead.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings } from '../../../api/client.js';
import { PAYOUT_METHODS, type CashPayoutSettings, type PayoutMethod } from '../../../api/payout-schemas.js';
import { isMoney } from '../../../api/reward-kind.js';
import { api } from '../../api.js';
import { Page } from '../../page.js';
import { METHOD } from './cash-payout-view.js';

const FIELD = 'cashPayouts';
const MAX_MINIMUM = 1_000_000;
const METHOD_HINTS: Record<PayoutMethod, string> = {
  paypal: 'to the PayPal address the participant gives',
  stripe_connect: 'to a Stripe Express account the participant connects',
};
const DEFAULTS: CashPayoutSettings = { methods: ['paypal'], minimum: 10, schedule: 'manual', approval: true };

/**
 * @summary The "Cash payouts" card of a campaign's Payouts page.
 *
 * @property campaignId - The campaign.
 * @property campaign - The campaign's settings: `cashPayouts`, `rewardType` and `rewardCurrency`.
 *
 * @event campaigns-changed - Bubbles after a save, so the shell reads the settings again.
 */
@customElement('rk-cash-payout-settings')
export class CashPayoutSettingsCard extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .title { display: flex; align-items: center; gap: 8px; margin-bottom: 8px; }
      .title h2 { margin: 0; }
      .row { display: flex; gap: 16px; flex-wrap: wrap; align-items: start; }
      .row .field { flex: 1 1 22ch; }
      .amount { display: flex; align-items: center; gap: 8px; }
      .amount input { width: 10em; }
      label.check { display: flex; gap: 8px; align-items: baseline; font-weight: 500; margin-bottom: 6px; }
      label.check .muted { display: block; font-weight: 400; font-size: 12px; }
      fieldset.methods label.check { margin-bottom: 10px; }
      fieldset.methods { margin-bottom: 16px; }
      fieldset.methods legend { font-size: 13px; font-weight: 500; margin-bottom: 6px; }
      .actions { margin-top: 4px; }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  /** The form as edited: whether cash is paid, and its settings (kept while off, so turning it on again restores them). */
  @state() private on = false;
  @state() private draft: CashPayoutSettings = DEFAULTS;
  /** What the last save here made of it, until the shell's settings (read again) say it themselves. */
  @state() private saved: CashPayoutSettings | null | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) this.forgetMessages();
    if (changed.has('campaign')) {
      this.saved = undefined;
      const current = this.campaign?.cashPayouts ?? null;
      this.on = current !== null;
      this.draft = current ?? DEFAULTS;
    }
  }

  #method(m: PayoutMethod, checked: boolean) {
    const methods = checked ? [...this.draft.methods, m] : this.draft.methods.filter((x) => x !== m);
    this.draft = { ...this.draft, methods: PAYOUT_METHODS.filter((x) => methods.includes(x)) };
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    this.notice = '';
    const minimum = Number((this.renderRoot.querySelector('#minimum') as HTMLInputElement | null)?.value ?? this.draft.minimum);
    const value = this.on ? { ...this.draft, minimum } : null;
    if (value && value.methods.length === 0) {
      this.error = 'Choose at least one way to pay.';
      this.errorField = `${FIELD}.methods`;
      return;
    }
    const done = await this.attempt(() => api().updateCampaign({ id: this.campaignId, [FIELD]: value }));
    if (!done) return;
    this.saved = value;
    this.notice = value
      ? `Saved. ${value.schedule === 'monthly' ? 'A run is made on the first day of each month' : 'Make runs from this page'}; ${value.approval ? 'each payout waits for your approval' : 'payouts are sent at once'}.`
      : 'Saved. This campaign pays no cash; balances stay in Refkit.';
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
  }

  /** The service's refusal of one part of the settings, said beside it. */
  #errorOf(part: string): string {
    const f = this.errorField;
    return f === `${FIELD}.${part}` || f?.startsWith(`${FIELD}.${part}.`) ? this.error : '';
  }

  #notMoney(c: CampaignSettings) {
    return html`<p>
      This campaign’s rewards are <strong>${c.rewardType}</strong>, not an amount of money, so they cannot be paid out in cash. Cash payouts are for
      rewards of a money type (credit, cash, discount, gift card...) in the campaign’s currency: change the reward type in the campaign’s settings
      to pay them.
    </p>`;
  }

  #form(c: CampaignSettings) {
    const d = this.draft;
    const currency = c.rewardCurrency ?? 'USD';
    const methodsError = this.#errorOf('methods');
    const minimumError = this.#errorOf('minimum');
    const fieldError = methodsError || minimumError || this.#errorOf('schedule') || this.#errorOf('approval') || (this.errorField === FIELD ? this.error : '');
    return html`${fieldError ? nothing : this.messages()}
      <form @submit=${this.#save}>
        <fieldset ?disabled=${!this.mayChange}>
          <div class="field">
            <label class="check"
              ><input type="checkbox" name="on" .checked=${this.on} @change=${(e: Event) => (this.on = (e.target as HTMLInputElement).checked)} /> Pay rewards in
              cash</label
            >
            <div class="hint">Off: balances stay in Refkit, to redeem in your product; payouts already made go on.</div>
          </div>
          ${this.on
            ? html`<fieldset class="methods" aria-describedby=${methodsError ? 'methods-error' : nothing}>
                  <legend>Participants may be paid</legend>
                  ${PAYOUT_METHODS.map(
                    (m) => html`<label class="check"
                      ><input type="checkbox" name="methods" value=${m} .checked=${d.methods.includes(m)} @change=${(e: Event) => this.#method(m, (e.target as HTMLInputElement).checked)} />
                      <span>By ${METHOD[m]} <span class="muted">${METHOD_HINTS[m]}</span></span></label
                    >`,
                  )}
                  ${methodsError ? html`<div class="field-error" id="methods-error" role="alert">${methodsError}</div>` : nothing}
                </fieldset>
                <div class="row">
                  <div class="field">
                    <label for="minimum">Minimum payout</label>
                    <div class="amount">
                      <input id="minimum" name="minimum" type="number" inputmode="numeric" required min="0" max=${MAX_MINIMUM} step="1" .value=${String(d.minimum)}
                        @input=${(e: Event) => (this.draft = { ...d, minimum: Number((e.target as HTMLInputElement).value) })}
                        aria-invalid=${minimumError ? 'true' : 'false'} aria-describedby="minimum-hint ${minimumError ? 'minimum-error' : ''}" />
                      <span>${currency}</span>
                    </div>
                    <div class="hint" id="minimum-hint">Whole ${currency}. A participant whose available balances come to less waits for a later run.</div>
                    ${minimumError ? html`<div class="field-error" id="minimum-error" role="alert">${minimumError}</div>` : nothing}
                  </div>
                  <div class="field">
                    <label for="schedule">Runs</label>
                    <select id="schedule" name="schedule" @change=${(e: Event) => (this.draft = { ...d, schedule: (e.target as HTMLSelectElement).value as CashPayoutSettings['schedule'] })}>
                      <option value="manual" ?selected=${d.schedule === 'manual'}>When you make one here</option>
                      <option value="monthly" ?selected=${d.schedule === 'monthly'}>Monthly, on the 1st</option>
                    </select>
                    <div class="hint">${c.test ? 'A test campaign’s month follows its clock.' : 'You can still make a run here between two monthly ones.'}</div>
                  </div>
                </div>
                <div class="field">
                  <label class="check"
                    ><input type="checkbox" name="approval" .checked=${d.approval} @change=${(e: Event) => (this.draft = { ...d, approval: (e.target as HTMLInputElement).checked })} />
                    Approve each payout before it is sent</label
                  >
                  <div class="hint">Off: a run’s payouts are sent as soon as it is made.</div>
                </div>`
            : nothing}
          ${fieldError && !methodsError && !minimumError ? html`<div class="field-error" role="alert">${fieldError}</div>` : nothing}
        </fieldset>
        ${this.mayChange ? html`<div class="actions"><button class="primary" type="submit">Save cash payouts</button></div>` : nothing}
      </form>`;
  }

  override render() {
    const c = this.campaign;
    const current = this.saved !== undefined ? this.saved : (c?.cashPayouts ?? null);
    return html`<section class="card" aria-labelledby="cash-h">
      <div class="title">
        <h2 id="cash-h">Cash payouts</h2>
        ${c ? html`<span class="badge ${current ? 'ok' : ''}" id="cash-state">${current ? 'on' : 'off'}</span>` : nothing}
      </div>
      <p class="muted">
        A payout run pays each participant their available referral and referee balances together, by PayPal or Stripe Connect, once they reach the
        minimum. The amount is held from the balance until the payout is paid, or given back if it fails.
      </p>
      ${c === undefined ? nothing : isMoney(c.rewardType ?? '') ? this.#form(c) : this.#notMoney(c)}
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-cash-payout-settings': CashPayoutSettingsCard;
  }
}
