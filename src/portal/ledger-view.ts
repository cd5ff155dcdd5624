/**
 * The participant's money, as the dashboard shows tables (its styles: stat tiles, `table.records`, which
 * become cards of label-value lines on a phone): what is pending, available and held by payouts, the
 * reward ledger's entries with their state and dates, and the payouts with their status.
 */
import { html, nothing } from 'lit';
import type { CashPayout, CashPayoutStatus } from '../api/payout-schemas.js';
import type { PortalLedgerEntry, PortalMe } from '../api/portal-schemas.js';
import { t } from './texts.js';

type Amount = (value: number) => string;
type Dates = (iso: string) => string;

/** A state's badge tone (the dashboard's .badge colours). */
const ENTRY_TONES: Record<PortalLedgerEntry['state'], string> = { pending: 'warn', available: 'ok', reversed: 'danger', redeemed: 'info', cancelled: '' };

const PAYOUT_TONES: Record<CashPayoutStatus, string> = {
  pending_approval: 'warn',
  sending: 'info',
  sent: 'info',
  paid: 'ok',
  failed: 'danger',
  returned: 'danger',
  unclaimed: 'warn',
  cancelled: '',
};

export const methodName = (method: CashPayout['method']) => (method === 'paypal' ? 'PayPal' : t.bankThroughStripe());

const badge = (tone: string, label: string) => html`<span class="badge ${tone}">${label}</span>`;

export function balances(me: PortalMe, amount: Amount) {
  const tile = (label: string, value: number, stat: string) =>
    html`<div class="stat"><div class="label">${label}</div><div class="value" data-stat=${stat}>${amount(value)}</div></div>`;
  return html`<div class="stats">
    ${tile(t.available(), me.ledger.available, 'available')} ${tile(t.pending(), me.ledger.pending, 'pending')}
    ${me.ledger.inPayouts > 0 ? tile(t.inPayouts(), me.ledger.inPayouts, 'in-payouts') : nothing}
  </div>`;
}

export function ledgerTable(me: PortalMe, amount: Amount, date: Dates) {
  const entries = me.ledger.entries;
  return html`<section aria-labelledby="ledger-title">
    <div class="head2"><h2 id="ledger-title">${t.rewardHistory()}</h2></div>
    <div class="table-wrap">
      <table class="records">
        <thead>
          <tr>
            <th scope="col">${t.date()}</th>
            <th scope="col">${t.what()}</th>
            <th scope="col" class="num">${t.amount()}</th>
            <th scope="col">${t.state()}</th>
            <th scope="col">${t.availableOn()}</th>
          </tr>
        </thead>
        <tbody>
          ${entries.length === 0
            ? html`<tr><td class="empty" colspan="5">${t.noRewards()}</td></tr>`
            : entries.map(
                (e) => html`<tr data-entry-state=${e.state}>
                  <td class="when" data-label=${t.date()}>${date(e.createdOn)}</td>
                  <td data-label=${t.what()}>${t.entryKinds[e.kind]()}</td>
                  <td class="num" data-label=${t.amount()}>${amount(e.amount)}</td>
                  <td data-label=${t.state()}>${badge(ENTRY_TONES[e.state], t.entryStates[e.state]())}</td>
                  <td class="when" data-label=${t.availableOn()}>${date(e.availableOn)}</td>
                </tr>`,
              )}
        </tbody>
      </table>
    </div>
    ${me.ledger.more ? html`<p class="muted hint">${t.olderNotShown()}</p>` : nothing}
  </section>`;
}

export function payoutsTable(me: PortalMe, locale: string, date: Dates) {
  const money = (p: CashPayout) => {
    try {
      return new Intl.NumberFormat(locale, { style: 'currency', currency: p.currency, maximumFractionDigits: 0 }).format(p.amount);
    } catch {
      return `${p.amount} ${p.currency}`;
    }
  };
  return html`<section aria-labelledby="payouts-title">
    <div class="head2"><h2 id="payouts-title">${t.payouts()}</h2></div>
    <div class="table-wrap">
      <table class="records">
        <thead>
          <tr>
            <th scope="col">${t.date()}</th>
            <th scope="col" class="num">${t.amount()}</th>
            <th scope="col">${t.paidTo()}</th>
            <th scope="col">${t.status()}</th>
          </tr>
        </thead>
        <tbody>
          ${me.payouts.length === 0
            ? html`<tr><td class="empty" colspan="4">${t.noPayouts()}</td></tr>`
            : me.payouts.map(
                (p) => html`<tr data-payout-status=${p.status}>
                  <td class="when" data-label=${t.date()}>${date(p.createdAt)}</td>
                  <td class="num" data-label=${t.amount()}>${money(p)}</td>
                  <td data-label=${t.paidTo()}><span>${methodName(p.method)}: <bdi>${p.destination}</bdi></span></td>
                  <td data-label=${t.status()}>${badge(PAYOUT_TONES[p.status], t.payoutStatuses[p.status]())}</td>
                </tr>`,
              )}
        </tbody>
      </table>
    </div>
  </section>`;
}
