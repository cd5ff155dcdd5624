/**
 * What a campaign's rewards amount to: pending (waiting out the hold), available (the balances), redeemed
 * and owed back, per reward kind and in all, in the campaign's currency or unit; and its whole ledger as CSV.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings, RewardLiability as Liability } from '../../api/client.js';
import { api } from '../api.js';
import { reward } from '../format.js';
import { Page } from '../page.js';

const ROWS: [keyof Liability, string][] = [
  ['referral', 'Referral rewards'],
  ['referee', 'Referee rewards'],
  ['total', 'Total'],
];
const COLUMNS: [keyof Liability['total'], string][] = [
  ['pending', 'Pending'],
  ['available', 'Available'],
  ['redeemed', 'Redeemed'],
  ['owed', 'Owed back'],
];

/**
 * @summary The reward liability card of a campaign, with the ledger's CSV export.
 *
 * @property campaignId - The campaign.
 * @property campaign - The campaign's settings: amounts are written in its currency or unit.
 */
@customElement('rk-reward-liability')
export class RewardLiability extends Page {
  static override styles = [
    ...Page.styles,
    css`
      tbody th { background: none; color: var(--text); font-size: 14px; font-weight: 500; white-space: normal; padding: 12px 16px; vertical-align: middle; }
      tr:last-child th { border-bottom: 0; }
      tr.total th, tr.total td { font-weight: 650; }
      @media (max-width: 640px) { table.records tbody th { display: block; border: 0; padding: 4px 16px; } }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private liability: Liability | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      void this.#load();
    }
  }

  async #load() {
    this.liability = await this.attempt(() => api().getRewardLiability(this.campaignId));
  }

  override render() {
    const l = this.liability;
    const c = this.campaign;
    return html`<section class="card" aria-labelledby="liability-h">
      <div class="page-head" style="margin-bottom:12px">
        <h2 id="liability-h" style="margin:0">Reward liability</h2>
        <a class="button" href=${api().exportRewardEntriesUrl(this.campaignId)} download>Export ledger (CSV)</a>
      </div>
      <p class="muted">Pending rewards wait out the hold; available ones are the balances, still to be paid out; owed back are reversals that found no balance to take back, netted from later rewards.</p>
      ${this.messages()}
      ${l
        ? html`<div class="table-wrap">
            <table class="records" aria-labelledby="liability-h">
              <thead><tr><th>Rewards</th>${COLUMNS.map(([, label]) => html`<th class="num">${label}</th>`)}</tr></thead>
              <tbody>
                ${ROWS.map(
                  ([kind, label]) => html`<tr class=${kind}>
                    <th scope="row">${label}</th>
                    ${COLUMNS.map(([column, name]) => html`<td class="num" data-label=${name}>${reward(l[kind][column], c)}</td>`)}
                  </tr>`,
                )}
              </tbody>
            </table>
          </div>`
        : nothing}
    </section>`;
  }
}
