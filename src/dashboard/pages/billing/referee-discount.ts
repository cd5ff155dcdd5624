/**
 * The friend's discount at checkout: the campaign's refereeDiscount (a percentage or an amount off, for the
 * first payment, some months of payments or every payment) and the prefix of its promotion codes. The
 * service makes it in Stripe with the restricted key of "Paying rewards into Stripe": one coupon, and a
 * first-purchase promotion code per participant whose text is their referral code (./promotion-codes.ts
 * lists them).
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings } from '../../../api/client.js';
import { DISCOUNT_DURATIONS, MAX_DISCOUNT_MONTHS, type RefereeDiscount } from '../../../api/promotion-schemas.js';
import { api } from '../../api.js';
import { confirmAction } from '../../confirm.js';
import { money } from '../../format.js';
import { Page } from '../../page.js';

type Kind = 'off' | 'percent' | 'amount';
type Duration = RefereeDiscount['duration'];

const KINDS: [Kind, string][] = [
  ['off', 'Off: no discount'],
  ['percent', 'A percentage off'],
  ['amount', 'An amount off'],
];
const DURATIONS: Record<Duration, string> = {
  once: 'First payment only',
  repeating: 'A number of months',
  forever: 'Every payment',
};
/** The prefix as the service takes it (PROMOTION_CODE_PREFIX_PATTERN, without the empty case the field allows anyway). */
const PREFIX_PATTERN = '[A-Za-z0-9\\-]{1,12}';

/** The input a field the service named belongs to (a 400's `field`: `refereeDiscount.percentOff`, `promotionCodePrefix`...). */
function inputOf(field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  if (field === 'promotionCodePrefix') return 'discount-prefix';
  if (field === 'refereeDiscount.percentOff' || field === 'refereeDiscount.amountOff') return 'discount-value';
  if (field === 'refereeDiscount.duration') return 'discount-duration';
  if (field === 'refereeDiscount.durationInMonths') return 'discount-months';
  return field.startsWith('refereeDiscount') ? 'discount-kind' : undefined;
}

/** The discount in words: "15% off the first payment", "$10 off every payment for 3 months". */
export function discountText(d: RefereeDiscount, currency: string): string {
  const off = d.percentOff !== undefined ? `${d.percentOff}% off` : `${money(d.amountOff ?? 0, currency, true)} off`;
  if (d.duration === 'once') return `${off} the first payment`;
  if (d.duration === 'forever') return `${off} every payment`;
  return `${off} each payment for ${d.durationInMonths ?? 1} ${d.durationInMonths === 1 ? 'month' : 'months'}`;
}

/**
 * @summary The "Friend's discount at checkout" card of a campaign's Billing page.
 *
 * @property campaignId - The campaign.
 * @property campaign - The campaign's settings: `refereeDiscount`, `promotionCodePrefix`, `stripeRewardKeyConfigured`.
 *
 * @event campaigns-changed - Bubbles after a save, so the shell reads the settings again.
 * @event discount-saved - Bubbles after a save, so the list of promotion codes reads them again.
 */
