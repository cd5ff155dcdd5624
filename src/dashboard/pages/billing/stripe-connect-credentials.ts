/**
 * One set of Stripe Connect keys of the account: the live ones (`stripe`, live campaigns) or the test
 * ones (`stripeTest`, test campaigns): the secret key and the Connect endpoint's signing secret, both
 * write-only (only whether each is set shows): either left empty keeps the stored one.
 */
import { customElement, property } from 'lit/decorators.js';
import { ProviderCard, given } from './provider-card.js';

type Field = 'stripe' | 'stripeTest';
const NAMES: Record<Field, { title: string; mode: string; key: string; campaigns: string }> = {
  stripe: { title: 'Stripe Connect', mode: 'Live campaigns pay participants’ Express accounts with transfers from your Stripe balance.', key: 'rk_live_... or sk_live_...', campaigns: 'live campaigns' },
  stripeTest: { title: 'Stripe Connect test', mode: 'Test campaigns pay with your Stripe test keys: no real money moves.', key: 'rk_test_... or sk_test_...', campaigns: 'test campaigns' },
};

/**
 * @summary A Stripe Connect keys card of the Payout providers page.
 *
 * @property field - `stripe` (live) or `stripeTest` (test campaigns).
 * @property settings - The account's settings, as last read.
 *
 * @event account-settings-changed - Bubbles with the settings the service answered after a save or removal.
 */
@customElement('rk-stripe-connect-credentials')
export class StripeConnectCredentials extends ProviderCard<Field> {
  @property({ reflect: true }) field: Field = 'stripe';

  override render() {
    const current = this.current;
    const { title, mode, key, campaigns } = NAMES[this.field];
    return this.card({
      title,
      mode,
      noun: 'keys',
      fields: ['secretKey', 'connectWebhookSecret'],
      afterRemove: `Payouts of ${campaigns} by Stripe Connect wait, with the reason, until keys are set again.`,
      value: (data) => {
        const [secretKey, connectWebhookSecret] = [given(data, 'secretKey'), given(data, 'connectWebhookSecret')];
        return { ...(secretKey && { secretKey }), ...(connectWebhookSecret && { connectWebhookSecret }) };
      },
      inputs: [
        this.input({
          name: 'secretKey',
          label: 'Secret key',
          secretSet: current?.secretKeyConfigured ?? false,
          placeholder: key,
          required: !current?.secretKeyConfigured,
          hint: 'A restricted key with Connect write access, or the secret key. Never shown again here, only whether it is set.',
        }),
        this.input({
          name: 'connectWebhookSecret',
          label: 'Connect endpoint signing secret',
          secretSet: current?.connectWebhookSecretConfigured ?? false,
          placeholder: 'whsec_...',
          required: false,
          hint: 'Of the endpoint you add with the receiver URL above. Left empty, the stored one stays.',
        }),
      ],
    });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-stripe-connect-credentials': StripeConnectCredentials;
  }
}
