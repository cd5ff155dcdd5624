/**
 * Webhooks of the mode shown (live or test): endpoints (secret shown once, event types, removal) and the delivery
 * log of those endpoints, with attempts, filter and redelivery.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { WebhookDelivery, WebhookEndpoint } from '../../api/client.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../api/schemas.js';
import { api } from '../api.js';
import { confirmAction } from '../confirm.js';
import { count, dateTime } from '../format.js';
import { Page } from '../page.js';
import { deliveryBadge } from '../status.js';
import { participantLink } from '../participant-link.js';
import { ofMode, testBadge } from '../test-mode.js';

// Every type the service sends, all selected by default.
const EVENT_TYPES = WEBHOOK_EVENT_TYPES;
type Status = '' | 'pending' | 'delivered' | 'failed';

@customElement('rk-webhooks')
export class Webhooks extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .types { display: flex; gap: 16px; flex-wrap: wrap; margin-top: 4px; }
      .types label { display: inline-flex; gap: 6px; align-items: center; font-weight: 400; margin: 0; }
      .attempts { background: #f9fafb; }
      .attempts ul { margin: 0; padding-left: 18px; }
      .url { word-break: break-all; }
      td.url { min-width: 22ch; }
      td.event a { display: block; overflow-wrap: anywhere; }
    `,
  ];
  /** Test mode is on: test endpoints (which get test campaigns' events only) are listed and added. */
  @property({ type: Boolean }) testMode = false;
  @state() private endpoints: WebhookEndpoint[] = [];
  @state() private deliveries: WebhookDelivery[] = [];
  @state() private status: Status = '';
  @state() private secret: { url: string; secret: string } | undefined;
  @state() private open = new Set<string>();

  protected override willUpdate(changed: Map<string, unknown>): void {
    // The first render, and each switch of mode (what was said of the other mode's endpoints goes).
    if (changed.has('testMode')) {
      this.forgetMessages();
      this.secret = undefined;
      void this.#load();
    }
  }

  async #load() {
    const mode = this.testMode ? 'test' : 'live';
    const r = await this.attempt(() => Promise.all([api().listWebhookEndpoints(), api().listWebhookDeliveries({ mode, limit: 100, ...(this.status && { status: this.status }) })]));
    if (!r) return;
    this.endpoints = ofMode(r[0], this.testMode);
    // A delivery is of its endpoint's mode: the service lists the 100 newest of the mode shown.
    this.deliveries = r[1];
  }

  async #add(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const eventTypes = data.getAll('eventTypes') as WebhookEventType[];
    if (eventTypes.length === 0) {
      this.error = 'Choose at least one event type.';
      return;
    }
    const created = await this.attempt(() => api().createWebhookEndpoint({ url: String(data.get('url')).trim(), eventTypes, test: this.testMode }));
    if (!created) return;
    form.reset();
    this.secret = { url: created.url, secret: created.secret };
    await this.#load();
  }

  async #remove(ep: WebhookEndpoint) {
    if (!(await confirmAction(this, 'Remove this endpoint?', `${ep.url} gets no more events; deliveries waiting for it end as failed.`, 'Remove endpoint', true))) return;
    if (await this.attempt(() => api().deleteWebhookEndpoint(ep.id))) {
      this.notice = 'Endpoint removed.';
      await this.#load();
    }
  }

  async #redeliver(d: WebhookDelivery) {
    if (await this.attempt(() => api().redeliverWebhook(d.id))) {
      this.notice = 'Sent again; the log shows the new attempt once it is made.';
      await this.#load();
    }
  }

  #toggle(id: string) {
    const open = new Set(this.open);
    if (open.has(id)) open.delete(id);
    else open.add(id);
    this.open = open;
  }

  /** Adding an endpoint: a change, for a role that may make one. */
  #addForm() {
    return html`<section class="card" aria-labelledby="add-h">
        <h2 id="add-h">${this.testMode ? 'Add a test endpoint' : 'Add an endpoint'}</h2>
        ${this.testMode ? html`<p class="muted">A test endpoint gets test campaigns' events only, each with <code>"livemode": false</code>.</p>` : nothing}
        <form class="add" @submit=${this.#add}>
          <div>
            <div class="field" style="margin-bottom:8px"><label for="url">Endpoint URL</label><input id="url" name="url" type="url" required placeholder="https://api.example.com/hooks/refkit" /></div>
            <fieldset class="types">
              <legend class="sr-only">Event types</legend>
              ${EVENT_TYPES.map((t) => html`<label><input type="checkbox" name="eventTypes" value=${t} checked /> <code>${t}</code></label>`)}
            </fieldset>
          </div>
          <button class="primary" type="submit">Add endpoint</button>
        </form>
      </section>`;
  }

  override render() {
    const urlOf = new Map(this.endpoints.map((e) => [e.id, e.url]));
    return html`<div class="page-head">
        <div>
          <h1>Webhooks</h1>
          <p>Your backend hears of sign-ups and rewards as they happen, signed per Standard Webhooks.</p>
        </div>
      </div>
      ${this.messages()}
      ${this.secret
        ? html`<div class="notice" role="status">
            <strong>Endpoint added.</strong> Its signing secret is shown this once: store it now to verify signatures.
            <div class="secret"><code>${this.secret.secret}</code><button class="small" @click=${() => navigator.clipboard.writeText(this.secret!.secret)}>Copy</button></div>
          </div>`
        : nothing}
      ${this.mayChange ? this.#addForm() : nothing}
            <div class="head2"><h2>${this.testMode ? 'Test endpoints' : 'Endpoints'}</h2></div>
      <div class="table-wrap">
        <table class="records">
          <thead><tr><th>URL</th><th>Events</th><th>Added</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${this.endpoints.length === 0
              ? html`<tr><td colspan="4" class="empty">${this.testMode ? 'No test endpoint yet.' : 'No endpoint yet.'}</td></tr>`
              : this.endpoints.map(
                  (ep) => html`<tr>
                    <td class="url"><span class="mono">${ep.url}</span> ${testBadge(ep.test)}</td>
                    <td data-label="Events"><span>${ep.eventTypes.map((t) => html`<span class="badge info">${t}</span> `)}</span></td>
                    <td class="when" data-label="Added">${dateTime(ep.createdOn)}</td>
                    <td>${this.mayChange ? html`<button class="small danger-ghost" aria-label="Remove ${ep.url}" @click=${() => this.#remove(ep)}>Remove</button>` : nothing}</td>
                  </tr>`,
                )}
          </tbody>
        </table>
      </div>
      <div class="head2">
        <h2>Deliveries</h2>
        <div class="field" style="margin:0">
          <label for="status">Status</label>
          <select id="status" @change=${(e: Event) => ((this.status = (e.target as HTMLSelectElement).value as Status), void this.#load())}>
            <option value="">All</option><option value="pending">Pending</option><option value="delivered">Delivered</option><option value="failed">Failed</option>
          </select>
        </div>
      </div>
      <div class="table-wrap">
        <table class="records">
          <thead><tr><th>Event</th><th>Endpoint</th><th>Status</th><th class="num">Attempts</th><th>Created</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${this.deliveries.length === 0
              ? html`<tr><td colspan="6" class="empty">No deliveries${this.status ? ` with status ${this.status}` : ''}.</td></tr>`
              : this.deliveries.map(
                  (d) => html`<tr>
                      <td class="event">
                        <code>${d.eventType}</code>
                        ${d.participantEmail === undefined ? '' : participantLink(d.campaignId, d.participantEmail)}
                      </td>
                      <td class="url mono" data-label="Endpoint">${urlOf.get(d.endpointId) ?? d.endpointId}</td>
                      <td data-label="Status">${deliveryBadge(d.status)}</td>
                      <td class="num" data-label="Attempts">
                        <button class="small" aria-expanded=${this.open.has(d.id) ? 'true' : 'false'} @click=${() => this.#toggle(d.id)}>${count(d.attemptCount, 'attempt', 'attempts')}</button>
                      </td>
                      <td class="when" data-label="Created">${dateTime(d.createdOn)}</td>
                      <td>${this.mayChange ? html`<button class="small" @click=${() => this.#redeliver(d)}>Redeliver</button>` : nothing}</td>
                    </tr>
                    ${this.open.has(d.id)
                      ? html`<tr class="attempts">
                          <td colspan="6">
                            ${d.attempts.length === 0
                              ? html`<span class="muted">No attempt yet${d.nextAttemptOn ? `; next at ${dateTime(d.nextAttemptOn)}` : ''}.</span>`
                              : html`<ul>
                                  ${d.attempts.map(
                                    (a) => html`<li>${dateTime(a.attemptedOn)}: ${a.statusCode !== null ? html`HTTP <strong>${a.statusCode}</strong>` : html`<strong>no answer</strong>`}${a.error && a.error !== `HTTP ${a.statusCode}` ? ` (${a.error})` : ''}, ${a.durationMs} ms</li>`,
                                  )}
                                </ul>`}
                            ${d.nextAttemptOn && d.attempts.length > 0 ? html`<div class="muted">Next attempt ${dateTime(d.nextAttemptOn)}</div>` : nothing}
                          </td>
                        </tr>`
                      : nothing}`,
                )}
          </tbody>
        </table>
      </div>`;
  }
}
