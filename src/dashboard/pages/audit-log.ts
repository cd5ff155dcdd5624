/** The audit log: who changed what, when, from where; filtered, paged, downloadable as CSV. Read-only. */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { AuditEntry, AuditFilters, CampaignSettings } from '../../api/client.js';
import { api } from '../api.js';
import { dateTime } from '../format.js';
import { Page } from '../page.js';

/** A snapshot, short: the fields that differ between before and after, else the whole of one side. */
function changed(e: AuditEntry): string {
  const before = e.before as Record<string, unknown> | null;
  const after = e.after as Record<string, unknown> | null;
  if (before && after && typeof before === 'object' && typeof after === 'object') {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    return keys.map((k) => `${k}: ${JSON.stringify(before[k]) ?? '—'} → ${JSON.stringify(after[k]) ?? '—'}`).join('; ');
  }
  return JSON.stringify(after ?? before ?? '') ?? '';
}

/** At most a few lines of it: the CSV export and the API have the whole snapshots. */
const short = (text: string) => (text.length > 160 ? `${text.slice(0, 159)}…` : text);

@customElement('rk-audit-log')
export class AuditLog extends Page {
  static override styles = [
    ...Page.styles,
    css`
      form.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px; align-items: end; }
      form.filters .field { margin: 0; }
      .actions { display: flex; gap: 8px; }
      td.what { min-width: 260px; max-width: 420px; overflow-wrap: anywhere; font-size: 13px; }
      .more { margin-top: 16px; }
    `,
  ];
  @property({ attribute: false }) campaigns: CampaignSettings[] = [];
  @state() private entries: AuditEntry[] = [];
  @state() private next: string | undefined;
  @state() private filters: AuditFilters = {};

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  async #load(cursor?: string) {
    const page = await this.attempt(() => api().listAuditLogPage(this.filters, { pageSize: 50, ...(cursor && { cursor }) }));
    if (!page) return;
    this.entries = cursor ? [...this.entries, ...page.items] : page.items;
    this.next = page.nextCursor;
  }

  #apply(e: SubmitEvent) {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const text = (name: string) => String(data.get(name) ?? '').trim() || undefined;
    const instant = (name: string) => (text(name) ? new Date(text(name)!).toISOString() : undefined);
    this.filters = Object.fromEntries(
      Object.entries({ actor: text('actor'), action: text('action'), campaignId: text('campaignId'), from: instant('from'), to: instant('to') }).filter(([, v]) => v !== undefined),
    );
    void this.#load();
  }

  override render() {
    return html`<div class="page-head">
        <div>
          <h1>Audit log</h1>
          <p>Every change made in the dashboard, with the API or the CLI: who, when, what, before and after, from which address. Kept forever; nobody can edit it.</p>
        </div>
      </div>
      ${this.messages()}
      <section class="card" aria-labelledby="filter-h">
        <h2 id="filter-h">Filter</h2>
        <form class="filters" @submit=${this.#apply}>
          <div class="field"><label for="actor">Who</label><input id="actor" name="actor" placeholder="email, key prefix or cli" /></div>
          <div class="field"><label for="action">Action</label><input id="action" name="action" placeholder="e.g. updateCampaign" /></div>
          <div class="field">
            <label for="campaignId">Campaign</label>
            <select id="campaignId" name="campaignId">
              <option value="">Any</option>
              ${this.campaigns.map((c) => html`<option value=${c.campaignId!}>${c.campaignName}</option>`)}
            </select>
          </div>
          <div class="field"><label for="from">From</label><input id="from" name="from" type="datetime-local" /></div>
          <div class="field"><label for="to">To</label><input id="to" name="to" type="datetime-local" /></div>
          <div class="actions">
            <button class="primary" type="submit">Apply</button>
            <a class="button" href=${api().exportAuditLogUrl(this.filters)} download>Download CSV</a>
          </div>
        </form>
      </section>
      <div class="table-wrap" tabindex="0" role="region" aria-label="Audit log entries">
        <table>
          <thead><tr><th>When</th><th>Who</th><th>Action</th><th>Target</th><th>Change</th><th>Address</th></tr></thead>
          <tbody>
            ${this.entries.length === 0
              ? html`<tr><td colspan="6" class="empty">No entries.</td></tr>`
              : this.entries.map(
                  (e) => html`<tr>
                    <td>${dateTime(e.createdOn)}</td>
                    <td>${e.actor} <span class="badge">${e.actorRole}</span></td>
                    <td class="mono">${e.action}</td>
                    <td>${[e.campaignId, e.target].filter(Boolean).join(' · ') || '—'}</td>
                    <td class="what" title=${changed(e)}>${short(changed(e))}</td>
                    <td class="mono">${e.ip ?? '—'}</td>
                  </tr>`,
                )}
          </tbody>
        </table>
      </div>
      ${this.next ? html`<button class="more" @click=${() => this.#load(this.next)}>Show more</button>` : nothing}`;
  }
}
