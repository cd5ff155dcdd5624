/**
 * The wire shapes of the Referral Program Service Interface, as TypeBox schemas.
 *
 * This is the one place the shapes live: the server validates and serialises with these schemas (and
 * the OpenAPI document is generated from them), the typed client and the widget import the static
 * types with `import type`, so no schema code reaches the browser bundle.
 */
import { Type, type Static } from '@sinclair/typebox';

const DateTime = Type.String({ format: 'date-time' });

export const CampaignStatus = Type.Union([Type.Literal('Active'), Type.Literal('Pause'), Type.Literal('End')]);
export type CampaignStatus = Static<typeof CampaignStatus>;

export const Participant = Type.Object(
  {
    email: Type.Optional(Type.String()),
    firstName: Type.Optional(Type.String()),
    lastName: Type.Optional(Type.String()),
    referralCode: Type.Optional(Type.String()),
    referredByCode: Type.Optional(Type.String()),
    createdOn: Type.Optional(DateTime),
    campaignId: Type.Optional(Type.String()),
    shareLink: Type.Optional(Type.String({ format: 'uri' })),
    totalReferrals: Type.Optional(Type.Integer()),
    referralReward: Type.Optional(Type.Integer()),
    referralRewardRedeemed: Type.Optional(Type.Integer()),
    referralRewardBalance: Type.Optional(Type.Integer()),
    refereeReward: Type.Optional(Type.Integer()),
    refereeRewardRedeemed: Type.Optional(Type.Integer()),
    refereeRewardBalance: Type.Optional(Type.Integer()),
    rewardEventCompleted: Type.Optional(Type.Boolean()),
    fraudScore: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type Participant = Static<typeof Participant>;

export const Campaign = Type.Object(
  {
    campaignId: Type.Optional(Type.String()),
    campaignName: Type.Optional(Type.String()),
    status: Type.Optional(CampaignStatus),
    createdOn: Type.Optional(DateTime),
    end: Type.Optional(DateTime),
    hostURL: Type.Optional(Type.String({ format: 'uri' })),
    paused: Type.Optional(Type.Boolean()),
    ended: Type.Optional(Type.Boolean()),
    rewardHeader: Type.Optional(Type.String()),
    rewardDescription: Type.Optional(Type.String()),
    shareHeader: Type.Optional(Type.String()),
    shareDescription: Type.Optional(Type.String()),
    referrerRewardValue: Type.Optional(Type.Integer()),
    refereeRewardValue: Type.Optional(Type.Integer()),
    rewardType: Type.Optional(Type.String()),
    participants: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);
export type Campaign = Static<typeof Campaign>;

export const ErrorCode = Type.Union(
  [
    'invalid_request',
    'unauthorized',
    'forbidden_origin',
    'not_found',
    'campaign_not_found',
    'participant_not_found',
    'referrer_not_found',
    'api_key_not_found',
    'webhook_endpoint_not_found',
    'delivery_not_found',
    'campaign_paused',
    'campaign_ended',
    'not_referred',
    'self_referral',
    'invalid_transition',
    'insufficient_balance',
    'payload_too_large',
    'unsupported_media_type',
    'rate_limited',
    'internal',
    'unavailable',
  ].map((code) => Type.Literal(code)),
);
export type ErrorCode = Static<typeof ErrorCode>;

/** The error envelope: every non-2xx answer has this body. */
export const ApiErrorBody = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    field: Type.Optional(Type.String()),
  }),
});
export type ApiErrorBody = Static<typeof ApiErrorBody>;

// ---- request shapes ------------------------------------------------------------------------------

/**
 * Every string a request carries has a format (or a pattern or an enum) the server checks before any
 * handler runs: `line` (one line, no control or bidirectional-override characters, no unpaired
 * surrogates), `text` (the same, but tabs and line breaks allowed), `http-url`, `http-origin`,
 * `date-time` (an instant: no leap second). Every integer has bounds and `x-finite` (a query's
 * "Infinity" or "1e400" is not a number). The server adds these to its validator (src/server/http/validation.ts).
 */
