/** The shapes of the offer backtest (src/server/rewards/domain/backtest.ts): proposed rules in, per-month figures out. */
import { Type, type Static } from '@sinclair/typebox';
import { CampaignFields, CampaignIdBody, RewardRulesFields } from './schemas.js';

/** The longest period one backtest replays. */
export const MAX_BACKTEST_MONTHS = 120;

const Month = Type.String({ pattern: '^(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])$', description: 'A calendar month (UTC), YYYY-MM, from 1970' });

/**
 * The rules to try: the same fields as updateCampaign's (each one given replaces the campaign's current
 * one for the replay; one left out stays as it is), the fixed rewards included.
 */
export const BacktestRules = Type.Object(
  {
    referrerRewardValue: CampaignFields.referrerRewardValue,
    refereeRewardValue: CampaignFields.refereeRewardValue,
    ...RewardRulesFields,
  },
  { additionalProperties: false },
);
export type BacktestRules = Static<typeof BacktestRules>;

export const BacktestRulesBody = Type.Object(
  {
    id: CampaignIdBody.properties.id,
    rules: BacktestRules,
    from: Type.Optional({ ...Month, description: "The first month reported, YYYY-MM (UTC). Default: the campaign's first month, or 120 months before `to` if that is earlier" }),
    to: Type.Optional({ ...Month, description: "The last month replayed (included), YYYY-MM; at most 120 months after from. Default: the campaign's current month" }),
  },
  { additionalProperties: false },
);
export type BacktestRulesBody = Static<typeof BacktestRulesBody>;

/** What one set of rules would have cost over a month, in reward units; each credit counts in the month it was made. */
export const BacktestFigures = Type.Object({
  credited: Type.Integer({ description: 'Credits made: fixed rewards of both sides, commissions and milestones, after the ceiling' }),
  paid: Type.Integer({ description: 'Of those, what became available and was not taken back' }),
  held: Type.Integer({ description: 'Of those, what is still in its hold at the end of the period' }),
  reversed: Type.Integer({ description: 'Of those, what refunds cancelled or took back' }),
  capped: Type.Integer({ description: 'What the ceiling kept back' }),
  capHits: Type.Integer({ description: 'Credits the ceiling cut' }),
  milestoneHits: Type.Integer({ description: 'Milestone bonuses credited' }),
  codesUsed: Type.Integer({ description: 'Available credits that take a reward code from a pool of the campaign' }),
});
export type BacktestFigures = Static<typeof BacktestFigures>;

export const BacktestRow = Type.Object({
  current: BacktestFigures,
  proposed: BacktestFigures,
  difference: Type.Object(BacktestFigures.properties, { description: 'proposed - current' }),
});
export type BacktestRow = Static<typeof BacktestRow>;

export const BacktestMonth = Type.Composite([Type.Object({ month: Month }), BacktestRow]);
export type BacktestMonth = Static<typeof BacktestMonth>;

export const BacktestAnswer = Type.Object({
  campaignId: Type.String(),
  from: Month,
  to: Month,
  asOf: Type.String({ format: 'date-time', description: 'The moment held credits are counted at: the end of the period, or now if sooner' }),
  months: Type.Array(BacktestMonth),
  total: BacktestRow,
  limitations: Type.Array(Type.String(), { description: 'What the replay cannot know: behaviour the new offer would change, and facts the service does not record' }),
});
export type BacktestAnswer = Static<typeof BacktestAnswer>;
