/**
 * The year's 1099-NEC candidates (exportTaxReport), as CSV: the people an account paid by PayPal in USD
 * from its live campaigns in the calendar year (UTC), with at least the year's threshold in all, who are
 * not known to be foreign persons (a W-8BEN). Stripe Connect payouts are left out: Stripe collects its
 * connected accounts' tax details and files their 1099s itself. A list to start from, not tax advice.
 */
import { stringify } from 'csv-stringify';
import type { Actor, Ctx } from '../../kernel/context.js';
import { spreadsheetSafe } from '../../kernel/csv-cells.js';
import { maskTin, taxSettings, thresholdOf } from './tax-details.js';

const COLUMNS = ['email', 'legalName', 'taxForm', 'tin', 'address', 'country', 'payouts', 'totalUsd', 'threshold'] as const;

export async function exportTaxReport(ctx: Ctx, actor: Actor, year: number): Promise<string> {
  const threshold = thresholdOf(await taxSettings(ctx, actor.accountId), year);
  const rows = await ctx.store.cashPayouts.paidPerPerson(actor.accountId, Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1));
  const people = new Map<number, { email: string; legalName: string; form: string; tin: string; address: string; country: string; payouts: number; total: number }>();
  for (const r of rows) {
    if (r.method !== 'paypal' || r.form === 'w8ben') continue;
    const id = Number(r.participant_id);
    const was = people.get(id);
    const total = Number(r.total) + (was?.total ?? 0);
    const payouts = Number(r.payouts) + (was?.payouts ?? 0);
    people.set(id, { email: r.email, legalName: r.legal_name ?? '', form: r.form ?? '', tin: r.tin_last4 ? maskTin(r.tin_last4) : '', address: r.address ?? '', country: r.country ?? '', payouts, total });
  }
  const csv = stringify({ header: true, columns: [...COLUMNS], cast: { string: spreadsheetSafe } });
  const chunks: string[] = [];
  csv.on('data', (c: string) => chunks.push(c));
  const done = new Promise<void>((resolve, reject) => {
    csv.on('end', resolve);
    csv.on('error', reject);
  });
  for (const p of [...people.values()].filter((x) => x.total >= threshold).sort((a, b) => a.email.localeCompare(b.email))) {
    csv.write({ email: p.email, legalName: p.legalName, taxForm: p.form, tin: p.tin, address: p.address, country: p.country, payouts: p.payouts, totalUsd: p.total, threshold });
  }
  csv.end();
  await done;
  return chunks.join('');
}
