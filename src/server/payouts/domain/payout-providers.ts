/**
 * An account's payout providers: PayPal's REST app credentials and Stripe Connect keys, each for live
 * campaigns (`paypal`, `stripe`) and for test campaigns (`paypalSandbox`, `stripeTest`), so that an owner
 * tries payouts in test mode while live ones run. Secrets are write-only: the settings show whether one is
 * set, never its value. A test campaign is paid only with the test ones, a live one only with the live ones
 * (./cash-payout-sender.ts).
 */
import type { PayPalSettingsBody, StripeConnectSettingsBody } from '../../../api/payout-schemas.js';
import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../kernel/context.js';
import { invalid } from '../../kernel/errors.js';
import type { PayoutCredentialsRow } from '../store/payout-profile-store.js';

type PayPalBody = Static<typeof PayPalSettingsBody>;
type StripeBody = Static<typeof StripeConnectSettingsBody>;

export interface PayoutProviderSettings {
  paypal: { clientId: string; webhookId: string | null; clientSecretConfigured: boolean } | null;
  paypalSandbox: { clientId: string; webhookId: string | null; clientSecretConfigured: boolean } | null;
  stripe: { secretKeyConfigured: boolean; connectWebhookSecretConfigured: boolean } | null;
  stripeTest: { secretKeyConfigured: boolean; connectWebhookSecretConfigured: boolean } | null;
}

const FIELDS = { paypal: ['paypal', true], paypalSandbox: ['paypal', false], stripe: ['stripe', true], stripeTest: ['stripe', false] } as const;

export async function payoutProviderSettings(ctx: Ctx, accountId: number): Promise<PayoutProviderSettings> {
  const rows = await ctx.store.payoutProfiles.credentials(accountId);
  const find = (provider: 'paypal' | 'stripe', live: boolean) => rows.find((r) => r.provider === provider && r.live === (live ? 1 : 0));
  const paypal = (r: PayoutCredentialsRow | undefined) => (r ? { clientId: r.client_id ?? '', webhookId: r.webhook, clientSecretConfigured: r.secret !== null } : null);
  const stripe = (r: PayoutCredentialsRow | undefined) => (r ? { secretKeyConfigured: r.secret !== null, connectWebhookSecretConfigured: r.webhook !== null } : null);
  return { paypal: paypal(find('paypal', true)), paypalSandbox: paypal(find('paypal', false)), stripe: stripe(find('stripe', true)), stripeTest: stripe(find('stripe', false)) };
}

/** A live key for `stripe`, a test key for `stripeTest`: the wrong one would pay real money from a test campaign, or none from a live one. */
function checkStripeKey(field: 'stripe' | 'stripeTest', secretKey: string): void {
  const live = field === 'stripe';
  if (/^(rk|sk)_live_/.test(secretKey) !== live) {
    throw invalid(`${field}.secretKey`, live ? 'stripe.secretKey pays live campaigns: it must be a live key (rk_live_... or sk_live_...)' : 'stripeTest.secretKey pays test campaigns: it must be a test key (rk_test_... or sk_test_...)');
  }
}

type CredentialColumns = Pick<PayoutCredentialsRow, 'client_id' | 'secret' | 'webhook'>;

/**
 * The row a provider's settings make. A secret or webhook left out keeps the stored one, so an owner
 * changes a webhook id without typing the secret again; a PayPal app changed to another client id needs
 * its own secret, and the first save needs one.
 */
function credentialRow(field: keyof typeof FIELDS, value: NonNullable<PayPalBody | StripeBody>, stored: PayoutCredentialsRow | undefined): CredentialColumns {
  if ('clientId' in value) {
    const keeps = stored?.client_id === value.clientId ? stored.secret : null;
    const secret = value.clientSecret ?? keeps;
    if (!secret) throw invalid(`${field}.clientSecret`, `${field}.clientSecret is required${stored ? ' with a new clientId' : ' the first time'}`);
    return { client_id: value.clientId, secret, webhook: value.webhookId ?? stored?.webhook ?? null };
  }
  const secret = value.secretKey ?? stored?.secret ?? null;
  if (!secret) throw invalid(`${field}.secretKey`, `${field}.secretKey is required the first time`);
  if (value.secretKey !== undefined) checkStripeKey(field as 'stripe' | 'stripeTest', value.secretKey);
  return { client_id: null, secret, webhook: value.connectWebhookSecret ?? stored?.webhook ?? null };
}

/** Sets the providers given (null removes one); the others stay. Every one is checked before any is written. */
export async function updatePayoutProviders(
  ctx: Ctx,
  accountId: number,
  body: { paypal?: PayPalBody; paypalSandbox?: PayPalBody; stripe?: StripeBody; stripeTest?: StripeBody },
): Promise<void> {
  const now = ctx.now();
  const writes: { provider: 'paypal' | 'stripe'; live: boolean; row: CredentialColumns | null }[] = [];
  for (const field of Object.keys(FIELDS) as (keyof typeof FIELDS)[]) {
    const value = body[field];
    if (value === undefined) continue;
    const [provider, live] = FIELDS[field];
    const row = value === null ? null : credentialRow(field, value, await ctx.store.payoutProfiles.credential(accountId, provider, live));
    writes.push({ provider, live, row });
  }
  if (writes.length === 0) return;
  await ctx.store.transaction(async (tx) => {
    for (const w of writes) await tx.payoutProfiles.putCredential(accountId, w.provider, w.live, w.row, now);
  });
}

export interface PayPalCredentialsOf {
  clientId: string;
  clientSecret: string;
  webhookId: string | null;
}

/** The PayPal credentials a campaign is paid with: the sandbox's for a test campaign. */
export async function paypalCredentials(ctx: Ctx, accountId: number, live: boolean): Promise<PayPalCredentialsOf | undefined> {
  const r = await ctx.store.payoutProfiles.credential(accountId, 'paypal', live);
  return r && r.client_id && r.secret ? { clientId: r.client_id, clientSecret: r.secret, webhookId: r.webhook } : undefined;
}

/** The Stripe key a campaign's Connect payouts are made with: the test key for a test campaign. */
export async function stripeConnectCredentials(ctx: Ctx, accountId: number, live: boolean): Promise<{ secretKey: string; webhookSecret: string | null } | undefined> {
  const r = await ctx.store.payoutProfiles.credential(accountId, 'stripe', live);
  return r && r.secret ? { secretKey: r.secret, webhookSecret: r.webhook } : undefined;
}

/** What the setting is called that pays a campaign of this mode by this method, for reasons a payout waits. */
export const credentialsName = (method: 'paypal' | 'stripe_connect', live: boolean) =>
  method === 'paypal' ? (live ? 'paypal' : 'paypalSandbox') : live ? 'stripe' : 'stripeTest';
