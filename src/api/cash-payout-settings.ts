/** The campaign field `cashPayouts` and the payout methods (apart from ./payout-schemas.ts, which imports ./schemas.ts: ./schemas.ts imports this). */
import { Type, type Static } from '@sinclair/typebox';

export const PAYOUT_METHODS = ['paypal', 'stripe_connect'] as const;
export const PayoutMethod = Type.Union(
  PAYOUT_METHODS.map((m) => Type.Literal(m)),
  { description: '`paypal` (PayPal Payouts to an email address) or `stripe_connect` (a transfer to the participant\'s Stripe Connect Express account)' },
);
export type PayoutMethod = Static<typeof PayoutMethod>;

/** The campaign field `cashPayouts`: null (or absent) pays no cash. */
export const CashPayoutSettings = Type.Object(
  {
    methods: Type.Array(PayoutMethod, { minItems: 1, maxItems: 2, uniqueItems: true, description: 'The methods a participant may choose' }),
    minimum: Type.Integer({ minimum: 0, maximum: 1_000_000, 'x-finite': true, description: 'The least a payout pays, in whole units of rewardCurrency' }),
    schedule: Type.Union([Type.Literal('manual'), Type.Literal('monthly')], {
      description: 'manual: runs are made with createPayouts; monthly: a run is made on the first day of each month (a test campaign by its clock)',
    }),
    approval: Type.Boolean({ description: 'true: a run\'s payouts wait in pending_approval for approvePayouts; false: they are sent at once' }),
  },
  { additionalProperties: false },
);
export type CashPayoutSettings = Static<typeof CashPayoutSettings>;

