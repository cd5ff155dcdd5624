/**
 * `refkit apply`: brings the account's campaigns and webhook endpoints to what a set of config files
 * (./config-files.ts) says, through the functions the admin routes call (createCampaign, updateCampaign,
 * updateEmailSettings, putEmailText, resetEmailText, createEndpoint, ...), so that every rule of the API
 * holds. Each field is compared with what the change would store (the domain's own mapping of a field to
 * its column), so a field given as it is changes nothing, and applying the same files twice writes
 * nothing the second time.
 *
 * All of it is one transaction: a change the domain refuses (a waitlist's settings while it is on, say)
 * rolls back every other, and names its file and field. A dry run is the same transaction rolled back, so
 * it is refused by the same rules. Campaigns and endpoints the files do not name are left as they are.
 */
import { isDeepStrictEqual } from 'node:util';
import type { CreateCampaignBody, ShareMessages, UpdateCampaignBody, WebhookEndpoint } from '../../../api/schemas.js';
import { SHARE_CHANNELS } from '../../../api/schemas.js';
import type { EmailSettings } from '../../../api/email-schemas.js';
import { listCampaignSettings } from '../../campaigns/domain/campaign-views.js';
import { campaignColumns, createCampaign, lookupCampaign, updateCampaign } from '../../campaigns/domain/campaigns.js';
import { CAMPAIGN_KEYS, emailsOf, eventTypesInOrder, rowFields, sharedUrl, type CampaignConfig, type WebhookConfig } from './config-files.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { putEmailText, resetEmailText, storedEmailSettings, storedSubject, updateEmailSettings } from '../../emails/domain/email-admin.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { createEndpoint, listEndpoints, setEndpointEventTypes } from '../../webhooks/domain/webhook-endpoints.js';

/** A file's content, and where it came from (its path, for messages). */
export interface ConfigItem<T> {
  source: string;
  value: T;
}
export interface ConfigSet {
  campaigns: ConfigItem<CampaignConfig>[];
  webhooks: ConfigItem<WebhookConfig>[];
}

/** One field's change: `+` set on a new campaign or endpoint, `~` changed, `-` removed (an email text back to its default). */
export interface Change {
  sign: '+' | '~' | '-';
  field: string;
  from?: unknown;
  to?: unknown;
}
export interface PlanEntry {
  kind: 'campaign' | 'webhook';
  /** The campaign's id and name, or the endpoint's URL. */
  name: string;
  /** The campaign's id (campaigns only). */
  campaignId?: string;
  action: 'create' | 'change' | 'unchanged' | 'not in config';
  source?: string;
  changes: Change[];
}
export interface Plan {
  entries: PlanEntry[];
  /** The signing secrets of the endpoints created: shown once, as `webhook add` shows them. */
  secrets: { url: string; secret: string }[];
}

/** A refusal of one file: the file, the path of the field at fault in it (['emails', 'texts', '2', 'body']), and the API's error. */
export class ConfigRefused extends AppError {
  constructor(
    readonly source: string,
    readonly path: string[],
    error: AppError,
  ) {
    super(error.status, error.code, error.message, path.join('.') || undefined);
  }
}

/** Runs `fn`, telling any refusal of the API's as one of `source`, at `path` (and the field the refusal names). */
async function inFile<T>(source: string, path: string[], fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof AppError) || err instanceof ConfigRefused) throw err;
    throw new ConfigRefused(source, err.field && err.field !== 'id' ? [...path, ...err.field.split('.')] : path, err);
  }
}

/** Thrown to roll a dry run back, carrying its plan out. */
class DryRun extends Error {
  constructor(readonly plan: Plan) {
    super('dry run');
  }
}

/** Applies `set` (or, with dryRun, works out what it would change and changes nothing): the plan, entry by entry. */
export async function applyConfig(ctx: Ctx, actor: Actor, set: ConfigSet, options: { dryRun: boolean; allowPrivate: boolean }): Promise<Plan> {
  assertNamedOnce(set);
  try {
    return await ctx.store.transaction(async (tx) => {
      const plan = await apply({ ...ctx, store: tx }, actor, set, options.allowPrivate);
      if (options.dryRun) throw new DryRun(plan);
      return plan;
    });
  } catch (err) {
    if (err instanceof DryRun) return err.plan;
    throw err;
  }
}

