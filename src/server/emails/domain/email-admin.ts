/**
 * What an owner does with a campaign's lifecycle emails: turn each on or off and give the postal
 * address, write their own subject and body per email and language (or go back to the default), and read
 * the delivery log.
 */
import { EMAIL_KINDS, type EmailLogPage, type EmailSettings, type EmailLogQuery, type EmailTextKey, type EmailTextsView, type PutEmailTextBody, type UpdateEmailSettingsBody } from '../../../api/email-schemas.js';
import { LOCALES } from '../../../api/locales.js';
import type { EmailKind } from '../../../api/email-schemas.js';
import { ownCampaign } from '../../campaigns/domain/campaigns.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { readEmailSettings } from './email-settings.js';
import { DEFAULT_TEXTS, EMAIL_VARIABLES } from './email-texts.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { iso } from '../../kernel/time.js';

export async function emailTexts(ctx: Ctx, actor: Actor, campaignId: string): Promise<EmailTextsView> {
  const campaign = await ownCampaign(ctx, actor, campaignId);
  const own = new Map((await ctx.store.emails.texts(campaign.id)).map((t) => [`${t.kind} ${t.locale}`, t]));
  return {
    settings: readEmailSettings(campaign),
    texts: EMAIL_KINDS.flatMap((kind) =>
      LOCALES.map((locale) => {
        const t = own.get(`${kind} ${locale}`);
        return t ? { kind, locale, subject: t.subject, body: t.body, custom: true } : { kind, locale, ...DEFAULT_TEXTS[locale][kind], custom: false };
      }),
    ),
    variables: [...EMAIL_VARIABLES],
    smtpConfigured: ctx.mailer !== undefined,
  };
}

/** The settings a change leaves: the fields given replace theirs (the postal address without the spaces around it). */
export const storedEmailSettings = (current: EmailSettings, patch: Partial<EmailSettings>): EmailSettings => ({
  ...current,
  ...patch,
  ...(patch.postalAddress !== undefined && { postalAddress: patch.postalAddress.trim() }),
});

/** Rounds of updateEmailSettings before it gives up on a campaign whose settings keep changing under it. */
const SETTINGS_ROUNDS = 5;

/**
 * Sets the fields given and keeps the others. The new settings are made from the stored ones and written
 * only if those are still stored (a conditional update), so concurrent changes of different fields both
 * land, as in some serial order.
 */
export async function updateEmailSettings(ctx: Ctx, actor: Actor, body: UpdateEmailSettingsBody): Promise<EmailTextsView> {
  const campaign = await ownCampaign(ctx, actor, body.id);
  const { id, ...patch } = body;
  for (let round = 0; round < SETTINGS_ROUNDS; round++) {
    const stored = (await ctx.store.emails.settingsOf(id)) ?? null;
    const current = readEmailSettings({ ...campaign, email_settings: stored });
    const settings = storedEmailSettings(current, patch);
    if (await ctx.store.emails.replaceSettings(id, stored, JSON.stringify(settings), ctx.now())) return emailTexts(ctx, actor, id);
  }
  throw new AppError(503, 'unavailable', 'The email settings are being changed by someone else just now; try again');
}

/** A subject as it is stored: without the spaces around it. */
export const storedSubject = (subject: string) => subject.trim();

export async function putEmailText(ctx: Ctx, actor: Actor, body: PutEmailTextBody): Promise<EmailTextsView> {
  const campaign = await ownCampaign(ctx, actor, body.id);
  if (body.body.trim() === '') throw invalid('body', 'body must not be blank');
  await ctx.store.emails.putText({ campaign_id: campaign.id, kind: body.kind, locale: body.locale, subject: storedSubject(body.subject), body: body.body, updated_on: ctx.now() });
  return emailTexts(ctx, actor, campaign.id);
}

export async function resetEmailText(ctx: Ctx, actor: Actor, key: EmailTextKey): Promise<EmailTextsView> {
  const campaign = await ownCampaign(ctx, actor, key.id);
  await ctx.store.emails.deleteText(campaign.id, key.kind, key.locale);
  return emailTexts(ctx, actor, campaign.id);
}

const badCursor = () => new AppError(400, 'invalid_request', 'cursor is not a cursor of this list', 'cursor');

function decodeCursor(cursor: string): { createdOn: number; id: string } {
  const [createdOn, id] = Buffer.from(cursor, 'base64url').toString('utf8').split(' ');
  const n = Number(createdOn);
  if (!Number.isSafeInteger(n) || !id || !/^eml_[0-9a-z]+$/.test(id)) throw badCursor();
  return { createdOn: n, id };
}

export async function emailLog(ctx: Ctx, actor: Actor, q: EmailLogQuery): Promise<EmailLogPage> {
  const campaign = await ownCampaign(ctx, actor, q.id);
  const limit = q.limit ?? 50;
  const rows = await ctx.store.emails.log({
    campaignId: campaign.id,
    ...(q.status && { status: q.status }),
    ...(q.cursor !== undefined && { before: decodeCursor(q.cursor) }),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((r) => ({
      id: r.id,
      kind: r.kind as EmailKind,
      to: r.email,
      status: r.status,
      attempts: r.attempt_count,
      ...(r.last_error !== null && { lastError: r.last_error }),
      createdOn: iso(r.created_on),
      ...(r.sent_on !== null && { sentOn: iso(r.sent_on) }),
    })),
    ...(rows.length > limit && last && { nextCursor: Buffer.from(`${last.created_on} ${last.id}`).toString('base64url') }),
  };
}
