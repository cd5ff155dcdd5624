/**
 * The events one payment provider (Paddle, Lemon Squeezy, ...) sent a campaign, unmatched ones first: what
 * each became (and why), its amount in its currency and, when that is not the campaign's, what it was
 * converted to and how. Each unmatched one can be applied by hand to a participant named by email.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { PAYMENT_EVENT_STATUSES, type PaymentEventView } from '../../../api/payment-source-schemas.js';
import type { CampaignSettings } from '../../../api/client.js';
import { api } from '../../api.js';
import { dateTime, money } from '../../format.js';
import { Page } from '../../page.js';
import { participantLink } from '../../participant-link.js';

type Status = PaymentEventView['status'];
/** The most the service lists at once. */
const LIMIT = 100;
const BADGES: Record<Status, string> = { applied: 'ok', unmatched: 'warn', ignored: '', held: 'warn' };
const ACTIONS: Record<string, string> = { refund: 'refund', dispute: 'dispute', dispute_won: 'dispute won', dispute_lost: 'dispute lost' };

/**
 * @summary A provider's received events on the Billing page, with an outcome filter and matching by hand.
 *
 * @property campaignId - The campaign.
 * @property campaign - Its settings (the reward currency converted amounts are in).
 * @property provider - The provider whose events are listed (`paddle`, `lemonsqueezy`, ...).
 * @property providerName - Its name as people write it.
 */
