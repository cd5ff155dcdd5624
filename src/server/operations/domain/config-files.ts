/**
 * Campaigns as code: what a campaign and a webhook endpoint look like as configuration (`refkit export`
 * writes them, `refkit apply` reads them; ../../cli/config-yaml.ts is the YAML). Made of the API's own request
 * schemas, so a file is checked by the rules a request is and its errors read the same.
 *
 * Never in a file: secrets (the campaign's email-signing secrets, its Stripe webhook secret and reward key,
 * an endpoint's signing secret) and data (participants, reward code pools). An endpoint is named by its URL:
 * its id is the database's own, and a file applied to another database must name the same endpoint.
 */
import { Type, type Static } from '@sinclair/typebox';
import { EmailSettings, PutEmailTextBody } from '../../../api/email-schemas.js';
import { CampaignFields, CreateWebhookEndpointBody, SHARE_CHANNELS, WEBHOOK_EVENT_TYPES, WidgetStyle, type CampaignSettings, type WebhookEndpoint } from '../../../api/schemas.js';
import type { CampaignRow } from '../../store/store.js';
import { listCampaignSettings } from '../../campaigns/domain/campaign-views.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { emailTexts } from '../../emails/domain/email-admin.js';
import { invalid } from '../../kernel/errors.js';
import { listEndpoints } from '../../webhooks/domain/webhook-endpoints.js';
import { presentCampaignSettings } from '../../referrals/domain/present.js';

/** Write-only campaign fields: never written to a file, and refused in one (an unknown field). */
/** (`captcha` holds its provider's secret key, so it is one of them: set it with the API, the CLI or the dashboard.) */
const SECRET_FIELDS = ['stripeWebhookSecret', 'stripeRewardKey', 'paddleWebhookSecret', 'lemonSqueezyWebhookSecret', 'shopifyWebhookSecret', 'chargebeeWebhookAuth', 'segmentSharedSecret', 'captcha'] as const;
const settable = Type.Omit(Type.Object(CampaignFields), SECRET_FIELDS).properties;

/** The campaign fields a file holds, in the order a file lists them (the API's order). */
export const CAMPAIGN_KEYS = Object.keys(settable) as (keyof typeof settable)[];
export type CampaignKey = (typeof CAMPAIGN_KEYS)[number];

const { kind, locale, subject, body } = PutEmailTextBody.properties;
export const EmailTextConfig = Type.Object({ kind, locale, subject, body }, { additionalProperties: false });
export type EmailTextConfig = Static<typeof EmailTextConfig>;

/** A campaign id a file may give: what the service makes (cmp_...), or a name of letters, digits, - and _. */
const ConfigId = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$', description: 'The campaign id: letters, digits, - and _ (at most 64)' });

