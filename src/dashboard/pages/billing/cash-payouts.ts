/**
 * A campaign's cash payouts, newest first, a page at a time, filtered by status or by run: each with its
 * participant, amount, method and where it goes, its status and why (it waits, failed, was returned or
 * cancelled). Payouts pending approval are selected and approved (sent) or cancelled (their amounts go back
 * on the balances), each after a confirmation that says how much; a run's payouts download as CSV.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { CASH_PAYOUT_STATUSES, type CashPayout, type CashPayoutStatus } from '../../../api/payout-schemas.js';
import { api } from '../../api.js';
import { confirmAction } from '../../confirm.js';
import { count } from '../../format.js';
import { Page } from '../../page.js';
import { participantLink } from '../../participant-link.js';
import { METHOD, STATUS, cash, downloadRunCsv, statusCell, totals, whenCell } from './cash-payout-view.js';

const PAGE_SIZE = 25;

/**
 * @summary The cash payouts table of a campaign's Payouts page, with its filters, paging, approval and CSV.
 *
 * @property campaignId - The campaign.
 */
@customElement('rk-cash-payouts')
export class CashPayouts extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .filters { display: flex; gap: 8px; flex-wrap: wrap; align-items: end; }
      .selection { display: flex; gap: 8px 12px; flex-wrap: wrap; align-items: center; margin-bottom: 12px; padding: 10px 14px; border-radius: 8px; background: var(--warn-soft); border: 1px solid #fedf89; }
      .selection .what { flex: 1 1 16ch; }
      .selection label.check { display: flex; gap: 6px; align-items: center; margin: 0; font-size: 14px; }
      .selection input { width: 18px; height: 18px; margin: 0; }
      .run-filter { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; margin-bottom: 12px; }
      td.pick, th.pick { width: 1%; }
      td.pick input, th.pick input { width: 18px; height: 18px; margin: 0; vertical-align: middle; }
      td.state .reason, td.to .muted, td.when .later { display: block; font-size: 12px; }
      tr.failed td, tr.returned td { background: var(--danger-soft); }
      button.run { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; font-weight: 500; padding: 2px 8px; }
      .more { margin-top: 12px; }
      @media (max-width: 640px) { table.records td.pick { padding-top: 8px; } }
    `,
  ];
  @property() campaignId = '';
  @state() private payouts: CashPayout[] | undefined;
  @state() private status: '' | CashPayoutStatus = '';
  /** The run shown alone, when one is chosen. */
  @state() private runId = '';
  /** The cursor of the page after those shown, when there is one. */
  @state() private next: string | undefined;
  /** The payouts (pending approval) ticked for Approve or Cancel. */
  @state() private selected = new Set<number>();
  @state() private busy = false;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      this.runId = '';
      void this.refresh();
    }
  }

  /** Reads the first page again (or, with `cursor`, adds the next one). */
  async refresh(cursor?: string): Promise<void> {
    const { campaignId: id, status, runId } = this;
    const page = await this.attempt(() =>
      api().listPayoutsPage(id, { pageSize: PAGE_SIZE, ...(status && { status }), ...(runId && { runId }), ...(cursor && { cursor }) }),
    );
    if (!page || id !== this.campaignId || status !== this.status || runId !== this.runId) return;
    this.payouts = cursor ? [...(this.payouts ?? []), ...page.items] : page.items;
    this.next = page.nextCursor;
    const shown = new Set(this.payouts.filter((p) => p.status === 'pending_approval').map((p) => p.id));
    this.selected = new Set([...this.selected].filter((x) => shown.has(x)));
  }

  /** Shows one run's payouts alone ('' shows every run's). */
  showRun(runId: string): void {
    this.runId = runId;
    this.selected = new Set();
    void this.refresh();
  }

  get #pending(): CashPayout[] {
    return (this.payouts ?? []).filter((p) => p.status === 'pending_approval');
  }

  get #chosen(): CashPayout[] {
    return this.#pending.filter((p) => this.selected.has(p.id));
  }

  #pick(id: number, on: boolean) {
    const next = new Set(this.selected);
    if (on) next.add(id);
    else next.delete(id);
    this.selected = next;
  }

  #pickAll(on: boolean) {
    this.selected = new Set(on ? this.#pending.map((p) => p.id) : []);
  }

  async #approve() {
    const chosen = this.#chosen;
    const methods = [...new Set(chosen.map((p) => METHOD[p.method]))].join(' and ');
    const ok = await confirmAction(
      this,
      `Approve ${count(chosen.length, 'payout', 'payouts')}?`,
      `${totals(chosen)} in all is sent by ${methods} at once, to ${count(new Set(chosen.map((p) => p.email)).size, 'participant', 'participants')}. Money sent cannot be called back from here.`,
      'Approve and send',
    );
    if (ok) await this.#move('approve', chosen);
  }

  async #cancel() {
    const chosen = this.#chosen;
    const ok = await confirmAction(
      this,
      `Cancel ${count(chosen.length, 'payout', 'payouts')}?`,
      `${totals(chosen)} goes back on the participants’ balances; a later run pays it again if they still reach the minimum.`,
      'Cancel payouts',
      true,
    );
    if (ok) await this.#move('cancel', chosen);
  }

  async #move(action: 'approve' | 'cancel', chosen: CashPayout[]) {
    this.notice = '';
    this.busy = true;
    const ids = chosen.map((p) => p.id);
    const answer = await this.attempt(() => (action === 'approve' ? api().approvePayouts(this.campaignId, ids) : api().cancelPayouts(this.campaignId, ids)));
    this.busy = false;
    if (!answer) return;
    const now = new Map(answer.payouts.map((p) => [p.id, p]));
    this.payouts = this.payouts?.map((p) => now.get(p.id) ?? p);
    this.selected = new Set();
    const target: CashPayoutStatus = action === 'approve' ? 'sending' : 'cancelled';
    const moved = answer.payouts.filter((p) => p.status === target).length;
    const others = answer.payouts.length - moved;
    // A payout approved or cancelled meanwhile (another tab, another owner) is answered as it is now.
    const rest = others > 0 ? ` ${count(others, 'payout was', 'payouts were')} no longer pending approval, and ${others === 1 ? 'is' : 'are'} shown as ${others === 1 ? 'it is' : 'they are'} now.` : '';
    this.notice = action === 'approve' ? `${count(moved, 'payout', 'payouts')} approved: being sent.${rest}` : `${count(moved, 'payout', 'payouts')} cancelled: the amounts are back on the balances.${rest}`;
  }

  async #csv(runId: string) {
    this.notice = '';
    const n = await this.attempt(() => downloadRunCsv(this.campaignId, runId));
    if (n !== undefined) this.notice = `Downloaded run ${runId}: ${count(n, 'payout', 'payouts')}.`;
  }

  #row(p: CashPayout, picking: boolean) {
    const pending = p.status === 'pending_approval';
    return html`<tr class=${p.status}>
      ${picking
        ? html`<td class="pick">
            ${pending
              ? html`<input type="checkbox" aria-label="Select payout ${p.id} to ${p.email}" .checked=${this.selected.has(p.id)} @change=${(e: Event) => this.#pick(p.id, (e.target as HTMLInputElement).checked)} />`
              : nothing}
          </td>`
        : nothing}
      <td class="who">${participantLink(this.campaignId, p.email)}</td>
      <td class="num" data-label="Amount">${cash(p.amount, p.currency)}</td>
      <td class="to" data-label="Paid to"><span>${METHOD[p.method]}<span class="muted">${p.destination}</span></span></td>
      <td class="state" data-label="Status">${statusCell(p)}</td>
      <td data-label="Run"><button class="small run" title="Show this run alone" aria-label="Show run ${p.runId}" @click=${() => this.showRun(p.runId)}>${p.runId}</button></td>
      <td class="when" data-label="When">${whenCell(p)}</td>
    </tr>`;
  }

  #selection() {
    const pending = this.#pending;
    if (!this.mayChange || pending.length === 0) return nothing;
    const chosen = this.#chosen;
    return html`<div class="selection" role="group" aria-label="Payouts pending approval">
      <label class="check"
        ><input type="checkbox" .checked=${chosen.length === pending.length} @change=${(e: Event) => this.#pickAll((e.target as HTMLInputElement).checked)} /> Select all</label
      >
      <span class="what">
        <strong>${count(pending.length, 'payout waits', 'payouts wait')} for approval.</strong>
        ${chosen.length > 0 ? html`${count(chosen.length, 'payout', 'payouts')} selected, ${totals(chosen)}.` : 'Select those to approve or cancel.'}
      </span>
      <button class="primary small" ?disabled=${chosen.length === 0 || this.busy} @click=${this.#approve}>Approve selected</button>
      <button class="small danger-ghost" ?disabled=${chosen.length === 0 || this.busy} @click=${this.#cancel}>Cancel selected</button>
    </div>`;
  }

  override render() {
    const payouts = this.payouts;
    const picking = this.mayChange && this.#pending.length > 0;
    const columns = picking ? 7 : 6;
    return html`<div class="head2">
        <h2 id="cash-payouts-h">Cash payouts</h2>
        <div class="actions filters">
          <div class="field">
            <label for="cash-filter">Filter payouts</label>
            <select id="cash-filter" @change=${(e: Event) => ((this.status = (e.target as HTMLSelectElement).value as CashPayoutStatus), void this.refresh())}>
              <option value="">All</option>
              ${CASH_PAYOUT_STATUSES.map((s) => html`<option value=${s} ?selected=${s === this.status}>${STATUS[s].label[0]!.toUpperCase()}${STATUS[s].label.slice(1)}</option>`)}
            </select>
          </div>
          <button @click=${() => this.refresh()}>Reload payouts</button>
        </div>
      </div>
      ${this.messages()}
      ${this.runId
        ? html`<div class="run-filter">
            <span>Run <code>${this.runId}</code> only.</span>
            <button class="small" @click=${() => this.#csv(this.runId)}>Download run CSV</button>
            <button class="small" @click=${() => this.showRun('')}>Show every run</button>
          </div>`
        : nothing}
      ${this.#selection()}
      <div class="table-wrap">
        <table class="records" aria-labelledby="cash-payouts-h">
          <thead>
            <tr>
              ${picking ? html`<th class="pick"><span class="sr-only">Select</span></th>` : nothing}
              <th>Participant</th><th class="num">Amount</th><th>Paid to</th><th>Status</th><th>Run</th><th>When</th>
            </tr>
          </thead>
          <tbody>
            ${payouts === undefined
              ? nothing
              : payouts.length === 0
                ? html`<tr><td colspan=${columns} class="empty">No ${this.status ? `${STATUS[this.status].label} ` : ''}cash payout${this.runId ? ' in this run' : ' yet'}.</td></tr>`
                : payouts.map((p) => this.#row(p, picking))}
          </tbody>
        </table>
      </div>
      ${this.next ? html`<button class="more" @click=${() => this.refresh(this.next)}>Older payouts</button>` : nothing}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-cash-payouts': CashPayouts;
  }
}
