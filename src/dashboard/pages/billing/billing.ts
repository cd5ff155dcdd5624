/**
 * Billing of a campaign: connecting Stripe, paying rewards into Stripe (and the payouts made), the
 * friend's discount at checkout (and its promotion codes), its reward code pools, the Stripe events it
 * received (matched by hand where none named a participant), sales from the other providers (Paddle, Lemon
 * Squeezy, Shopify, Chargebee, Segment) and the account's exchange rates.
 */
import { css, html } from 'lit';
import { customElement, property, query } from 'lit/decorators.js';
import type { CampaignSettings } from '../../../api/client.js';
import { Page } from '../../page.js';
import '../reward-code-pools.js';
import './stripe-setup.js';
import './stripe-events.js';
import type { StripeEvents } from './stripe-events.js';
import './payment-sources.js';
import type { PaymentSources } from './payment-sources.js';
import './exchange-rates.js';
import './stripe-payout-settings.js';
import './stripe-payouts.js';
import './referee-discount.js';
import './promotion-codes.js';
import type { PromotionCodes } from './promotion-codes.js';

/**
 * @summary The Billing page of a campaign (`#/campaigns/:id/billing`).
 *
 * @property campaignId - The campaign.
 * @property campaign - The campaign's settings, as the shell last read them.
 */
@customElement('rk-billing')
export class Billing extends Page {
  static override styles = [
    ...Page.styles,
    css`
      rk-stripe-setup, rk-stripe-payout-settings, rk-referee-discount, rk-promotion-codes, rk-stripe-payouts, rk-reward-code-pools, rk-stripe-events, rk-payment-sources, rk-exchange-rates { display: block; }
      rk-stripe-payout-settings, rk-referee-discount, rk-reward-code-pools, rk-payment-sources, rk-exchange-rates { margin-top: 16px; }
      rk-promotion-codes { margin-bottom: 32px; }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @query('rk-promotion-codes') private codes: PromotionCodes | undefined;
  @query('rk-stripe-events') private stripeEvents: StripeEvents | undefined;
  @query('rk-payment-sources') private sources: PaymentSources | undefined;

  /** Rates saved that applied held events: the lists show what those became. */
  #ratesSaved(e: CustomEvent<number>) {
    if (e.detail === 0) return;
    void this.stripeEvents?.refresh();
    void this.sources?.refreshEvents();
  }

  override render() {
    return html`<div class="page-head">
        <div>
          <h1>Billing</h1>
          <p>${this.campaign?.campaignName ?? this.campaignId}</p>
        </div>
      </div>
      <rk-stripe-setup .campaignId=${this.campaignId} .campaign=${this.campaign}></rk-stripe-setup>
      <rk-stripe-payout-settings .campaignId=${this.campaignId} .campaign=${this.campaign}></rk-stripe-payout-settings>
      <rk-referee-discount .campaignId=${this.campaignId} .campaign=${this.campaign} @discount-saved=${() => void this.codes?.refresh()}></rk-referee-discount>
      <rk-promotion-codes .campaignId=${this.campaignId}></rk-promotion-codes>
      <rk-reward-code-pools .campaignId=${this.campaignId} .campaign=${this.campaign}></rk-reward-code-pools>
      <rk-stripe-events .campaignId=${this.campaignId}></rk-stripe-events>
      <rk-payment-sources .campaignId=${this.campaignId} .campaign=${this.campaign}></rk-payment-sources>
      <rk-exchange-rates .campaign=${this.campaign} @exchange-rates-saved=${this.#ratesSaved}></rk-exchange-rates>
      <rk-stripe-payouts .campaignId=${this.campaignId}></rk-stripe-payouts>`;
  }
}
