/**
 * What a payout run did (createPayouts' answer): the payouts it made, with their total, and the
 * participants it skipped with the reason (under the minimum, no payout method, tax details missing...).
 */
import { css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { CreatePayoutsAnswer } from '../../../api/payout-schemas.js';
import { count } from '../../format.js';
import { Page } from '../../page.js';
import { participantLink } from '../../participant-link.js';
import { METHOD, cash, downloadRunCsv, statusCell, totals } from './cash-payout-view.js';

/** The most rows each table shows: a run of a large program skips thousands (the CSV and the list have the payouts). */
const SHOWN = 50;

/**
 * @summary The report of the run just made, on a campaign's Payouts page.
 *
 * @property campaignId - The campaign.
 * @property run - createPayouts' answer.
 *
 * @event show-run - Asks the page to list this run's payouts alone (detail: the run id).
 * @event dismiss - The owner closed the report.
 */
@customElement('rk-payout-run-report')
export class PayoutRunReport extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .title { display: flex; justify-content: space-between; align-items: center; gap: 8px 16px; flex-wrap: wrap; margin-bottom: 8px; }
      .title h2 { margin: 0; }
      h3 { margin-top: 16px; }
      td.to .muted, td.state .reason { display: block; font-size: 12px; }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) run: CreatePayoutsAnswer | undefined;

  #emit(type: string, detail?: string) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  async #csv(runId: string) {
    this.notice = '';
    const n = await this.attempt(() => downloadRunCsv(this.campaignId, runId));
    if (n !== undefined) this.notice = `Downloaded run ${runId}: ${count(n, 'payout', 'payouts')}.`;
  }

  #summary(run: CreatePayoutsAnswer) {
    const made = run.payouts;
    if (made.length === 0) return html`<p>Nobody could be paid: ${count(run.skipped.length, 'participant was', 'participants were')} skipped.</p>`;
    const waiting = made.some((p) => p.status === 'pending_approval');
    return html`<p>
      <strong>${count(made.length, 'payout', 'payouts')} made, ${totals(made)} in all:</strong>
      ${waiting ? 'they wait for your approval in the list below.' : 'they are being sent.'}
      ${run.skipped.length > 0 ? html`${count(run.skipped.length, 'participant was', 'participants were')} skipped.` : nothing}
    </p>`;
  }

  #made(run: CreatePayoutsAnswer) {
    if (run.payouts.length === 0) return nothing;
    return html`<h3 id="made-h">Payouts made</h3>
      <div class="table-wrap">
        <table class="records" aria-labelledby="made-h">
          <thead><tr><th>Participant</th><th class="num">Amount</th><th>Paid to</th><th>Status</th></tr></thead>
          <tbody>
            ${run.payouts.slice(0, SHOWN).map(
              (p) => html`<tr>
                <td class="who">${participantLink(this.campaignId, p.email)}</td>
                <td class="num" data-label="Amount">${cash(p.amount, p.currency)}</td>
                <td class="to" data-label="Paid to"><span>${METHOD[p.method]}<span class="muted">${p.destination}</span></span></td>
                <td class="state" data-label="Status">${statusCell(p)}</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
      ${run.payouts.length > SHOWN ? html`<p class="hint muted">And ${count(run.payouts.length - SHOWN, 'more', 'more')}: the CSV has them all.</p>` : nothing}`;
  }

  #skipped(run: CreatePayoutsAnswer) {
    if (run.skipped.length === 0) return nothing;
    return html`<h3 id="skipped-h">Skipped</h3>
      <div class="table-wrap">
        <table class="records" aria-labelledby="skipped-h">
          <thead><tr><th>Participant</th><th>Why</th></tr></thead>
          <tbody>
            ${run.skipped.slice(0, SHOWN).map(
              (s) => html`<tr>
                <td class="who">${participantLink(this.campaignId, s.email)}</td>
                <td data-label="Why">${s.reason}</td>
              </tr>`,
            )}
          </tbody>
        </table>
      </div>
      ${run.skipped.length > SHOWN ? html`<p class="hint muted">And ${count(run.skipped.length - SHOWN, 'more', 'more')}.</p>` : nothing}`;
  }

  override render() {
    const run = this.run;
    if (!run) return nothing;
    return html`<section class="card" aria-labelledby="run-h">
      <div class="title">
        <h2 id="run-h">${run.runId ? html`Run <code>${run.runId}</code>` : 'No payout made'}</h2>
        <div class="actions">
          ${run.runId
            ? html`<button class="small" @click=${() => this.#csv(run.runId!)}>Download run CSV</button>
                <button class="small" @click=${() => this.#emit('show-run', run.runId!)}>Show this run in the list</button>`
            : nothing}
          <button class="small" @click=${() => this.#emit('dismiss')}>Close</button>
        </div>
      </div>
      ${this.messages()} ${this.#summary(run)} ${this.#made(run)} ${this.#skipped(run)}
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-payout-run-report': PayoutRunReport;
  }
}