const Line = (options: { minLength?: number; maxLength: number; description?: string }) => Type.String({ format: 'line', ...options });
const Int = (minimum: number, maximum: number) => Type.Integer({ minimum, maximum, 'x-finite': true });

/** Identifiers and emails are bounded so that a bad client cannot make us store megabytes per row. */
const Id = Line({ minLength: 1, maxLength: 64 });
const Email = Line({ minLength: 1, maxLength: 320, description: 'Trimmed and lower-cased by the service' });
const Code = Line({ minLength: 1, maxLength: 64 });
const Name = Line({ maxLength: 100 });

export const AddParticipantBody = Type.Object({
  id: Id,
  email: Email,
  firstName: Type.Optional(Name),
  lastName: Type.Optional(Name),
  referredByCode: Type.Optional(Code),
  referredByEmail: Type.Optional(Email),
});
export type AddParticipantBody = Static<typeof AddParticipantBody>;

export const CampaignQuery = Type.Object({ id: Id });
export const ValidateCodeQuery = Type.Object({ campaignId: Id, code: Line({ maxLength: 64 }) });
export const ParticipantQuery = Type.Object({ id: Id, email: Email });

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;
export const PagingQuery = Type.Object({
  page: Type.Optional(Int(1, 1_000_000)),
  pageSize: Type.Optional(Int(1, MAX_PAGE_SIZE)),
  cursor: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength: 200 })),
});
export type PagingQuery = Static<typeof PagingQuery>;
export const AllParticipantsQuery = Type.Composite([CampaignQuery, PagingQuery]);
export const ReferralsQuery = Type.Composite([ParticipantQuery, PagingQuery]);

export const QualifyParticipantBody = Type.Object({
  id: Id,
  email: Email,
  amountPaid: Type.Optional(
    Type.String({ pattern: '^[0-9]{1,12}(\\.[0-9]{1,2})?$', description: 'Numeric text, at most two decimals' }),
  ),
});
export type QualifyParticipantBody = Static<typeof QualifyParticipantBody>;

// ---- admin shapes --------------------------------------------------------------------------------

const Url = Type.String({ format: 'http-url', maxLength: 2000 });
const Text = Type.String({ format: 'text', maxLength: 2000 });
const RewardValue = Int(0, 1_000_000_000);

export const CampaignFields = {
  campaignName: Line({ minLength: 1, maxLength: 200 }),
  hostURL: Url,
  referrerRewardValue: Type.Optional(RewardValue),
  refereeRewardValue: Type.Optional(RewardValue),
  rewardType: Type.Optional(Line({ maxLength: 50 })),
  rewardCurrency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
  rewardHeader: Type.Optional(Line({ maxLength: 2000 })),
  rewardDescription: Type.Optional(Text),
  shareHeader: Type.Optional(Line({ maxLength: 2000 })),
  shareDescription: Type.Optional(Text),
  end: Type.Optional(Type.Union([DateTime, Type.Null()])),
  allowedOrigins: Type.Optional(
    Type.Array(Type.String({ format: 'http-origin', maxLength: 300 }), { maxItems: 50 }),
  ),
};
export const CreateCampaignBody = Type.Object(CampaignFields, { additionalProperties: false });
export type CreateCampaignBody = Static<typeof CreateCampaignBody>;
export const UpdateCampaignBody = Type.Object(
  { id: Id, ...Type.Partial(Type.Object(CampaignFields)).properties },
  { additionalProperties: false },
);
export type UpdateCampaignBody = Static<typeof UpdateCampaignBody>;
export const SetCampaignStatusBody = Type.Object({ id: Id, status: CampaignStatus });
export const RedeemRewardBody = Type.Object({
  id: Id,
  email: Email,
  kind: Type.Union([Type.Literal('referral'), Type.Literal('referee')]),
  amount: Int(1, 1_000_000_000),
});
export type RedeemRewardBody = Static<typeof RedeemRewardBody>;
export const CreateApiKeyBody = Type.Object({ name: Line({ minLength: 1, maxLength: 100 }) });
export const RevokeApiKeyBody = Type.Object({ id: Id });

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it in lists' }),
  createdOn: DateTime,
  revokedOn: Type.Optional(DateTime),
  key: Type.Optional(Type.String({ description: 'The secret key itself; present only in the answer that created it' })),
});
export type ApiKey = Static<typeof ApiKey>;

