/**
 * A campaign's Stripe promotion codes (the friend's discount at checkout), newest first: each participant's
 * code with its state (waiting to be made, made, refused by Stripe with the reason, being deactivated,
 * deactivated), filtered by state.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { PROMOTION_CODE_STATUSES, type PromotionCodeView } from '../../../api/promotion-schemas.js';
import { api } from '../../api.js';
import { dateTime } from '../../format.js';
import { Page } from '../../page.js';
import { participantLink } from '../../participant-link.js';

type Status = PromotionCodeView['status'];
/** The most the service lists at once. */
const LIMIT = 100;
const BADGES: Record<Status, string> = { queued: 'info', active: 'ok', failed: 'danger', deactivating: 'warn', inactive: '' };
const LABELS: Record<Status, string> = { queued: 'Queued', active: 'Active', failed: 'Failed', deactivating: 'Deactivating', inactive: 'Inactive' };

/**
 * @summary The promotion codes table of a campaign's Billing page, with its status filter.
 *
 * @property campaignId - The campaign.
 */
@customElement('rk-promotion-codes')
export class PromotionCodes extends Page {
  static override styles = [
    ...Page.styles,
    css`
      tr.failed td { background: var(--danger-soft); }
      td.state .reason { display: block; font-size: 12px; color: var(--danger); overflow-wrap: anywhere; max-width: 48ch; }
      td.stripe code, td.code .muted { display: block; font-size: 12px; overflow-wrap: anywhere; }
      td.who { overflow-wrap: anywhere; }
      .note { margin-top: 8px; }
    `,
  ];
  @property() campaignId = '';
  @state() private codes: PromotionCodeView[] | undefined;
  @state() private status: '' | Status = '';

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      this.codes = undefined;
      void this.refresh();
    }
  }

  /** Reads the codes again (the filter's). */
  async refresh(): Promise<void> {
    const id = this.campaignId;
    const status = this.status;
    if (!id) return;
    const codes = await this.attempt(() => api().listPromotionCodes(id, status || undefined, LIMIT));
    if (!codes || id !== this.campaignId || status !== this.status) return;
    this.codes = codes;
  }

  #row(c: PromotionCodeView) {
    return html`<tr class=${c.status} data-status=${c.status}>
      <td class="who">${participantLink(this.campaignId, c.email)}</td>
      <td class="code" data-label="Code"><code>${c.stripeCode}</code>${c.stripeCode !== c.code ? html`<span class="muted">referral code ${c.code}</span>` : nothing}</td>
      <td class="state" data-label="Status">
        <span class="badge ${BADGES[c.status]}">${LABELS[c.status]}</span>
        ${c.current ? nothing : html`<span class="badge" title="Of an earlier discount">earlier discount</span>`}
        ${c.reason ? html`<span class="reason">${c.reason}</span>` : nothing}
      </td>
      <td class="stripe" data-label="In Stripe">${c.id ? html`<code>${c.id}</code>` : '—'}</td>
      <td data-label="Updated">${dateTime(c.updatedOn)}</td>
    </tr>`;
  }

  override render() {
    const codes = this.codes;
    return html`<div class="head2">
        <h2 id="codes-h">Promotion codes</h2>
        <div class="actions">
          <div class="field">
            <label for="codes-filter">Filter codes</label>
            <select id="codes-filter" @change=${(e: Event) => ((this.status = (e.target as HTMLSelectElement).value as Status), void this.refresh())}>
              <option value="">All</option>
              ${PROMOTION_CODE_STATUSES.map((s) => html`<option value=${s}>${LABELS[s]}</option>`)}
            </select>
          </div>
          <button @click=${() => this.refresh()}>Reload codes</button>
        </div>
      </div>
      ${this.messages()}
      <div class="table-wrap">
        <table class="records" aria-labelledby="codes-h">
          <thead><tr><th>Participant</th><th>Code</th><th>Status</th><th>In Stripe</th><th>Updated</th></tr></thead>
          <tbody>
            ${codes === undefined
              ? nothing
              : codes.length === 0
                ? html`<tr><td colspan="5" class="empty">${this.status ? `No ${LABELS[this.status].toLowerCase()} promotion code.` : 'No promotion codes yet: they are made once the campaign has a friend’s discount.'}</td></tr>`
                : codes.map((c) => this.#row(c))}
          </tbody>
        </table>
      </div>
      ${codes?.length === LIMIT ? html`<p class="muted hint note">The newest ${LIMIT} are shown.</p>` : nothing}`;
  }
}
