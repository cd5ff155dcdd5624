/**
 * A participant's reward ledger: every credit, reversal and redemption of their balances, newest first,
 * paged with the list's cursor. On a phone each entry is a card of labelled lines (table.records).
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings, RewardEntry } from '../../api/client.js';
import { api } from '../api.js';
import { date, reward } from '../format.js';
import { Page } from '../page.js';
import { participantLink } from '../participant-link.js';

const PAGE_SIZE = 20;

/** What each kind of entry is, in the owner's words. */
const KINDS: Record<RewardEntry['kind'], string> = {
  referral: 'Referral reward',
  referee: 'Joining reward',
  commission: 'Commission',
  milestone: 'Milestone bonus',
  reversal: 'Reversal',
  redemption: 'Redemption',
};
const STATUS_BADGES: Record<RewardEntry['status'], string> = { pending: 'warn', available: 'ok', cancelled: '' };

/**
 * @summary The ledger table of one participant of a campaign.
 *
 * @property campaignId - The campaign.
 * @property email - The participant.
 * @property campaign - The campaign's settings: amounts are written in its currency or unit.
 */
@customElement('rk-reward-ledger')
export class RewardLedger extends Page {
  static override styles = [
    ...Page.styles,
    css`
      td.kind { white-space: nowrap; }
      td.kind .muted { display: block; font-size: 12px; }
      td.referee a { word-break: break-all; }
      @media (max-width: 640px) { td.kind .muted { display: inline; } }
    `,
  ];
  @property() campaignId = '';
  @property() email = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private entries: RewardEntry[] | undefined;
  @state() private next: string | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId') || changed.has('email')) void this.refresh();
  }

  /** Reads the first page again: a redemption or a review made on the page adds entries. */
  async refresh(): Promise<void> {
    this.forgetMessages();
    const page = await this.attempt(() => api().listRewardEntriesPage(this.campaignId, this.email, { pageSize: PAGE_SIZE }));
    this.entries = page?.items;
    this.next = page?.nextCursor;
  }

  async #more() {
    const page = await this.attempt(() => api().listRewardEntriesPage(this.campaignId, this.email, { pageSize: PAGE_SIZE, cursor: this.next! }));
    if (!page) return;
    this.entries = [...(this.entries ?? []), ...page.items];
    this.next = page.nextCursor;
  }

  #row(e: RewardEntry) {
    const c = this.campaign;
    return html`<tr>
      <td data-label="Date" class="when">${date(e.createdOn)}</td>
      <td data-label="Kind" class="kind">${KINDS[e.kind]}${e.rewardKind === 'referee' && e.kind !== 'referee' ? html` <span class="muted">referee balance</span>` : nothing}</td>
      <td data-label="Label">${e.label || '—'}</td>
      <td data-label="Amount" class="num">${reward(e.amount, c)}</td>
      <td data-label="Status"><span class="badge ${STATUS_BADGES[e.status]}">${e.status}</span></td>
      <td data-label="Available on" class="when">${date(e.availableOn)}</td>
      <td data-label="Referee" class="referee">${e.refereeEmail ? participantLink(this.campaignId, e.refereeEmail) : '—'}</td>
      <td data-label="Capped" class="num">${e.capped ? reward(e.capped, c) : '—'}</td>
    </tr>`;
  }

  override render() {
    const entries = this.entries;
    return html`<section aria-labelledby="ledger-h">
      <h2 id="ledger-h">Reward ledger</h2>
      ${this.messages()}
      <div class="table-wrap">
        <table class="records" aria-labelledby="ledger-h">
          <thead>
            <tr><th>Date</th><th>Kind</th><th>Label</th><th class="num">Amount</th><th>Status</th><th>Available on</th><th>Referee</th><th class="num">Capped</th></tr>
          </thead>
          <tbody>
            ${entries === undefined
              ? nothing
              : entries.length === 0
                ? html`<tr><td colspan="8" class="empty">No rewards yet.</td></tr>`
                : entries.map((e) => this.#row(e))}
          </tbody>
        </table>
      </div>
      ${this.next ? html`<p style="margin-top:12px"><button @click=${() => this.#more()}>Show more entries</button></p>` : nothing}
    </section>`;
  }
}