/** A campaign file. A field left out is left as it is (a new campaign gets its default). */
export const CampaignConfig = Type.Object(
  {
    id: ConfigId,
    ...settable,
    emails: Type.Optional(
      Type.Object(
        {
          settings: Type.Optional(Type.Partial(EmailSettings, { additionalProperties: false })),
          texts: Type.Optional(Type.Array(EmailTextConfig, { description: "The texts the owner wrote; any other is the default, and one left out goes back to it" })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type CampaignConfig = Static<typeof CampaignConfig>;
export type CampaignFieldValues = Omit<CampaignConfig, 'id' | 'emails'>;

/** A webhook endpoint file: createWebhookEndpoint's body. */
export const WebhookConfig = CreateWebhookEndpointBody;
export type WebhookConfig = Static<typeof WebhookConfig>;

/** `value` with its keys in the schema's order, so that a file does not change with the order a change gave them in. */
const ordered = <T extends object>(value: T, keys: readonly string[]): T =>
  Object.fromEntries(keys.filter((k) => k in value).map((k) => [k, value[k as keyof T]])) as T;

/** A campaign's settings as its file gives them: every field, in the file's order (`end: null` when it has none). */
export function campaignFieldsOf(s: CampaignSettings): CampaignFieldValues {
  const all: Partial<Record<CampaignKey, unknown>> = {
    campaignName: s.campaignName,
    hostURL: s.hostURL,
    referrerRewardValue: s.referrerRewardValue,
    refereeRewardValue: s.refereeRewardValue,
    rewardType: s.rewardType,
    rewardCurrency: s.rewardCurrency,
    rewardHeader: s.rewardHeader,
    rewardDescription: s.rewardDescription,
    shareHeader: s.shareHeader,
    shareDescription: s.shareDescription,
    end: s.end ?? null,
    // null (only the origin of hostURL) is left out: no request sets it, and leaving the field out keeps it.
    allowedOrigins: s.allowedOrigins ?? undefined,
    requireEmailConfirmation: s.requireEmailConfirmation,
    shareMessages: ordered(s.shareMessages, SHARE_CHANNELS),
    widgetStyle: ordered(s.widgetStyle, Object.keys(WidgetStyle.properties)),
    referrerRewardPercent: s.referrerRewardPercent,
    commissionPayments: s.commissionPayments,
    milestones: s.milestones,
    maxReferralReward: s.maxReferralReward,
    holdDays: s.holdDays,
    stripeRewardMode: s.stripeRewardMode,
    // null (none) is left out, as allowedOrigins: leaving the field out keeps it.
    refereeDiscount: s.refereeDiscount ?? undefined,
    promotionCodePrefix: s.promotionCodePrefix ?? undefined,
    rewardCodesLowThreshold: s.rewardCodesLowThreshold,
    leaderboard: s.leaderboard,
    timeZone: s.timeZone,
    waitlist: s.waitlist,
    // null (none) is left out, as allowedOrigins.
    blocklist: s.blocklist ?? undefined,
    autoApprove: s.autoApprove ?? undefined,
  };
  return Object.fromEntries(CAMPAIGN_KEYS.filter((k) => all[k] !== undefined).map((k) => [k, all[k]])) as CampaignFieldValues;
}

/** A campaign row's fields as a file gives them (a row as it is, or as a change would leave it). */
export const rowFields = (row: CampaignRow, now: number): CampaignFieldValues => campaignFieldsOf(presentCampaignSettings(row, { participants: 0, reviewQueue: 0 }, now));

/** A campaign's lifecycle email settings and the texts its owner wrote, as its file gives them. */
export async function emailsOf(ctx: Ctx, actor: Actor, campaignId: string): Promise<{ settings: EmailSettings; texts: EmailTextConfig[] }> {
  const view = await emailTexts(ctx, actor, campaignId);
  return { settings: view.settings, texts: view.texts.filter((t) => t.custom).map(({ kind, locale, subject, body }) => ({ kind, locale, subject, body })) };
}

/** Event types in one order (the API's), so that a file does not change with the order they were given in. */
export const eventTypesInOrder = (types: readonly string[]) => WEBHOOK_EVENT_TYPES.filter((t) => types.includes(t));

export const webhookConfigOf = (e: WebhookEndpoint): WebhookConfig => ({ url: e.url, eventTypes: eventTypesInOrder(e.eventTypes) });

/** The account's whole configuration: every campaign (by id) and webhook endpoint (by URL). */
export async function exportConfig(ctx: Ctx, actor: Actor): Promise<{ campaigns: CampaignConfig[]; webhooks: WebhookConfig[] }> {
  const campaigns = (await listCampaignSettings(ctx, actor)).sort((a, b) => (a.campaignId! < b.campaignId! ? -1 : 1));
  const endpoints = await listEndpoints(ctx, actor);
  const twice = endpoints.find((e, i) => endpoints.findIndex((o) => o.url === e.url) !== i);
  if (twice) throw sharedUrl(twice.url, endpoints.filter((e) => e.url === twice.url).length);
  const configs: CampaignConfig[] = [];
  for (const c of campaigns) configs.push({ id: c.campaignId!, ...campaignFieldsOf(c), emails: await emailsOf(ctx, actor, c.campaignId!) });
  return { campaigns: configs, webhooks: endpoints.map(webhookConfigOf) };
}

/** A file names an endpoint by its URL, so no two endpoints may share one. */
export const sharedUrl = (url: string, count: number) =>
  invalid('url', `${count} webhook endpoints send to ${url}, and a config file names an endpoint by its URL: remove all but one (refkit webhook remove --id ...)`);
