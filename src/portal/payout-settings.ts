/**
 * Where the participant's money goes, with the dashboard's forms: their payout method (one of those the
 * campaign pays by: a PayPal address, or a bank account through Stripe Connect, whose onboarding Stripe
 * hosts) and their tax details (shown masked once on file). A change is told to the page
 * (`portal-changed`), which reads the portal again.
 */
import { LitElement, css, html, nothing, type PropertyValues } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { PortalMe } from '../api/portal-schemas.js';
import { base } from '../dashboard/styles.js';
import { describeFailure } from '../widget/failures.js';
import { ApiError, type PortalClient, type TaxDetailsInput } from './portal-client.js';
import { methodName } from './ledger-view.js';
import { t } from './texts.js';

type Method = 'paypal' | 'stripe_connect';

/** What to say of a refusal, in the page's language: by the field the service named, else by its code. */
function refusal(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.field === 'paypalEmail') return t.badPaypalEmail();
    if (err.field === 'tin') return t.badTin();
    if (err.field === 'country') return t.badCountry();
    if (err.field === 'legalName' || err.field === 'address') return t.fillIn();
    if (err.code === 'cash_payouts_off') return t.noCashRefusal();
    if (['encryption_key_missing', 'payouts_not_configured', 'payout_provider_error', 'unavailable'].includes(err.code)) {
      return t.notNow();
    }
  }
  return describeFailure(err, navigator.onLine).message;
}

@customElement('portal-payout-settings')
export class PortalPayoutSettings extends LitElement {
  static override styles = [
    base,
    css`
      :host { display: grid; gap: 16px; }
      .card + .card { margin-top: 0; }
      .choices { display: grid; gap: 8px; }
      .choice { display: flex; align-items: center; gap: 8px; font-weight: 500; font-size: 14px; margin: 0; }
      .choice input { width: auto; box-shadow: none; margin: 0; }
      textarea { min-height: 64px; }
      .hint { color: var(--muted); }
    `,
  ];

