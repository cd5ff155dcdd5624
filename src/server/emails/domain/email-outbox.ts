/**
 * A lifecycle email's outbox row, and whether a campaign's email of a kind is written at all: what every
 * change that causes an email (./lifecycle-emails.ts, grants in ../../engagement/domain/waitlist.ts) writes in its transaction.
 */
import type { EmailKind } from '../../../api/email-schemas.js';
import type { NewEmail } from '../store/email-store.js';
import type { CampaignRow, Store } from '../../store/store.js';
import { sends } from './email-settings.js';
import { newSortableId } from '../../kernel/ids.js';

/** What an email's variables are made from, beside the recipient and the campaign. */
export interface EmailData {
  /** The reward credited or released, in the campaign's units. */
  amount?: number;
  /** When a held reward becomes available (ms). */
  availableOn?: number;
  rewardCode?: string;
  /** The friend it is about: a first name, or the email masked. */
  friend?: string;
  milestone?: string;
  referrals?: number;
  /** A place on the leaderboard, and how many places it shows. */
  rank?: number;
  places?: number;
  /** The currency `amount` is in when it is not the campaign's reward format: a cash payout's (ISO). */
  currency?: string;
  /**
   * Why a cash payout did not reach the participant, as the email words it: `account`, the PayPal account
   * did not take it (returned, unclaimed); `payment`, the payment did not go through (failed, refused).
   */
  payoutProblem?: PayoutProblem;
}

export type PayoutProblem = 'account' | 'payment';

export function outboxEmail(campaign: CampaignRow, participantId: number, kind: EmailKind, changeKey: string, data: EmailData, now: number): NewEmail {
  return {
    id: newSortableId('eml', 16, now),
    campaign_id: campaign.id,
    participant_id: participantId,
    kind,
    change_key: changeKey,
    data: JSON.stringify(data),
    created_on: now,
  };
}

/** Whether this campaign's `kind` emails are written by this process. */
export const writesEmail = (tx: Store, campaign: CampaignRow, kind: EmailKind): boolean => tx.emails.enabled && sends(campaign, kind);