/** Two files naming one campaign or one endpoint: the second is refused, at the id or URL. */
function assertNamedOnce(set: ConfigSet): void {
  const once = <T>(items: ConfigItem<T>[], key: (v: T) => string, field: string) => {
    const seen = new Map<string, string>();
    for (const item of items) {
      const k = key(item.value);
      const first = seen.get(k);
      if (first !== undefined) throw new ConfigRefused(item.source, [field], invalid(field, `${first} names ${k} too: one file per ${field === 'id' ? 'campaign' : 'endpoint'}`));
      seen.set(k, item.source);
    }
  };
  once(set.campaigns, (c) => c.id, 'id');
  once(set.webhooks, (w) => new URL(w.url).href, 'url');
}

async function apply(ctx: Ctx, actor: Actor, set: ConfigSet, allowPrivate: boolean): Promise<Plan> {
  const plan: Plan = { entries: [], secrets: [] };
  const named = new Set(set.campaigns.map((c) => c.value.id));
  const before = await listCampaignSettings(ctx, actor);
  for (const item of [...set.campaigns].sort((a, b) => (a.value.id < b.value.id ? -1 : 1))) plan.entries.push(await applyCampaign(ctx, actor, item));
  for (const c of before.filter((c) => !named.has(c.campaignId!))) plan.entries.push({ kind: 'campaign', name: `${c.campaignId} (${c.campaignName})`, campaignId: c.campaignId!, action: 'not in config', changes: [] });

  const endpoints = await listEndpoints(ctx, actor);
  for (const item of set.webhooks) {
    const url = new URL(item.value.url).href;
    const { entry, secret } = await applyWebhook(ctx, actor, item, endpoints.filter((e) => e.url === url), allowPrivate);
    plan.entries.push(entry);
    if (secret) plan.secrets.push({ url: entry.name, secret });
  }
  const urls = new Set(set.webhooks.map((w) => new URL(w.value.url).href));
  for (const e of endpoints.filter((e) => !urls.has(e.url))) plan.entries.push({ kind: 'webhook', name: e.url, action: 'not in config', changes: [] });
  return plan;
}

/** The share messages a file gives, as a change: the channels it leaves out are cleared (''), so the file is the whole of them. */
function wholeShareMessages(given: ShareMessages, current: ShareMessages): ShareMessages {
  return { ...Object.fromEntries(SHARE_CHANNELS.filter((c) => current[c] !== undefined).map((c) => [c, ''])), ...given };
}

async function applyCampaign(ctx: Ctx, actor: Actor, item: ConfigItem<CampaignConfig>): Promise<PlanEntry> {
  const { source } = item;
  const { id, emails: _emails, ...fields } = item.value;
  const existing = await lookupCampaign(ctx, id);
  if (existing && existing.account_id !== actor.accountId) throw new ConfigRefused(source, ['id'], invalid('id', `Another account has a campaign with the id ${id}: choose another`));
  if (!existing) {
    const created = await inFile(source, [], () => createCampaign(ctx, actor, fields as CreateCampaignBody, id));
    const stored = rowFields(created, ctx.now());
    const changes: Change[] = CAMPAIGN_KEYS.filter((k) => fields[k] !== undefined).map((k) => ({ sign: '+', field: k, to: stored[k] }));
    changes.push(...(await applyEmails(ctx, actor, item, id)));
    return { kind: 'campaign', name: `${id} (${created.name})`, campaignId: id, action: 'create', source, changes };
  }
  const now = rowFields(existing, ctx.now());
  const body: Record<string, unknown> = {};
  const changes: Change[] = [];
  for (const key of CAMPAIGN_KEYS) {
    if (fields[key] === undefined) continue;
    const given = key === 'shareMessages' ? wholeShareMessages(fields.shareMessages!, now.shareMessages ?? {}) : fields[key];
    const patch = await inFile(source, [], () => campaignColumns({ [key]: given }, existing));
    const after = rowFields({ ...existing, ...patch }, ctx.now())[key];
    if (isDeepStrictEqual(after, now[key])) continue;
    body[key] = given;
    changes.push({ sign: '~', field: key, from: now[key], to: after });
  }
  if (changes.length > 0) await inFile(source, [], () => updateCampaign(ctx, actor, { id, ...body } as UpdateCampaignBody));
  changes.push(...(await applyEmails(ctx, actor, item, id)));
  return { kind: 'campaign', name: `${id} (${fields.campaignName})`, campaignId: id, action: changes.length > 0 ? 'change' : 'unchanged', source, changes };
}

