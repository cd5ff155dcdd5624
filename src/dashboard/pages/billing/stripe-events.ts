/**
 * The Stripe events a campaign received, unmatched ones first: each unmatched one can be applied by hand
 * to a participant named by email, and its row then shows what it became.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { STRIPE_EVENT_STATUSES } from '../../../api/billing-schemas.js';
import type { StripeEventView } from '../../../api/client.js';
import { api } from '../../api.js';
import { dateTime, money } from '../../format.js';
import { Page } from '../../page.js';
import { participantLink } from '../../participant-link.js';

type Status = StripeEventView['status'];
/** The most the service lists at once. */
const LIMIT = 100;
const BADGES: Record<Status, string> = { applied: 'ok', unmatched: 'warn', ignored: '', held: 'warn' };

/**
 * @summary The received-events table of a campaign's Billing page, with its status filter and matching by hand.
 *
 * @property campaignId - The campaign.
 */
@customElement('rk-stripe-events')
export class StripeEvents extends Page {
  static override styles = [
    ...Page.styles,
    css`
      tr.unmatched td { background: var(--warn-soft); }
      td.event code, td.event .muted, td.who .reason { display: block; }
      td.event .muted, td.who .reason { font-size: 12px; overflow-wrap: anywhere; }
      td.who { overflow-wrap: anywhere; }
      form.match { display: flex; gap: 6px; min-width: 240px; }
      form.match input { padding: 4px 8px; }
      .row-error { color: var(--danger); font-size: 12px; font-weight: 500; margin-top: 4px; }
      /* On a phone a labelled cell is a line of its label and one box: its parts go in that box. */
      @media (max-width: 640px) { td.who .participant { flex: 1; min-width: 0; } form.match { min-width: 0; } form.match input { min-width: 0; flex: 1; } }
    `,
  ];
  @property() campaignId = '';
  @state() private events: StripeEventView[] | undefined;
  @state() private status: '' | Status = '';
  /** A refused match, said in its row: the event id and the service's sentence. */
  @state() private matchError: { id: string; message: string } | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      void this.refresh();
    }
  }

  /**
   * Reads the events again. Unfiltered, the unmatched ones are read on their own as well: among the
   * newest events of a busy account an older unmatched one would be cut off, and it is the one that matters.
   */
  async refresh(): Promise<void> {
    const id = this.campaignId;
    const status = this.status;
    const events = await this.attempt(async () => {
      if (status) return api().listStripeEvents(id, status, LIMIT);
      const [unmatched, newest] = await Promise.all([api().listStripeEvents(id, 'unmatched', LIMIT), api().listStripeEvents(id, undefined, LIMIT)]);
      // Unmatched first: they need the owner.
      return [...unmatched, ...newest.filter((e) => e.status !== 'unmatched')];
    });
    // The filter or the campaign changed while this was on its way: a newer read replaces it.
    if (events && id === this.campaignId && status === this.status) this.events = events;
  }

  async #match(e: SubmitEvent, event: StripeEventView) {
    e.preventDefault();
    const email = String(new FormData(e.currentTarget as HTMLFormElement).get('email')).trim();
    this.matchError = undefined;
    this.notice = '';
    const matched = await this.attempt(() => api().matchStripeEvent(this.campaignId, event.id, email));
    if (matched) {
      this.events = this.events?.map((x) => (x.id === matched.id ? matched : x));
      this.notice = `${event.id} applied to ${matched.participantEmail ?? email}.`;
    } else {
      // Said in the row, beside the email it is about, rather than at the top of the table.
      this.matchError = { id: event.id, message: this.error };
      this.error = '';
    }
  }

  #amount(e: StripeEventView) {
    if (e.amount === undefined) return '—';
    const value = money(e.amount, (e.currency ?? 'usd').toUpperCase());
    return e.action === 'refund' ? html`${value} <span class="muted">refund</span>` : value;
  }

  /** Who the event was applied to, the form to match it by hand while unmatched, and why it was not applied. */
  #participant(e: StripeEventView) {
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

  #row(e: StripeEventView) {
    return html`<tr class=${e.status}>
      <td class="event"><code>${e.type}</code><span class="muted mono">${e.id}</span><span class="muted">Received ${dateTime(e.receivedOn)}</span></td>
      <td data-label="Status"><span class="badge ${BADGES[e.status]}">${e.status}</span></td>
      <td class="num" data-label="Amount">${this.#amount(e)}</td>
      <td class="who" data-label="Customer">
        <div>${e.email ?? (e.code ? nothing : '—')}${e.code ? html` <span class="badge info" title="Referral code">${e.code}</span>` : nothing}</div>
      </td>
      <td class="who" data-label="Participant"><div class="participant">${this.#participant(e)}</div></td>
    </tr>`;
  }

  override render() {
    const events = this.events;
    const unmatched = events?.filter((e) => e.status === 'unmatched').length ?? 0;
    return html`<div class="head2">
        <div>
          <h2 id="events-h">Received events</h2>
          ${unmatched > 0 && this.status !== 'unmatched'
            ? html`<p class="muted" style="margin:4px 0 0">${unmatched === 1 ? '1 event names' : `${unmatched} events name`} no participant: match ${unmatched === 1 ? 'it' : 'them'} by email.</p>`
            : nothing}
        </div>
        <div class="actions">
          <div class="field">
            <label for="event-status">Status</label>
            <select id="event-status" @change=${(e: Event) => ((this.status = (e.target as HTMLSelectElement).value as Status), void this.refresh())}>
              <option value="">All</option>
              ${STRIPE_EVENT_STATUSES.map((s) => html`<option value=${s}>${s[0]!.toUpperCase()}${s.slice(1)}</option>`)}
            </select>
          </div>
          <button @click=${() => this.refresh()}>Refresh</button>
        </div>
      </div>
      ${this.messages()}
      <div class="table-wrap">
        <table class="records" aria-labelledby="events-h">
          <thead><tr><th>Event</th><th>Status</th><th class="num">Amount</th><th>Customer</th><th>Participant</th></tr></thead>
          <tbody>
            ${events === undefined
              ? nothing
              : events.length === 0
                ? html`<tr><td colspan="5" class="empty">No ${this.status ? `${this.status} ` : ''}event yet.</td></tr>`
                : events.map((e) => this.#row(e))}
          </tbody>
        </table>
      </div>`;
  }
}
