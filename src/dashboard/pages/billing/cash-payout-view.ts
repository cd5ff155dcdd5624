/**
 * How the Payouts page writes a cash payout: its status as a badge with the reason under it, its method,
 * its amount, and a run's payouts as CSV (read from listPayouts, a page at a time, and written here: the
 * service has no export of a run).
 */
import { html, nothing } from 'lit';
import type { CashPayout, CashPayoutStatus, PayoutMethod } from '../../../api/payout-schemas.js';
import { api } from '../../api.js';
import { download, toCsv } from '../../csv.js';
import { money } from '../../format.js';

/** Each status in the owner's words, and its badge's colour. */
export const STATUS: Record<CashPayoutStatus, { label: string; badge: string }> = {
  pending_approval: { label: 'pending approval', badge: 'warn' },
  sending: { label: 'sending', badge: 'info' },
  sent: { label: 'sent', badge: 'info' },
  paid: { label: 'paid', badge: 'ok' },
  failed: { label: 'failed', badge: 'danger' },
  returned: { label: 'returned', badge: 'danger' },
  unclaimed: { label: 'unclaimed', badge: 'warn' },
  cancelled: { label: 'cancelled', badge: '' },
};

export const METHOD: Record<PayoutMethod, string> = { paypal: 'PayPal', stripe_connect: 'Stripe Connect' };

/** Cash is paid in whole units of the currency; written with its cents, as a bank statement would. */
export const cash = (amount: number, currency: string) => money(amount, currency);

/** A moment to the minute, without the year: the list's dates are recent. */
const short = (iso: string) => new Date(iso).toLocaleString('en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

/** When it was made, and when it was sent or settled (with what it became). */
export function whenCell(p: Pick<CashPayout, 'status' | 'createdAt' | 'sentAt' | 'settledAt'>) {
  const later = p.settledAt ? `${STATUS[p.status].label} ${short(p.settledAt)}` : p.sentAt ? `sent ${short(p.sentAt)}` : '';
  return html`<span>${short(p.createdAt)}${later ? html`<span class="muted later">${later}</span>` : nothing}</span>`;
}

export function statusCell(p: Pick<CashPayout, 'status' | 'reason'>) {
  const s = STATUS[p.status];
  return html`<span class="badge ${s.badge}">${s.label}</span>${p.reason ? html`<span class="muted reason">${p.reason}</span>` : nothing}`;
}

/** The total of some payouts, per currency (a campaign has one, but a list could in principle hold two). */
export function totals(payouts: readonly Pick<CashPayout, 'amount' | 'currency'>[]): string {
  const sums = new Map<string, number>();
  for (const p of payouts) sums.set(p.currency, (sums.get(p.currency) ?? 0) + p.amount);
  return [...sums].map(([currency, sum]) => cash(sum, currency)).join(' + ') || cash(0, 'USD');
}

const COLUMNS = ['payoutId', 'runId', 'email', 'amount', 'referralAmount', 'refereeAmount', 'currency', 'method', 'destination', 'status', 'reason', 'providerId', 'createdAt', 'sentAt', 'settledAt'];
const PAGE_SIZE = 100;

/** Every payout of a run, oldest first (the list is newest first), read a page at a time. */
async function runPayouts(campaignId: string, runId: string): Promise<CashPayout[]> {
  const all: CashPayout[] = [];
  let cursor: string | undefined;
  do {
    const page = await api().listPayoutsPage(campaignId, { runId, pageSize: PAGE_SIZE, ...(cursor && { cursor }) });
    all.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return all.reverse();
}

/** Downloads a run's payouts as CSV; answers how many it holds. */
export async function downloadRunCsv(campaignId: string, runId: string): Promise<number> {
  const payouts = await runPayouts(campaignId, runId);
  const rows = payouts.map((p) => [p.id, p.runId, p.email, p.amount, p.referralAmount, p.refereeAmount, p.currency, p.method, p.destination, p.status, p.reason, p.providerId, p.createdAt, p.sentAt, p.settledAt]);
  download(`refkit-payouts-${campaignId}-${runId}.csv`, toCsv(COLUMNS, rows));
  return payouts.length;
}
