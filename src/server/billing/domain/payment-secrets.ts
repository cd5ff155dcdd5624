/** The campaign's write-only secrets of its payment providers (./payment-sources.ts): stored as JSON by provider, never shown. */
import { PAYMENT_PROVIDERS, PROVIDER_SECRET_FIELDS, type PaymentProvider } from '../../../api/payment-source-schemas.js';
import type { CampaignRow } from '../../store/store.js';

/** The campaign's secrets by provider, as stored (JSON). */
export function paymentSecretsOf(c: Pick<CampaignRow, 'payment_secrets'>): Partial<Record<PaymentProvider, string>> {
  return c.payment_secrets === null ? {} : (JSON.parse(c.payment_secrets) as Partial<Record<PaymentProvider, string>>);
}

/** The providers whose secret is set, for the settings (never the secrets). */
export const configuredSources = (c: Pick<CampaignRow, 'payment_secrets'>) => PAYMENT_PROVIDERS.filter((p) => paymentSecretsOf(c)[p] !== undefined);

/** The secrets after a change naming some of them ('' removes one); undefined when none is named. */
export function writePaymentSecrets(input: Partial<Record<(typeof PROVIDER_SECRET_FIELDS)[PaymentProvider], string>>, current?: CampaignRow): string | null | undefined {
  const given = PAYMENT_PROVIDERS.filter((p) => input[PROVIDER_SECRET_FIELDS[p]] !== undefined);
  if (given.length === 0) return undefined;
  const secrets = current ? paymentSecretsOf(current) : {};
  for (const p of given) {
    const value = input[PROVIDER_SECRET_FIELDS[p]]!;
    if (value === '') delete secrets[p];
    else secrets[p] = value;
  }
  return Object.keys(secrets).length === 0 ? null : JSON.stringify(secrets);
}