@customElement('rk-payment-events')
export class PaymentEvents extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .head2 { margin-top: 24px; }
      tr.unmatched td { background: var(--warn-soft); }
      td.event code, td.event .muted, td.who .reason, td.num .sub { display: block; }
      td.event .muted, td.who .reason, td.num .sub { font-size: 12px; overflow-wrap: anywhere; }
      td.who { overflow-wrap: anywhere; }
      form.match { display: flex; gap: 6px; min-width: 240px; }
      form.match input { padding: 4px 8px; }
      .row-error { color: var(--danger); font-size: 12px; font-weight: 500; margin-top: 4px; }
      /* Ids and rates are long: their columns keep room for them beside a long reason. */
      @media (min-width: 641px) { td.event { min-width: 200px; } td.num .amount { min-width: 160px; } }
      @media (max-width: 640px) { td.who .participant, td.num .amount { flex: 1; min-width: 0; } form.match { min-width: 0; } form.match input { min-width: 0; flex: 1; } }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @property() provider = '';
  @property() providerName = '';
  @state() private events: PaymentEventView[] | undefined;
  @state() private status: '' | Status = '';
  /** A refused match, said in its row: the event id and the service's sentence. */
  @state() private matchError: { id: string; message: string } | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if ((changed.has('campaignId') || changed.has('provider')) && this.campaignId && this.provider) {
      this.forgetMessages();
      this.events = undefined;
      this.matchError = undefined;
      void this.refresh();
    }
  }

  /** Reads the events again; unfiltered, the unmatched ones are read on their own too, so none is cut off by newer ones. */
  async refresh(): Promise<void> {
    const { campaignId: id, provider, status } = this;
    const events = await this.attempt(async () => {
      if (status) return api().listPaymentEvents(id, { provider, status, limit: LIMIT });
      const [unmatched, newest] = await Promise.all([
        api().listPaymentEvents(id, { provider, status: 'unmatched', limit: LIMIT }),
        api().listPaymentEvents(id, { provider, limit: LIMIT }),
      ]);
      // Unmatched first: they need the owner.
      return [...unmatched, ...newest.filter((e) => e.status !== 'unmatched')];
    });
    // The filter, the provider or the campaign changed while this was on its way: a newer read replaces it.
    if (events && id === this.campaignId && provider === this.provider && status === this.status) this.events = events;
  }

  async #match(e: SubmitEvent, event: PaymentEventView) {
    e.preventDefault();
    const email = String(new FormData(e.currentTarget as HTMLFormElement).get('email')).trim();
    this.matchError = undefined;
    this.notice = '';
    const matched = await this.attempt(() => api().matchPaymentEvent(this.campaignId, event.id, email));
    if (matched) {
      this.events = this.events?.map((x) => (x.id === matched.id ? matched : x));
      this.notice = `${event.id} applied to ${matched.participantEmail ?? email}.`;
    } else {
      // Said in the row, beside the email it is about.
      this.matchError = { id: event.id, message: this.error };
      this.error = '';
    }
  }

  /** The amount in its currency, and what it came to in the campaign's currency with the rate used. */
  #amount(e: PaymentEventView) {
    if (e.amount === undefined) return '—';
    const value = money(e.amount, (e.currency ?? this.campaign?.rewardCurrency ?? 'USD').toUpperCase());
    const action = e.action && ACTIONS[e.action];
    return html`<div class="amount">
      ${value}${action ? html` <span class="muted">${action}</span>` : nothing}
      ${e.convertedAmount !== undefined
        ? html`<span class="sub">= ${money(e.convertedAmount, this.campaign?.rewardCurrency ?? 'USD')}</span>`
        : nothing}
      ${e.rate ? html`<span class="sub muted">${e.rate}</span>` : nothing}
    </div>`;
  }

  /** Who the event was applied to, the form to match it by hand while unmatched, and why it was not applied. */
  #participant(e: PaymentEventView) {
    const error = this.matchError?.id === e.id ? this.matchError.message : '';
    return html`${e.participantEmail ? participantLink(this.campaignId, e.participantEmail) : nothing}
    ${e.status === 'unmatched' && this.mayChange
      ? html`<form class="match" @submit=${(ev: SubmitEvent) => this.#match(ev, e)}>
            <input
              name="email"
              type="email"
              required
              placeholder="participant@example.com"
              aria-label="Participant for ${e.id}"
              aria-invalid=${error ? 'true' : 'false'}
              aria-describedby=${error ? `err-${e.id}` : nothing}
            />
            <button class="small primary" type="submit" aria-label="Match ${e.id}">Match</button>
          </form>
          ${error ? html`<div class="row-error" id="err-${e.id}" role="alert">${error}</div>` : nothing}`
      : nothing}
    ${e.reason ? html`<span class="muted reason">${e.reason}</span>` : nothing}
    ${!e.participantEmail && e.status !== 'unmatched' && !e.reason ? '—' : nothing}`;
  }

  #row(e: PaymentEventView) {
    const codes = html`${e.code ? html` <span class="badge info" title="Referral code">${e.code}</span>` : nothing}${e.referrerCode
      ? html` <span class="badge" title="A participant’s code used as the discount code">referred by ${e.referrerCode}</span>`
      : nothing}`;
    return html`<tr class=${e.status}>
      <td class="event"><code>${e.type}</code><span class="muted mono">${e.id}</span><span class="muted">Received ${dateTime(e.receivedOn)}</span></td>
      <td data-label="Outcome"><span class="badge ${BADGES[e.status]}">${e.status}</span></td>
      <td class="num" data-label="Amount">${this.#amount(e)}</td>
      <td class="who" data-label="Customer"><div>${e.email ?? (e.code || e.referrerCode ? nothing : '—')}${codes}</div></td>
      <td class="who" data-label="Participant"><div class="participant">${this.#participant(e)}</div></td>
    </tr>`;
  }

  override render() {
    const { events, providerName: name } = this;
    const unmatched = events?.filter((e) => e.status === 'unmatched').length ?? 0;
    return html`<div class="head2">
        <div>
          <h3 id="pe-h" style="margin:0">Events from ${name}</h3>
          ${unmatched > 0 && this.status !== 'unmatched'
            ? html`<p class="muted" style="margin:4px 0 0">${unmatched === 1 ? '1 event names' : `${unmatched} events name`} no participant: match ${unmatched === 1 ? 'it' : 'them'} by email.</p>`
            : nothing}
        </div>
        <div class="actions">
          <div class="field">
            <label for="pe-outcome">Outcome</label>
            <select id="pe-outcome" @change=${(e: Event) => ((this.status = (e.target as HTMLSelectElement).value as Status), void this.refresh())}>
              <option value="" ?selected=${this.status === ''}>All</option>
              ${PAYMENT_EVENT_STATUSES.map((s) => html`<option value=${s} ?selected=${this.status === s}>${s[0]!.toUpperCase()}${s.slice(1)}</option>`)}
            </select>
          </div>
          <button @click=${() => this.refresh()}>Reload ${name} events</button>
        </div>
      </div>
      ${this.messages()}
      <div class="table-wrap">
        <table class="records" aria-labelledby="pe-h">
          <thead><tr><th>Event</th><th>Outcome</th><th class="num">Amount</th><th>Customer</th><th>Participant</th></tr></thead>
          <tbody>
            ${events === undefined
              ? nothing
              : events.length === 0
                ? html`<tr><td colspan="5" class="empty">No ${this.status ? `${this.status} ` : ''}event from ${name} yet.</td></tr>`
                : events.map((e) => this.#row(e))}
          </tbody>
        </table>
      </div>`;
  }
}