  @property({ attribute: false }) me!: PortalMe;
  @property({ attribute: false }) client!: PortalClient;
  /** A reward value as the page writes it. */
  @property({ attribute: false }) amount: (value: number) => string = String;
  @state() private method: Method | undefined;
  @state() private busy = false;
  @state() private error: { section: 'method' | 'tax'; text: string; field?: string | undefined } | undefined;
  @state() private notice: { section: 'method' | 'tax'; text: string } | undefined;
  @state() private editingTax = false;

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('me')) this.method = this.me.payoutMethod.method ?? this.me.cashPayouts?.methods[0];
  }

  async #run(section: 'method' | 'tax', fn: () => Promise<string | void>): Promise<void> {
    this.busy = true;
    this.error = undefined;
    this.notice = undefined;
    try {
      const said = await fn();
      if (said) this.notice = { section, text: said };
      this.dispatchEvent(new CustomEvent('portal-changed', { bubbles: true, composed: true }));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) this.dispatchEvent(new CustomEvent('portal-signed-out', { bubbles: true, composed: true }));
      this.error = { section, text: refusal(err), field: err instanceof ApiError ? err.field : undefined };
    } finally {
      this.busy = false;
    }
  }

  #saveMethod(e: SubmitEvent) {
    e.preventDefault();
    const method = this.method;
    if (!method) return;
    const data = new FormData(e.currentTarget as HTMLFormElement);
    return this.#run('method', async () => {
      if (method === 'paypal') {
        await this.client.setPayoutMethod('paypal', String(data.get('paypalEmail') ?? '').trim());
        return t.savedPaypal();
      }
      await this.client.setPayoutMethod('stripe_connect');
      // Stripe hosts the bank details; it sends the participant back to this page when they are done.
      location.assign((await this.client.connectStripe()).url);
    });
  }

  #saveTax(e: SubmitEvent) {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const field = (name: string) => String(data.get(name) ?? '').trim();
    const input: TaxDetailsInput = {
      form: field('form') === 'w8ben' ? 'w8ben' : 'w9',
      legalName: field('legalName'),
      tin: field('tin'),
      address: field('address'),
      country: field('country').toUpperCase(),
    };
    return this.#run('tax', async () => {
      await this.client.setTaxDetails(input);
      this.editingTax = false;
      return t.savedTax();
    });
  }

  #messages(section: 'method' | 'tax') {
    return html`${this.error?.section === section ? html`<div class="alert" role="alert">${this.error.text}</div>` : nothing}
      <div role="status">${this.notice?.section === section ? html`<div class="notice">${this.notice.text}</div>` : nothing}</div>`;
  }

  #invalid = (field: string) => (this.error?.field === field ? 'true' : 'false');

  #methodForm() {
    const cash = this.me.cashPayouts!;
    const current = this.me.payoutMethod;
    const stripeReady = current.stripeAccount !== null && current.stripePayoutsEnabled;
    return html`<section class="card" aria-labelledby="method-title">
      <h2 id="method-title">${t.whereMoneyGoes()}</h2>
      ${cash.minimum > 0 ? html`<p class="muted">${t.minimum(this.amount(cash.minimum))}</p>` : nothing}
      ${this.#messages('method')}
      <form @submit=${this.#saveMethod}>
        <fieldset>
          <legend>${t.payoutMethod()}</legend>
          <div class="choices">
            ${cash.methods.map(
              (m) => html`<label class="choice"
                ><input type="radio" name="method" value=${m} .checked=${this.method === m} @change=${() => (this.method = m)} />${methodName(m)}</label
              >`,
            )}
          </div>
        </fieldset>
        ${this.method === 'paypal'
          ? html`<div class="field">
              <label for="paypal-email">${t.paypalEmail()}</label>
              <input id="paypal-email" name="paypalEmail" type="email" autocomplete="email" required .value=${current.paypalEmail ?? ''} aria-invalid=${this.#invalid('paypalEmail')} />
            </div>`
          : html`<p class="muted" data-stripe=${stripeReady ? 'ready' : 'not-ready'}>
              ${stripeReady ? t.stripeReady() : t.stripeHowTo()}
            </p>`}
        <button class="primary" type="submit" ?disabled=${this.busy}>
          ${this.method === 'paypal' ? t.save() : stripeReady ? t.updateStripe() : t.connectStripe()}
        </button>
      </form>
    </section>`;
  }

  #taxSection() {
    const tax = this.me.taxDetails;
    const forms = { w9: t.w9(), w8ben: t.w8ben() };
    return html`<section class="card" aria-labelledby="tax-title">
      <h2 id="tax-title">${t.taxDetails()}</h2>
      <p class="muted">${t.taxIntro()}</p>
      ${this.#messages('tax')}
      ${tax && !this.editingTax
        ? html`<dl class="props" data-tax="on-file">
              <dt>${t.form()}</dt>
              <dd>${forms[tax.form]}</dd>
              <dt>${t.legalName()}</dt>
              <dd>${tax.legalName}</dd>
              <dt>${t.taxId()}</dt>
              <dd><bdi>${tax.tin}</bdi></dd>
              <dt>${t.country()}</dt>
              <dd>${tax.country}</dd>
            </dl>
            <p><button type="button" @click=${() => (this.editingTax = true)}>${t.replace()}</button></p>`
        : html`<form @submit=${this.#saveTax}>
            <div class="field">
              <label for="tax-form">${t.form()}</label>
              <select id="tax-form" name="form">
                <option value="w9">${forms.w9}</option>
                <option value="w8ben">${forms.w8ben}</option>
              </select>
            </div>
            <div class="field">
              <label for="legal-name">${t.legalName()}</label>
              <input id="legal-name" name="legalName" autocomplete="name" required maxlength="200" aria-invalid=${this.#invalid('legalName')} />
            </div>
            <div class="field">
              <label for="tin">${t.taxId()}</label>
              <input id="tin" name="tin" autocomplete="off" required maxlength="20" aria-invalid=${this.#invalid('tin')} aria-describedby="tin-hint" />
              <div class="hint" id="tin-hint">${t.taxIdHint()}</div>
            </div>
            <div class="field">
              <label for="address">${t.address()}</label>
              <textarea id="address" name="address" autocomplete="street-address" required maxlength="500" aria-invalid=${this.#invalid('address')}></textarea>
            </div>
            <div class="field">
              <label for="country">${t.country()}</label>
              <input id="country" name="country" autocomplete="country" required pattern="[A-Za-z]{2}" maxlength="2" aria-invalid=${this.#invalid('country')} aria-describedby="country-hint" />
              <div class="hint" id="country-hint">${t.countryHint()}</div>
            </div>
            <button class="primary" type="submit" ?disabled=${this.busy}>${t.saveTaxDetails()}</button>
          </form>`}
    </section>`;
  }

  protected override render() {
    if (!this.me.cashPayouts) {
      return html`<section class="card" aria-labelledby="method-title">
        <h2 id="method-title">${t.whereMoneyGoes()}</h2>
        <p class="muted">${t.noCash()}</p>
      </section>`;
    }
    return html`${this.#methodForm()} ${this.#taxSection()}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'portal-payout-settings': PortalPayoutSettings;
  }
}
