/**
 * Which credits are paid into Stripe: with the campaign's stripeRewardMode on, every credit that becomes
 * available (at once, or when its hold ends) for what it adds to the balance (after netting what the
 * participant owed) is queued for the Stripe sender (./stripe-payouts.ts), in the same
 * transaction (RewardBatch commits the queue with its entries), so no credit is paid twice or forgotten.
 */
import type { NewStripePayout } from '../store/stripe-payout-store.js';
import type { CampaignRow, RewardKind, Store } from '../../store/store.js';
import { newId } from '../../kernel/ids.js';

export class PayoutQueue {
  readonly #rows: NewStripePayout[] = [];

  constructor(
    private readonly campaign: CampaignRow,
    private readonly now: number,
  ) {}

  /** A credit of `amount` reward units became available to the participant's balance. */
  add(participantId: number, kind: RewardKind, amount: number, label: string): void {
    const mode = this.campaign.stripe_reward_mode;
    if (mode === 'off' || amount <= 0) return;
    this.#rows.push({
      campaign_id: this.campaign.id,
      participant_id: participantId,
      reward_kind: kind,
      amount,
      currency: this.campaign.reward_currency,
      mode,
      label,
      idempotency_key: newId('refkit_payout', 24),
      status: 'queued',
      next_attempt_on: this.now,
      created_on: this.now,
      updated_on: this.now,
    });
  }

  /** Writes the queued payouts, in the caller's transaction. */
  async commit(tx: Store): Promise<void> {
    await tx.stripePayouts.insert(this.#rows);
  }
}
