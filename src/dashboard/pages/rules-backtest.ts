/**
 * The rules editor's "What would this have cost?": replays the campaign's recorded history under the
 * rules being edited (saved or not) beside its current rules (POST /api/v1/admin/backtestRules), and
 * shows per month what each would have credited, paid, held and reversed, the milestone and ceiling hits
 * and the codes used, with the difference, and what the backtest cannot know.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings } from '../../api/client.js';
import type { BacktestAnswer, BacktestFigures, BacktestRow, BacktestRules } from '../../api/backtest-schemas.js';
import { api } from '../api.js';
import { n, reward } from '../format.js';
import { Page } from '../page.js';

const AMOUNTS: [keyof BacktestFigures, string][] = [
  ['credited', 'Credited'],
  ['paid', 'Paid'],
  ['held', 'Held'],
  ['reversed', 'Reversed'],
];
const COUNTS: [keyof BacktestFigures, string][] = [
  ['milestoneHits', 'Milestones'],
  ['capHits', 'Ceiling hits'],
  ['codesUsed', 'Codes used'],
];
const SIDES: [keyof BacktestRow, string][] = [
  ['current', 'Current rules'],
  ['proposed', 'These rules'],
  ['difference', 'Difference'],
];

/** YYYY-MM of a date, `back` months earlier. */
const monthOf = (d: Date, back = 0) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - back, 1)).toISOString().slice(0, 7);
const signed = (v: number, text: string) => (v > 0 ? `+${text}` : text);

/**
 * @summary The offer backtest panel of the rules editor.
 *
 * @property campaignId - The campaign.
 * @property campaign - Its settings: amounts are written in its currency or unit.
 * @property rules - The rules as edited (fixed rewards and reward rules), not yet saved.
 */
@customElement('rk-rules-backtest')
export class RulesBacktest extends Page {
  static override styles = [
    ...Page.styles,
    css`
      /* In the editor's rules fieldset, whose width follows its content: the containment keeps the wide table from widening it (the table scrolls in its own box). */
      :host { display: block; contain: inline-size; }
      .table-wrap { overflow-x: auto; max-width: 100%; }
      .period { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; }
      .period .field { margin: 0; }
      tbody th { background: none; color: var(--text); font-size: 14px; font-weight: 500; white-space: nowrap; }
      tr.difference td, tr.difference th { font-weight: 650; }
      tr.month-start th, tr.month-start td { border-top: 2px solid var(--border, #ddd); }
      .limitations { font-size: 13px; }
      /*
       * Eight columns of figures do not fit the rules column beside the preview (about 470 px at 1280):
       * there, as on a phone, each row is a card (the shared records style, by the width of this panel
       * rather than of the screen: a container query, kept to this panel so that no other table changes).
       */
      .table-wrap { container-type: inline-size; }
      @container (max-width: 640px) {
        table.records thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0, 0, 0, 0); }
        table.records, table.records tbody, table.records tr, table.records td, table.records th { display: block; width: 100%; }
        table.records tr { border-bottom: 1px solid var(--border); padding: 8px 0; }
        table.records td, table.records th { border: 0; padding: 4px 16px; }
        table.records td[data-label] { display: flex; justify-content: space-between; gap: 12px; text-align: right; }
        table.records td[data-label]::before { content: attr(data-label); color: var(--muted); font-size: 12px; font-weight: 600; text-align: left; }
      }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @property({ attribute: false }) rules: BacktestRules = {};
  @state() private open = false;
  /** From the campaign's first month (the months that have data), at most 120 months back; until the owner picks. */
  @state() private from = monthOf(new Date(), 11);
  @state() private to = monthOf(new Date());
  #picked = false;
  @state() private busy = false;
  @state() private answer: BacktestAnswer | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    const created = this.campaign?.createdOn;
    if (changed.has('campaign') && created && !this.#picked) {
      const first = monthOf(new Date(created));
      const oldest = monthOf(new Date(), 119);
      this.from = first < oldest ? oldest : first;
    }
  }

  #pick(which: 'from' | 'to', e: Event) {
    this.#picked = true;
    this[which] = (e.target as HTMLInputElement).value;
  }

  async #run(e: Event) {
    e.preventDefault();
    this.busy = true;
    this.answer = (await this.attempt(() => api().backtestRules({ id: this.campaignId, rules: this.rules, from: this.from, to: this.to }))) ?? this.answer;
    this.busy = false;
  }

  #cell(side: keyof BacktestRow, key: keyof BacktestFigures, v: number, amount: boolean) {
    const text = amount ? reward(v, this.campaign) : n(v);
    return side === 'difference' ? signed(v, text) : text;
  }

  #rows(label: string, row: BacktestRow) {
    return SIDES.map(
      ([side, name], i) => html`<tr class="${side} ${i === 0 ? 'month-start' : ''}">
        <th scope="row">${i === 0 ? html`<strong>${label}</strong><br />` : nothing}${name}</th>
        ${AMOUNTS.map(([k, title]) => html`<td class="num" data-label=${title}>${this.#cell(side, k, row[side][k], true)}</td>`)}
        ${COUNTS.map(([k, title]) => html`<td class="num" data-label=${title}>${this.#cell(side, k, row[side][k], false)}</td>`)}
      </tr>`,
    );
  }

  override render() {
    if (!this.open) {
      return html`<button type="button" class="ghost" id="backtest-open" @click=${() => (this.open = true)}>What would this have cost?</button>`;
    }
    const a = this.answer;
    return html`<section class="backtest" aria-labelledby="backtest-h">
      <h3 id="backtest-h">What would this have cost?</h3>
      <p class="muted">Replays this campaign's recorded referrals, payments and refunds under the rules above (saved or not), beside its current rules. Nothing is changed.</p>
      <form class="period" @submit=${this.#run}>
        <div class="field">
          <label for="backtest-from">From</label>
          <input id="backtest-from" type="month" required .value=${this.from} @input=${(e: Event) => this.#pick('from', e)} />
        </div>
        <div class="field">
          <label for="backtest-to">To</label>
          <input id="backtest-to" type="month" required .value=${this.to} @input=${(e: Event) => this.#pick('to', e)} />
        </div>
        <button type="submit" id="backtest-run" ?disabled=${this.busy}>${this.busy ? 'Replaying…' : 'Run the backtest'}</button>
      </form>
      ${this.messages()}
      ${a
        ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Backtest table (scrolls sideways)">
              <table class="records" aria-label="Backtest, per month">
                <thead>
                  <tr>
                    <th>Month</th>
                    ${[...AMOUNTS, ...COUNTS].map(([, title]) => html`<th class="num">${title}</th>`)}
                  </tr>
                </thead>
                <tbody>
                  ${this.#rows('Total', a.total)} ${a.months.map((m) => this.#rows(m.month, m))}
                </tbody>
              </table>
            </div>
            <details class="limitations" open>
              <summary>What this cannot know</summary>
              <ul>
                ${a.limitations.map((l) => html`<li>${l}</li>`)}
              </ul>
            </details>`
        : nothing}
    </section>`;
  }
}
