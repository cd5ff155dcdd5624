/**
 * A participant's payout data in exportPerson and erasePerson (../../privacy/domain/): their payout method,
 * their tax details (the TIN masked) and their payouts. An erasure removes the method and rewrites the
 * PayPal address their payouts were sent to; tax details stay while the account's `tax.retentionYears`
 * keeps them (a payer must keep what it filed on: docs/privacy.md#payouts), counted from the year of the
 * person's last paid payout, and go with the erasure otherwise. Kept ones are marked with the end of that
 * period, when the retention pruner deletes them (../../privacy/domain/retention.ts).
 */
import type { CashPayout, PayoutMethodView, TaxDetailsView } from '../../../api/payout-schemas.js';
import type { Store } from '../../store/store.js';
import { presentPayout } from './payout-runs.js';
import { presentPayoutMethod } from './payout-methods.js';
import { maskTin, taxSettingsIn } from './tax-details.js';
import { iso } from '../../kernel/time.js';

export interface PayoutData {
  payoutMethod: PayoutMethodView;
  taxDetails: TaxDetailsView | null;
  payouts: CashPayout[];
}

export async function payoutDataOf(store: Store, participantId: number, email: string): Promise<PayoutData> {
  const [method, tax, payouts] = await Promise.all([
    store.payoutProfiles.method(participantId),
    store.payoutProfiles.taxDetails(participantId),
    store.cashPayouts.ofParticipant(participantId, 1000),
  ]);
  return {
    payoutMethod: presentPayoutMethod(method),
    taxDetails: tax ? { form: tax.form, legalName: tax.legal_name, tin: maskTin(tax.tin_last4), country: tax.country, updatedAt: iso(Number(tax.updated_on)) } : null,
    payouts: payouts.map((r) => presentPayout({ ...r, email })),
  };
}

/** In the erasure's transaction. `erasedEmail` is what the participant's address became. */
export async function erasePayoutData(tx: Store, accountId: number, participantId: number, erasedEmail: string, now: number): Promise<void> {
  const { retentionYears } = await taxSettingsIn(tx, accountId);
  const lastPaid = (await tx.cashPayouts.ofParticipant(participantId, 1000)).filter((p) => p.status === 'paid').map((p) => Number(p.settled_on ?? 0));
  const keepUntil = lastPaid.length > 0 ? Date.UTC(new Date(Math.max(...lastPaid)).getUTCFullYear() + 1 + retentionYears, 0, 1) : 0;
  await tx.payoutProfiles.erase(participantId, now < keepUntil ? keepUntil : undefined);
  await tx.payoutProfiles.scrubDestinations(participantId, erasedEmail);
}
