/**
 * The Payouts page of a campaign: its cash payout settings, "Make a payout run" (after a confirmation; the
 * report of the run: payouts made, participants skipped and why), the cash payouts with approval, and the
 * rewards paid into Stripe as customer credit beside them (the same list as on the Billing page).
 */
import { css, html, nothing } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import type { CampaignSettings } from '../../../api/client.js';
import type { CreatePayoutsAnswer, PayoutMethod } from '../../../api/payout-schemas.js';
import type { AccountSettings } from '../../../api/settings-schemas.js';
import { api } from '../../api.js';
import { confirmAction } from '../../confirm.js';
import { Page } from '../../page.js';
import { href } from '../../router.js';
import { METHOD, cash } from './cash-payout-view.js';
import type { CashPayouts } from './cash-payouts.js';
import './cash-payout-settings.js';
import './cash-payouts.js';
import './payout-run-report.js';
import './stripe-payouts.js';

/** Whether the account can pay a campaign of this mode by this method (its test or live credentials are set). */
function connected(settings: AccountSettings, method: PayoutMethod, test: boolean): boolean {
  if (method === 'paypal') return (test ? settings.paypalSandbox : settings.paypal)?.clientSecretConfigured ?? false;
  return (test ? settings.stripeTest : settings.stripe)?.secretKeyConfigured ?? false;
}

/**
 * @summary The Payouts page of a campaign (`#/campaigns/:id/payouts`).
 *
 * @property campaignId - The campaign.
 * @property campaign - The campaign's settings, as the shell last read them.
 */
@customElement('rk-payouts')
export class Payouts extends Page {
  static override styles = [
    ...Page.styles,
    css`
      rk-cash-payout-settings, rk-payout-run-report, rk-cash-payouts, rk-stripe-payouts { display: block; }
      rk-payout-run-report { margin-top: 16px; }
      .warn { border-radius: 8px; padding: 10px 14px; margin-bottom: 16px; background: var(--warn-soft); color: var(--warn); border: 1px solid #fedf89; }
      .warn a { color: inherit; text-decoration: underline; }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private run: CreatePayoutsAnswer | undefined;
  @state() private running = false;
  /** The account's payout providers, to say when the campaign's methods have none (undefined: not read, or not readable). */
  @state() private account: AccountSettings | undefined;
  @query('rk-cash-payouts') private list!: CashPayouts;

  override connectedCallback(): void {
    super.connectedCallback();
    // Only to warn of a provider not connected: a member who may not read the settings just sees no warning.
    api()
      .getAccountSettings()
      .then((s) => (this.account = s))
      .catch(() => undefined);
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      this.run = undefined;
    }
  }

  async #makeRun() {
    const settings = this.campaign?.cashPayouts;
    if (!settings) return;
    const minimum = cash(settings.minimum, this.campaign?.rewardCurrency ?? 'USD');
    const ok = await confirmAction(
      this,
      'Make a payout run?',
      `Every participant whose available balances come to ${minimum} or more, and who chose a way to be paid, gets a payout of all of it, held from their balance. ` +
        (settings.approval ? 'The payouts wait for your approval before anything is sent.' : 'The payouts are sent at once: this campaign does not ask for approval.'),
      settings.approval ? 'Make the run' : 'Make the run and send',
      !settings.approval,
    );
    if (!ok) return;
    this.notice = '';
    this.running = true;
    const run = await this.attempt(() => api().createPayouts(this.campaignId));
    this.running = false;
    if (!run) return;
    this.run = run;
    await this.list?.refresh();
  }

  /** Methods the campaign pays by that the account has no credentials for in the campaign's mode. */
  #unconnected(): PayoutMethod[] {
    const c = this.campaign;
    if (!c?.cashPayouts || !this.account) return [];
    return c.cashPayouts.methods.filter((m) => !connected(this.account!, m, c.test ?? false));
  }

  #providerWarning() {
    const missing = this.#unconnected();
    if (missing.length === 0) return nothing;
    const mode = this.campaign?.test ? 'test campaigns (sandbox or test credentials)' : 'live campaigns';
    return html`<p class="warn" role="note">
      ${missing.map((m) => METHOD[m]).join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not connected for ${mode}: approved payouts by
      ${missing.length === 1 ? 'it' : 'them'} wait, with the reason, until ${missing.length === 1 ? 'it is' : 'they are'}.
      <a href=${href.payoutProviders()}>Set up payout providers</a>
    </p>`;
  }

  override render() {
    const c = this.campaign;
    const canRun = this.mayChange && !!c?.cashPayouts;
    return html`<div class="page-head">
        <div>
          <h1>Payouts</h1>
          <p>${c?.campaignName ?? this.campaignId}</p>
        </div>
        ${canRun
          ? html`<div class="actions"><button class="primary" ?disabled=${this.running} @click=${this.#makeRun}>${this.running ? 'Making the run…' : 'Make a payout run'}</button></div>`
          : nothing}
      </div>
      ${this.messages()} ${this.#providerWarning()}
      <rk-cash-payout-settings .campaignId=${this.campaignId} .campaign=${c}></rk-cash-payout-settings>
      ${this.run
        ? html`<rk-payout-run-report
            .campaignId=${this.campaignId}
            .run=${this.run}
            @show-run=${(e: CustomEvent<string>) => this.list?.showRun(e.detail)}
            @dismiss=${() => (this.run = undefined)}
          ></rk-payout-run-report>`
        : nothing}
      <rk-cash-payouts .campaignId=${this.campaignId}></rk-cash-payouts>
      <rk-stripe-payouts .campaignId=${this.campaignId} heading="Paid into Stripe">
        <p slot="intro" class="muted">
          Rewards paid into each participant’s Stripe customer as balance credit or a promotion code, apart from cash: set up under
          <a href=${href.billing(this.campaignId)}>Billing</a>.
        </p>
      </rk-stripe-payouts>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-payouts': Payouts;
  }
}