/** The lifecycle email settings and texts of a campaign file: the settings given that differ, each text written, each other text of the owner's reset. */
async function applyEmails(ctx: Ctx, actor: Actor, { source, value }: ConfigItem<CampaignConfig>, id: string): Promise<Change[]> {
  const { emails } = value;
  if (!emails) return [];
  const current = await emailsOf(ctx, actor, id);
  const changes: Change[] = [];
  if (emails.settings) {
    const stored = storedEmailSettings(current.settings, emails.settings);
    const changed = (Object.keys(emails.settings) as (keyof EmailSettings)[]).filter((k) => stored[k] !== current.settings[k]);
    for (const k of changed) changes.push({ sign: '~', field: `emails.settings.${k}`, from: current.settings[k], to: stored[k] });
    if (changed.length > 0) await inFile(source, ['emails', 'settings'], () => updateEmailSettings(ctx, actor, { id, ...Object.fromEntries(changed.map((k) => [k, emails.settings![k]])) }));
  }
  if (emails.texts) {
    const mine = new Map(current.texts.map((t) => [`${t.kind}/${t.locale}`, t]));
    const given = new Set<string>();
    for (const [i, t] of emails.texts.entries()) {
      const key = `${t.kind}/${t.locale}`;
      const at = ['emails', 'texts', String(i)];
      if (given.has(key)) throw new ConfigRefused(source, at, invalid('texts', `Two texts are for ${key}: give one per email and language`));
      given.add(key);
      const was = mine.get(key);
      const to = { subject: storedSubject(t.subject), body: t.body };
      if (was && was.subject === to.subject && was.body === to.body) continue;
      await inFile(source, at, () => putEmailText(ctx, actor, { id, ...t }));
      changes.push({ sign: was ? '~' : '+', field: `emails.texts ${key}`, ...(was && { from: { subject: was.subject, body: was.body } }), to });
    }
    for (const [key, t] of mine) {
      if (given.has(key)) continue;
      await inFile(source, ['emails', 'texts'], () => resetEmailText(ctx, actor, { id, kind: t.kind, locale: t.locale }));
      changes.push({ sign: '-', field: `emails.texts ${key}`, from: { subject: t.subject, body: t.body }, to: 'the default text' });
    }
  }
  return changes;
}

async function applyWebhook(
  ctx: Ctx,
  actor: Actor,
  { source, value }: ConfigItem<WebhookConfig>,
  found: WebhookEndpoint[],
  allowPrivate: boolean,
): Promise<{ entry: PlanEntry; secret?: string }> {
  const url = new URL(value.url).href;
  if (found.length > 1) throw new ConfigRefused(source, ['url'], sharedUrl(url, found.length));
  const eventTypes = eventTypesInOrder(value.eventTypes);
  const entry = (action: PlanEntry['action'], changes: Change[]): PlanEntry => ({ kind: 'webhook', name: url, action, source, changes });
  const [endpoint] = found;
  if (!endpoint) {
    const created = await inFile(source, [], () => createEndpoint(ctx, actor, { url, eventTypes }, allowPrivate));
    return { entry: entry('create', [{ sign: '+', field: 'eventTypes', to: eventTypes }]), secret: created.secret };
  }
  const had = eventTypesInOrder(endpoint.eventTypes);
  if (isDeepStrictEqual(had, eventTypes)) return { entry: entry('unchanged', []) };
  await inFile(source, [], () => setEndpointEventTypes(ctx, actor, endpoint.id, eventTypes));
  return { entry: entry('change', [{ sign: '~', field: 'eventTypes', from: had, to: eventTypes }]) };
}