export const Ok = Type.Object({ ok: Type.Literal(true) });
export type Ok = Static<typeof Ok>;

// ---- webhooks ------------------------------------------------------------------------------------

export const WEBHOOK_EVENT_TYPES = ['referrer_added', 'referee_added', 'reward_unlocked'] as const;
export const WebhookEventType = Type.Union(WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)));
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** `data` of every event type: the fields the interface lists for referrer_added. Money is in units. */
export const WebhookEventData = Type.Object({
  participantId: Type.Integer(),
  firstName: Type.String(),
  lastName: Type.String(),
  email: Type.String(),
  code: Type.String(),
  campaignId: Type.String(),
  referredByCode: Type.Union([Type.String(), Type.Null()]),
  referralReward: Type.Number(),
  referralRewardBalance: Type.Number(),
  referralRewardRedeemed: Type.Number(),
  refereeReward: Type.Number(),
  refereeRewardBalance: Type.Number(),
  refereeRewardRedeemed: Type.Number(),
  refereeActionCompleted: Type.Boolean(),
  refereeActionCompletedLabel: Type.Union([Type.String(), Type.Null()]),
  rewardType: Type.Union([Type.String(), Type.Null()]),
  rewardCurrency: Type.String(),
  createdOn: DateTime,
  updatedOn: DateTime,
  approval: Type.Boolean(),
  totalReferred: Type.Integer(),
  totalCompletedReferred: Type.Integer(),
  amountPaid: Type.Number(),
  paymentCount: Type.Integer(),
  revenueGenerated: Type.Number(),
  rewardDue: Type.Number(),
  rewardPaid: Type.Number(),
  score: Type.String(),
  impressionCount: Type.Integer(),
});
export type WebhookEventData = Static<typeof WebhookEventData>;

export const WebhookEvent = Type.Object({
  eventType: WebhookEventType,
  data: WebhookEventData,
  createdAt: Type.Integer({ description: 'epoch milliseconds' }),
  updatedAt: Type.Integer({ description: 'epoch milliseconds' }),
});
export type WebhookEvent = Static<typeof WebhookEvent>;

export const CreateWebhookEndpointBody = Type.Object(
  {
    url: Url,
    eventTypes: Type.Array(WebhookEventType, { minItems: 1, uniqueItems: true }),
  },
  { additionalProperties: false },
);
export type CreateWebhookEndpointBody = Static<typeof CreateWebhookEndpointBody>;

export const WebhookEndpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  eventTypes: Type.Array(WebhookEventType),
  createdOn: DateTime,
  secret: Type.Optional(Type.String({ description: 'Signing secret (whsec_...); present only in the answer that created it' })),
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]);
export type DeliveryStatus = Static<typeof DeliveryStatus>;

export const WebhookAttempt = Type.Object({
  attemptedOn: DateTime,
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Integer(),
});

export const WebhookDelivery = Type.Object({
  id: Type.String(),
  eventId: Type.String({ description: 'The webhook-id header: the same on every attempt' }),
  endpointId: Type.String(),
  eventType: WebhookEventType,
  status: DeliveryStatus,
  attemptCount: Type.Integer(),
  nextAttemptOn: Type.Union([DateTime, Type.Null()]),
  createdOn: DateTime,
  attempts: Type.Array(WebhookAttempt),
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const ListWebhookDeliveriesQuery = Type.Object({
  status: Type.Optional(DeliveryStatus),
  endpointId: Type.Optional(Id),
  eventType: Type.Optional(WebhookEventType),
  limit: Type.Optional(Int(1, MAX_PAGE_SIZE)),
});
export type ListWebhookDeliveriesQuery = Static<typeof ListWebhookDeliveriesQuery>;
export const IdBody = Type.Object({ id: Id });