@customElement('rk-referee-discount')
export class RefereeDiscountCard extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .row { display: flex; gap: 12px; flex-wrap: wrap; align-items: start; }
      .row .field { flex: 1 1 18ch; min-width: 0; margin-bottom: 12px; }
      .field.prefix { max-width: 40ch; }
      .needs { display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; margin: 0 0 12px; }
      .current { margin: 0 0 12px; }
      .actions { margin-top: 4px; }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  /** The form's choices that change which fields show. */
  @state() private kind: Kind = 'off';
  @state() private duration: Duration = 'once';
  /** What the last save here made of the settings, until the shell's settings (read again) say it themselves. */
  @state() private saved: { discount: RefereeDiscount | null; prefix: string | null } | undefined;
  /** The discount the form was last filled from: settings read again for another reason (a key saved above) keep what is being typed. */
  #shown: string | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      this.#shown = undefined;
    }
    if (changed.has('campaign')) {
      this.saved = undefined;
      const d = this.campaign?.refereeDiscount ?? null;
      const shown = JSON.stringify([this.campaignId, d, this.campaign?.promotionCodePrefix ?? null]);
      if (shown !== this.#shown) {
        this.#shown = shown;
        this.kind = d === null ? 'off' : d.percentOff !== undefined ? 'percent' : 'amount';
        this.duration = d?.duration ?? 'once';
      }
    }
  }

  get #discount(): RefereeDiscount | null {
    return this.saved ? this.saved.discount : (this.campaign?.refereeDiscount ?? null);
  }

  get #prefix(): string {
    return (this.saved ? this.saved.prefix : this.campaign?.promotionCodePrefix) ?? '';
  }

  get #currency(): string {
    return this.campaign?.rewardCurrency ?? 'USD';
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const value = Number(data.get('value'));
    const months = Number(data.get('months'));
    const discount: RefereeDiscount | null =
      this.kind === 'off'
        ? null
        : {
            ...(this.kind === 'percent' ? { percentOff: value } : { amountOff: value }),
            duration: this.duration,
            ...(this.duration === 'repeating' && { durationInMonths: months }),
          };
    const prefix = String(data.get('prefix') ?? '').trim();
    if (discount === null && this.#discount !== null) {
      const ok = await confirmAction(
        this,
        'Turn the discount off?',
        'Every promotion code of this campaign is deactivated in Stripe: friends can no longer use them at checkout.',
        'Turn off',
        true,
      );
      if (!ok) return;
    }
    this.notice = '';
    const settings = await this.attempt(() => api().updateCampaign({ id: this.campaignId, refereeDiscount: discount, promotionCodePrefix: prefix }));
    if (!settings) return;
    this.saved = { discount: settings.refereeDiscount, prefix: settings.promotionCodePrefix };
    this.notice = settings.refereeDiscount
      ? `Saved: ${discountText(settings.refereeDiscount, this.#currency)}. Each participant’s promotion code is made in Stripe shortly.`
      : 'Saved. Friends get no discount at checkout.';
    this.dispatchEvent(new CustomEvent('discount-saved', { bubbles: true, composed: true }));
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
  }

  /** The service's word on a field, beside it; the input it names is marked. */
  #error(id: string) {
    return inputOf(this.errorField) === id ? html`<div class="field-error" id="${id}-error" role="alert">${this.error}</div>` : nothing;
  }

  #invalid = (id: string) => (inputOf(this.errorField) === id ? 'true' : 'false');
  #described = (id: string, hint = '') => [hint, inputOf(this.errorField) === id ? `${id}-error` : ''].filter(Boolean).join(' ') || nothing;

  #fields(d: RefereeDiscount | null) {
    if (this.kind === 'off') return nothing;
    const percent = this.kind === 'percent';
    const value = d && (percent ? d.percentOff : d.amountOff);
    return html`<div class="field">
        <label for="discount-value">${percent ? 'Percent off' : `Amount off (${this.#currency})`}</label>
        <input
          id="discount-value"
          name="value"
          type="number"
          required
          min=${percent ? '0.01' : '1'}
          max=${percent ? '100' : '1000000'}
          step=${percent ? '0.01' : '1'}
          .value=${value === undefined || value === null ? '' : String(value)}
          aria-invalid=${this.#invalid('discount-value')}
          aria-describedby=${this.#described('discount-value')}
        />
        ${this.#error('discount-value')}
      </div>
      <div class="field">
        <label for="discount-duration">Applies to</label>
        <select id="discount-duration" name="duration" aria-invalid=${this.#invalid('discount-duration')} @change=${(e: Event) => (this.duration = (e.target as HTMLSelectElement).value as Duration)}>
          ${DISCOUNT_DURATIONS.map((v) => html`<option value=${v} ?selected=${v === this.duration}>${DURATIONS[v]}</option>`)}
        </select>
        ${this.#error('discount-duration')}
      </div>
      ${this.duration === 'repeating'
        ? html`<div class="field">
            <label for="discount-months">For how many months</label>
            <input
              id="discount-months"
              name="months"
              type="number"
              required
              min="1"
              max=${MAX_DISCOUNT_MONTHS}
              step="1"
              .value=${String(d?.durationInMonths ?? 3)}
              aria-invalid=${this.#invalid('discount-months')}
              aria-describedby=${this.#described('discount-months')}
            />
            ${this.#error('discount-months')}
          </div>`
        : nothing}`;
  }

  override render() {
    const d = this.#discount;
    const keySet = this.campaign?.stripeRewardKeyConfigured ?? false;
    const fieldError = inputOf(this.errorField) !== undefined;
    return html`<section class="card" aria-labelledby="discount-h">
      <h2 id="discount-h">Friend’s discount at checkout</h2>
      <p class="muted">
        A friend who arrives through a share link gets this off their first purchase: each participant has a promotion code in your Stripe
        account whose text is their referral code, for your checkout to apply (or for friends to type). It comes on top of the friend’s reward.
      </p>
      <p class="needs" id="discount-needs">
        ${keySet
          ? html`<span class="badge ok">restricted key set</span><span class="muted">Made with the key of “Paying rewards into Stripe” (it needs Coupons and Promotion codes).</span>`
          : html`<span class="badge warn">needs the restricted key</span><span class="muted">Set it under “Paying rewards into Stripe” above (with write access to Coupons and Promotion codes) first.</span>`}
      </p>
      ${this.campaign === undefined ? nothing : html`<p class="current" data-discount=${d ? 'on' : 'off'}><strong>Now:</strong> ${d ? discountText(d, this.#currency) : 'no discount'}</p>`}
      ${fieldError ? html`<div role="status">${this.notice ? html`<div class="notice">${this.notice}</div>` : nothing}</div>` : this.messages()}
      <form @submit=${this.#save}>
        <fieldset ?disabled=${!this.mayChange}>
          <div class="row">
            <div class="field">
              <label for="discount-kind">Discount</label>
              <select
                id="discount-kind"
                name="kind"
                aria-invalid=${this.#invalid('discount-kind')}
                aria-describedby=${this.#described('discount-kind', 'discount-needs')}
                @change=${(e: Event) => (this.kind = (e.target as HTMLSelectElement).value as Kind)}
              >
                ${KINDS.map(([v, text]) => html`<option value=${v} ?selected=${v === this.kind}>${text}</option>`)}
              </select>
              ${this.#error('discount-kind')}
            </div>
            ${this.#fields(d)}
          </div>
          <div class="field prefix">
            <label for="discount-prefix">Code prefix (optional)</label>
            <input
              id="discount-prefix"
              name="prefix"
              autocomplete="off"
              maxlength="12"
              pattern=${PREFIX_PATTERN}
              placeholder="SHOP2-"
              .value=${this.#prefix}
              aria-invalid=${this.#invalid('discount-prefix')}
              aria-describedby=${this.#described('discount-prefix', 'discount-prefix-hint')}
            />
            <div class="hint muted" id="discount-prefix-hint">Letters, digits and dashes, up to 12: for campaigns that share one Stripe account.</div>
            ${this.#error('discount-prefix')}
          </div>
        </fieldset>
        ${this.mayChange
          ? html`<div class="actions">
              <button class="primary" type="submit">Save discount</button>
              <span class="hint muted">A changed discount or prefix makes every code anew (the old ones are deactivated).</span>
            </div>`
          : nothing}
      </form>
    </section>`;
  }
}
