/**
 * One set of PayPal REST app credentials of the account: the live ones (`paypal`, live campaigns) or the
 * sandbox's (`paypalSandbox`, test campaigns). The client id and webhook id are shown; the secret is
 * write-only (only whether it is set shows): left empty, the stored one stays, unless the client id is
 * another app's.
 */
import { customElement, property } from 'lit/decorators.js';
import { ProviderCard, given } from './provider-card.js';

type Field = 'paypal' | 'paypalSandbox';
const NAMES: Record<Field, { title: string; mode: string; remove: string }> = {
  paypal: { title: 'PayPal', mode: 'Live campaigns are paid through this app of your PayPal business account (with Payouts enabled).', remove: 'live campaigns' },
  paypalSandbox: { title: 'PayPal sandbox', mode: 'Test campaigns are paid through this sandbox app: no real money moves.', remove: 'test campaigns' },
};

/**
 * @summary A PayPal credentials card of the Payout providers page.
 *
 * @property field - `paypal` (live) or `paypalSandbox` (test campaigns).
 * @property settings - The account's settings, as last read.
 *
 * @event account-settings-changed - Bubbles with the settings the service answered after a save or removal.
 */
@customElement('rk-paypal-credentials')
export class PayPalCredentials extends ProviderCard<Field> {
  @property({ reflect: true }) field: Field = 'paypal';

  override render() {
    const current = this.current;
    const { title, mode, remove } = NAMES[this.field];
    return this.card({
      title,
      mode,
      noun: 'credentials',
      fields: ['clientId', 'clientSecret', 'webhookId'],
      afterRemove: `Payouts of ${remove} by PayPal wait, with the reason, until credentials are set again.`,
      // A secret left empty keeps the stored one (the service asks for it the first time and with a new client ID).
      value: (data) => {
        const [clientSecret, webhookId] = [given(data, 'clientSecret'), given(data, 'webhookId')];
        return { clientId: given(data, 'clientId') ?? '', ...(clientSecret && { clientSecret }), ...(webhookId && { webhookId }) };
      },
      inputs: [
        this.input({ name: 'clientId', label: 'Client ID', value: current?.clientId ?? '', required: true, hint: 'On the app’s page in PayPal’s developer dashboard (Apps & Credentials).' }),
        this.input({
          name: 'clientSecret',
          label: 'Client secret',
          secretSet: current?.clientSecretConfigured ?? false,
          required: !current?.clientSecretConfigured,
          hint: 'Never shown again here, only whether it is set. Left empty, the stored one stays; a new client ID needs its own.',
        }),
        this.input({
          name: 'webhookId',
          label: 'Webhook ID',
          value: current?.webhookId ?? '',
          required: false,
          hint: 'The ID PayPal gives the webhook you add with the receiver URL above. Without it, payouts are followed by asking PayPal, hourly.',
        }),
      ],
    });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-paypal-credentials': PayPalCredentials;
  }
}
