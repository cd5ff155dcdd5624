/**
 * The rewards a campaign paid (or is paying) into Stripe, newest first, a page at a time: each with its
 * status, why it waits or failed, Stripe's object, and a retry for those that failed or wait.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { STRIPE_PAYOUT_STATUSES, type StripePayoutView } from '../../../api/billing-schemas.js';
import { api } from '../../api.js';
import { dateTime, money } from '../../format.js';
import { Page } from '../../page.js';
import { participantLink } from '../../participant-link.js';

type Status = StripePayoutView['status'];
const PAGE_SIZE = 25;
const BADGES: Record<Status, string> = { queued: 'info', waiting: 'warn', paid: 'ok', failed: 'danger' };

/**
 * @summary The payouts table of a campaign's Billing page, with its status filter, paging and retry.
 *
 * @property campaignId - The campaign.
 * @property heading - The table's heading (default "Payouts to Stripe").
 *
 * @slot intro - A paragraph under the heading.
 */
@customElement('rk-stripe-payouts')
export class StripePayouts extends Page {
  static override styles = [
    ...Page.styles,
    css`
      tr.failed td { background: var(--danger-soft); }
      td.what .muted, td.state .muted, td.stripe code { display: block; font-size: 12px; overflow-wrap: anywhere; }
      td.stripe, td.who { overflow-wrap: anywhere; }
      .more { margin-top: 12px; }
    `,
  ];
  @property() campaignId = '';
  /** The table's heading: the Payouts page names these apart from cash payouts. */
  @property() heading = 'Payouts to Stripe';
  @state() private payouts: StripePayoutView[] | undefined;
  @state() private status: '' | Status = '';
  /** The cursor of the page after those shown, when there is one. */
  @state() private next: string | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      void this.refresh();
    }
  }

  /** Reads the first page again (or, with `cursor`, adds the next one). */
  async refresh(cursor?: string): Promise<void> {
    const id = this.campaignId;
    const status = this.status;
    const page = await this.attempt(() => api().listStripePayoutsPage(id, { pageSize: PAGE_SIZE, ...(status && { status }), ...(cursor && { cursor }) }));
    if (!page || id !== this.campaignId || status !== this.status) return;
    this.payouts = cursor ? [...(this.payouts ?? []), ...page.items] : page.items;
    this.next = page.nextCursor;
  }

  async #retry(p: StripePayoutView) {
    this.notice = '';
    const retried = await this.attempt(() => api().retryStripePayout(this.campaignId, p.id));
    if (!retried) return;
    this.payouts = this.payouts?.map((x) => (x.id === retried.id ? retried : x));
    this.notice = `Payout ${p.id} to ${p.email} is sent again shortly.`;
  }

  #state(p: StripePayoutView) {
    return html`<span class="badge ${BADGES[p.status]}">${p.status}</span>
      ${p.lastError ? html`<span class="muted">${p.lastError}</span>` : nothing}
      ${p.nextAttemptOn && p.attempts > 0 ? html`<span class="muted">Next attempt ${dateTime(p.nextAttemptOn)}</span>` : nothing}`;
  }

  #stripe(p: StripePayoutView) {
    if (!p.stripeId && !p.customer) return '—';
    return html`${p.promotionCode ? html`<span class="badge info" title="Promotion code">${p.promotionCode}</span>` : nothing}
      ${p.stripeId ? html`<code>${p.stripeId}</code>` : nothing} ${p.customer ? html`<code>${p.customer}</code>` : nothing}`;
  }

  #row(p: StripePayoutView) {
    const retriable = p.status === 'failed' || p.status === 'waiting';
    return html`<tr class=${p.status}>
      <td class="who">${participantLink(this.campaignId, p.email)}</td>
      <td class="what" data-label="Reward">${money(p.amount, p.currency, true)}<span class="muted">${p.label}</span></td>
      <td class="state" data-label="Status">${this.#state(p)}</td>
      <td class="num" data-label="Attempts">${p.attempts}</td>
      <td class="stripe" data-label="In Stripe">${this.#stripe(p)}</td>
      <td data-label="Created">${dateTime(p.createdOn)}</td>
      <td>${retriable && this.mayChange ? html`<button class="small" aria-label="Retry payout ${p.id}" @click=${() => this.#retry(p)}>Retry</button>` : nothing}</td>
    </tr>`;
  }

  override render() {
    const payouts = this.payouts;
    return html`<div class="head2">
        <h2 id="payouts-h">${this.heading}</h2>
        <div class="actions">
          <div class="field">
            <label for="payout-filter">Filter payouts</label>
            <select id="payout-filter" @change=${(e: Event) => ((this.status = (e.target as HTMLSelectElement).value as Status), void this.refresh())}>
              <option value="">All</option>
              ${STRIPE_PAYOUT_STATUSES.map((s) => html`<option value=${s}>${s[0]!.toUpperCase()}${s.slice(1)}</option>`)}
            </select>
          </div>
          <button @click=${() => this.refresh()}>Reload payouts</button>
        </div>
      </div>
      <slot name="intro"></slot>
      ${this.messages()}
      <div class="table-wrap">
        <table class="records" aria-labelledby="payouts-h">
          <thead><tr><th>Participant</th><th>Reward</th><th>Status</th><th class="num">Attempts</th><th>In Stripe</th><th>Created</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${payouts === undefined
              ? nothing
              : payouts.length === 0
                ? html`<tr><td colspan="7" class="empty">No ${this.status ? `${this.status} ` : ''}payout yet.</td></tr>`
                : payouts.map((p) => this.#row(p))}
          </tbody>
        </table>
      </div>
      ${this.next ? html`<button class="more" @click=${() => this.refresh(this.next)}>Older payouts</button>` : nothing}`;
  }
}
