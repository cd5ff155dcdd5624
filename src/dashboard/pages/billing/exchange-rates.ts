/**
 * The account's exchange rates (one set for every campaign, live and test): a base currency, units of it per
 * one unit of each other currency, and the date they were true. A payment in another currency than its
 * campaign's rewards is converted with them when its provider gave no amount in that currency; saving them
 * applies the events held for want of a rate.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { ExchangeRates as Rates } from '../../../api/payment-source-schemas.js';
import type { CampaignSettings } from '../../../api/client.js';
import { ApiError, api } from '../../api.js';
import { count, dateTime } from '../../format.js';
import { Page } from '../../page.js';
import { readTestMode } from '../../test-mode.js';

interface Row {
  currency: string;
  value: string;
}

/** A date as the rates' own: the day of `asOf` in UTC, as the service names it in an event's rate. */
const day = (iso: string) => new Date(iso).toLocaleDateString('en-US', { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric' });
const today = () => new Date().toISOString().slice(0, 10);
const CODE = /^[A-Z]{3}$/;

/**
 * @summary The "Exchange rates" card of the Billing page (account-wide).
 *
 * @property campaign - The campaign on screen: its reward currency is the base suggested when none is set.
 *
 * @event exchange-rates-saved - Bubbles after a save; `detail` is how many held events were applied.
 */
@customElement('rk-exchange-rates')
export class ExchangeRatesCard extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .top { display: grid; grid-template-columns: minmax(0, 10rem) minmax(0, 12rem); gap: 16px; }
      .table-wrap { width: fit-content; max-width: 100%; }
      table.rates td { vertical-align: top; }
      table.rates input.code { width: 6rem; text-transform: uppercase; }
      table.rates input.value { width: 11rem; max-width: 100%; }
      .row-error { color: var(--danger); font-size: 12px; font-weight: 500; margin-top: 4px; }
      .actions { margin-top: 12px; }
      p.current { margin: 0 0 12px; }
      @media (max-width: 640px) {
        .top { grid-template-columns: 1fr 1fr; }
        table.rates th, table.rates td { padding-left: 6px; padding-right: 6px; }
        table.rates th { white-space: normal; }
        table.rates input.code { width: 4.5rem; }
        table.rates input.value { width: 5.5rem; }
        table.rates input { padding-left: 8px; padding-right: 8px; }
      }
    `,
  ];
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  /** The saved rates; null when none are set, undefined until read. */
  @state() private rates: Rates | null | undefined;
  @state() private base = '';
  @state() private rows: Row[] = [];
  @state() private asOf = today();
  /** A problem found before sending (a currency twice, none at all), said beside the table. */
  @state() private tableError = '';

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  async #load() {
    const rates = await this.attempt(() => this.#plain403(() => api().getExchangeRates()));
    if (rates !== undefined) this.#show(rates);
  }

  /** The saved rates, and the form drafted from them. */
  #show(rates: Rates | null) {
    this.rates = rates;
    this.base = rates?.base ?? '';
    this.rows = rates ? Object.entries(rates.rates).sort(([a], [b]) => a.localeCompare(b)).map(([currency, v]) => ({ currency, value: String(v) })) : [{ currency: '', value: '' }];
    this.asOf = rates ? rates.asOf.slice(0, 10) : today();
  }

  /**
   * Runs a call, saying a 403 plainly: the rates are the whole account's, beyond test mode, so a test-mode
   * session (or a test key) may not set them; any other 403 (a role changed since sign-in) with the service's words.
   */
  async #plain403<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 403) throw err;
      const testMode = readTestMode() || /\btest\b/i.test(err.message);
      throw new ApiError(
        403,
        err.code,
        testMode
          ? 'Not saved: exchange rates are the whole account’s, for live and test campaigns alike, and test mode may not change them. Turn Test mode off (or use a live key) to set them.'
          : `Not saved: ${err.message}.`,
      );
    }
  }

  #edit(i: number, patch: Partial<Row>) {
    this.rows = this.rows.map((r, j) => (j === i ? { ...r, ...patch } : r));
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    this.notice = '';
    this.tableError = '';
    const base = this.base.trim().toUpperCase();
    const filled = this.rows.map((r) => ({ currency: r.currency.trim().toUpperCase(), value: r.value.trim() })).filter((r) => r.currency || r.value);
    const twice = filled.find((r, i) => filled.findIndex((x) => x.currency === r.currency) !== i);
    if (filled.length === 0) this.tableError = 'Add at least one currency and its rate.';
    else if (twice) this.tableError = `${twice.currency} is listed twice: keep one row of it.`;
    if (this.tableError) return;
    const rates = Object.fromEntries(filled.map((r) => [r.currency, Number(r.value)]));
    const saved = await this.attempt(() => this.#plain403(() => api().setExchangeRates({ base, rates, asOf: `${this.asOf}T00:00:00.000Z` })));
    if (!saved) return;
    this.#show(saved);
    this.notice = `Exchange rates saved: ${count(saved.applied, 'held event', 'held events')} applied.`;
    this.dispatchEvent(new CustomEvent('exchange-rates-saved', { detail: saved.applied, bubbles: true, composed: true }));
  }

  /** The service's refusal of `field` (`base`, `asOf`, `rates.EUR`), said beside it. */
  #errorOf(field: string) {
    return this.errorField === field ? this.error : '';
  }

  #fieldError(id: string, message: string) {
    return message ? html`<div class="field-error" id=${id} role="alert">${message}</div>` : nothing;
  }

  /** Read only, for a viewer: the saved rates as sentences a table row each. */
  #readOnly(r: Rates) {
    return html`<div class="table-wrap">
      <table class="rates" aria-label="Exchange rates">
        <thead><tr><th>Currency</th><th class="num">Units of ${r.base} per unit</th></tr></thead>
        <tbody>
          ${Object.entries(r.rates)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([c, v]) => html`<tr><td><code>${c}</code></td><td class="num">${v} <span class="muted">(1 ${c} = ${v} ${r.base})</span></td></tr>`)}
        </tbody>
      </table>
    </div>`;
  }

  #form() {
    const base = this.base.trim().toUpperCase() || 'base';
    const baseError = this.#errorOf('base');
    const asOfError = this.#errorOf('asOf');
    const ratesError = this.tableError || this.#errorOf('rates');
    return html`<form @submit=${this.#save}>
      <div class="top">
        <div class="field">
          <label for="er-base">Base currency</label>
          <input id="er-base" required maxlength="3" pattern="[A-Za-z]{3}" autocomplete="off" placeholder=${this.campaign?.rewardCurrency ?? 'USD'}
            .value=${this.base} @input=${(e: Event) => (this.base = (e.target as HTMLInputElement).value.toUpperCase())}
            aria-invalid=${baseError ? 'true' : 'false'} aria-describedby=${baseError ? 'er-base-error' : nothing} />
          ${this.#fieldError('er-base-error', baseError)}
        </div>
        <div class="field">
          <label for="er-asof">Rates as of</label>
          <input id="er-asof" type="date" required .value=${this.asOf} @input=${(e: Event) => (this.asOf = (e.target as HTMLInputElement).value)}
            aria-invalid=${asOfError ? 'true' : 'false'} aria-describedby=${asOfError ? 'er-asof-error' : nothing} />
          ${this.#fieldError('er-asof-error', asOfError)}
        </div>
      </div>
      <div class="table-wrap">
        <table class="rates" aria-label="Exchange rates" aria-describedby=${ratesError ? 'er-rates-error' : nothing}>
          <thead><tr><th>Currency</th><th>Units of ${base} per unit</th><th><span class="sr-only">Remove</span></th></tr></thead>
          <tbody>
            ${this.rows.map((r, i) => {
              const code = r.currency.trim().toUpperCase();
              const error = CODE.test(code) ? this.#errorOf(`rates.${code}`) : '';
              return html`<tr>
                <td>
                  <input class="code" required maxlength="3" pattern="[A-Za-z]{3}" autocomplete="off" placeholder="EUR" aria-label="Currency ${i + 1}"
                    .value=${r.currency} @input=${(e: Event) => this.#edit(i, { currency: (e.target as HTMLInputElement).value.toUpperCase() })} />
                </td>
                <td>
                  <input class="value" type="number" required min="0" step="any" inputmode="decimal" placeholder="1.08"
                    aria-label=${code ? `Units of ${base} per 1 ${code}` : `Rate of row ${i + 1}`} .value=${r.value}
                    @input=${(e: Event) => this.#edit(i, { value: (e.target as HTMLInputElement).value })}
                    aria-invalid=${error ? 'true' : 'false'} aria-describedby=${error ? `er-row-${i}` : nothing} />
                  ${error ? html`<div class="row-error" id="er-row-${i}" role="alert">${error}</div>` : nothing}
                </td>
                <td>
                  <button type="button" class="small danger-ghost" ?disabled=${this.rows.length === 1} @click=${() => (this.rows = this.rows.filter((_, j) => j !== i))}>
                    Remove ${code || `row ${i + 1}`}
                  </button>
                </td>
              </tr>`;
            })}
          </tbody>
        </table>
      </div>
      ${this.#fieldError('er-rates-error', ratesError)}
      <div class="actions">
        <button type="button" class="small" @click=${() => (this.rows = [...this.rows, { currency: '', value: '' }])}>Add currency</button>
        <button type="submit" class="primary">Save exchange rates</button>
      </div>
    </form>`;
  }

  override render() {
    const r = this.rates;
    const fieldError = this.errorField !== undefined && (this.errorField === 'base' || this.errorField === 'asOf' || this.errorField.startsWith('rates'));
    return html`<section class="card" aria-labelledby="rates-h">
      <h2 id="rates-h">Exchange rates</h2>
      <p class="muted">
        For every campaign of this account, live and test. A payment in another currency than its campaign’s rewards is converted with the amount its provider
        settled in that currency (Paddle’s payout, Shopify’s shop money), else with these rates, else held until rates convert it. Saving them applies the events held.
      </p>
      ${fieldError ? html`<div role="status">${this.notice ? html`<div class="notice">${this.notice}</div>` : nothing}</div>` : this.messages()}
      ${r === undefined
        ? nothing
        : html`<p class="current" id="rates-current">
            ${r
              ? html`Base <strong>${r.base}</strong>, rates as of <strong>${day(r.asOf)}</strong> <span class="muted">(saved ${dateTime(r.updatedOn)})</span>.`
              : html`No rates set yet: payments in another currency than their campaign’s, which their provider did not convert, are held.`}
          </p>
          ${this.mayChange ? this.#form() : r ? this.#readOnly(r) : nothing}`}
    </section>`;
  }
}
