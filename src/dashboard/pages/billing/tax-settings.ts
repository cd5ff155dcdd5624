/**
 * The account's tax settings (`tax`): per calendar year, the USD amount paid to one person past which a
 * payout run needs their tax details (a W-9 or W-8BEN) and skips them until then; and how many years tax
 * details and payout records are kept after a person is erased.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { TaxSettings } from '../../../api/payout-schemas.js';
import type { AccountSettings } from '../../../api/settings-schemas.js';
import { api } from '../../api.js';
import { Page } from '../../page.js';

interface Row {
  year: string;
  amount: string;
}

const rowsOf = (tax: TaxSettings): Row[] =>
  Object.entries(tax.thresholds)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([year, amount]) => ({ year, amount: String(amount) }));

/**
 * @summary The tax card of the Payout providers page.
 *
 * @property settings - The account's settings, as last read.
 *
 * @event account-settings-changed - Bubbles with the settings the service answered after a save.
 */
@customElement('rk-tax-settings')
export class TaxSettingsCard extends Page {
  static override styles = [
    ...Page.styles,
    css`
      table.years { width: auto; min-width: min(100%, 420px); }
      table.years td { padding: 8px 12px; }
      table.years input { width: 9em; }
      .years-wrap { display: inline-block; max-width: 100%; margin-bottom: 8px; }
      .years-actions { margin-bottom: 16px; }
      .keep { display: flex; align-items: center; gap: 8px; }
      .keep input { width: 6em; }
      @media (max-width: 640px) { .years-wrap { display: block; } table.years input { width: 100%; } }
    `,
  ];
  @property({ attribute: false }) settings: AccountSettings | undefined;
  /** The thresholds as edited, until saved. */
  @state() private rows: Row[] = [];

  protected override willUpdate(changed: Map<string, unknown>): void {
    // Settings read again after another card's save leave thresholds being edited here as they are.
    const before = changed.get('settings') as AccountSettings | undefined;
    if (changed.has('settings') && this.settings && JSON.stringify(before?.tax) !== JSON.stringify(this.settings.tax)) this.rows = rowsOf(this.settings.tax);
  }

  #set(i: number, part: keyof Row, value: string) {
    this.rows = this.rows.map((r, j) => (j === i ? { ...r, [part]: value } : r));
  }

  #add() {
    const last = Math.max(new Date().getFullYear() - 1, ...this.rows.map((r) => Number(r.year) || 0));
    this.rows = [...this.rows, { year: String(last + 1), amount: this.rows.at(-1)?.amount ?? '2000' }];
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    this.notice = '';
    const years = this.rows.map((r) => r.year.trim());
    const twice = years.find((y, i) => years.indexOf(y) !== i);
    if (twice) {
      this.error = `${twice} is given twice: one threshold a year.`;
      this.errorField = `tax.thresholds.${twice}`;
      return;
    }
    const thresholds = Object.fromEntries(this.rows.map((r) => [r.year.trim(), Number(r.amount)]));
    const retentionYears = Number(new FormData(e.currentTarget as HTMLFormElement).get('retentionYears'));
    const saved = await this.attempt(() => api().updateAccountSettings({ tax: { thresholds, retentionYears } }));
    if (!saved) return;
    this.notice = 'Tax settings saved.';
    this.dispatchEvent(new CustomEvent('account-settings-changed', { detail: saved, bubbles: true, composed: true }));
  }

  #row(r: Row, i: number) {
    const n = i + 1;
    return html`<tr>
      <td data-label="Year"><input type="text" inputmode="numeric" pattern="20[0-9]{2}" required aria-label="Year ${n}" .value=${r.year}
        aria-invalid=${this.errorField === `tax.thresholds.${r.year.trim()}` ? 'true' : 'false'} @input=${(e: Event) => this.#set(i, 'year', (e.target as HTMLInputElement).value)} /></td>
      <td data-label="Threshold (USD)"><input type="number" min="0" max="1000000000" step="1" required aria-label="Threshold of year ${n}, USD" .value=${r.amount} @input=${(e: Event) => this.#set(i, 'amount', (e.target as HTMLInputElement).value)} /></td>
      <td>${this.mayChange ? html`<button type="button" class="small danger-ghost" aria-label="Remove year ${r.year || n}" @click=${() => (this.rows = this.rows.filter((_, j) => j !== i))}>Remove</button>` : nothing}</td>
    </tr>`;
  }

  override render() {
    const tax = this.settings?.tax;
    return html`<section class="card" aria-labelledby="tax-h">
      <h2 id="tax-h">Tax details</h2>
      <p class="muted">
        Before a payout takes the US dollars paid to one person in a calendar year past that year’s threshold, Refkit needs their tax details (a W-9,
        or a W-8BEN from a foreign person); runs skip them until they give them. A year without a threshold has the latest earlier one’s. Not tax
        advice: check the thresholds that apply to you.
      </p>
      ${this.messages()}
      ${tax
        ? html`<form @submit=${this.#save}>
            <fieldset ?disabled=${!this.mayChange}>
              <div class="table-wrap years-wrap">
                <table class="records years">
                  <caption class="sr-only">Thresholds per year</caption>
                  <thead><tr><th>Year</th><th>Threshold (USD)</th><th><span class="sr-only">Remove</span></th></tr></thead>
                  <tbody>
                    ${this.rows.length === 0 ? html`<tr><td colspan="3" class="empty">No threshold: 600 USD a year applies.</td></tr>` : this.rows.map((r, i) => this.#row(r, i))}
                  </tbody>
                </table>
              </div>
              ${this.mayChange ? html`<div class="years-actions"><button type="button" class="small" @click=${this.#add}>Add a year</button></div>` : nothing}
              <div class="field">
                <label for="retentionYears">Keep tax details and payout records</label>
                <div class="keep">
                  <input id="retentionYears" name="retentionYears" type="number" inputmode="numeric" min="1" max="10" step="1" required .value=${String(tax.retentionYears)}
                    aria-invalid=${this.errorField === 'tax.retentionYears' ? 'true' : 'false'} aria-describedby="retention-hint" />
                  <span>years after a person is erased</span>
                </div>
                <div class="hint" id="retention-hint">What the tax authority may ask for outlives an erasure; the rest of the person goes at once.</div>
              </div>
            </fieldset>
            ${this.mayChange ? html`<div class="actions"><button class="primary" type="submit">Save tax settings</button></div>` : nothing}
          </form>`
        : nothing}
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-tax-settings': TaxSettingsCard;
  }
}
