/** The audit log: who changed what, when, from where; filtered, paged, downloadable as CSV. Read-only. */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { AuditEntry, AuditFilters, CampaignSettings } from '../../api/client.js';
import { api } from '../api.js';
import { dateTime } from '../format.js';
import { Page } from '../page.js';

/** A snapshot, short: the fields that differ between before and after, else the whole of one side. */
/** A snapshot's value as words: text as it is, none for nothing, yes/no, lists and objects compact. */
function shown(v: unknown): string {
  if (v === undefined || v === null || v === '') return 'none';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.length === 0 ? 'none' : v.map(shown).join(', ');
  return Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k} ${shown(x)}`).join(', ');
}

/** The fields of a snapshot, objects opened one level (`leaderboard.size`), so that a change names what changed in it. */
function fields(snapshot: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (snapshot === null || typeof snapshot !== 'object' || Array.isArray(snapshot)) return out;
  for (const [k, v] of Object.entries(snapshot as Record<string, unknown>)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) for (const [k2, v2] of Object.entries(v as Record<string, unknown>)) out.set(`${k}.${k2}`, v2);
    else out.set(k, v);
  }
  return out;
}

/** What an entry changed, a line per field: `field: before → after`; what a creation set; what a removal took. */
export function changeLines(e: Pick<AuditEntry, 'before' | 'after'>): string[] {
  const before = fields(e.before);
  const after = fields(e.after);
  if (e.before === null && e.after !== null && after.size === 0) return [shown(e.after)];
  if (before.size === 0) return [...after].map(([k, v]) => `${k}: ${shown(v)}`);
  if (after.size === 0) return e.after === null ? ['removed'] : [shown(e.after)];
  const keys = [...new Set([...before.keys(), ...after.keys()])].filter((k) => JSON.stringify(before.get(k)) !== JSON.stringify(after.get(k)));
  return keys.length === 0 ? ['no change'] : keys.map((k) => `${k}: ${shown(before.get(k))} → ${shown(after.get(k))}`);
}

/** At most a few lines: the CSV export and the API have the whole snapshots. */
const SHOWN_LINES = 4;


@customElement('rk-audit-log')
export class AuditLog extends Page {
  static override styles = [
    ...Page.styles,
    css`
      form.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px; align-items: end; }
      form.filters .field { margin: 0; }
      .actions { display: flex; gap: 8px; }
      td.what { min-width: 260px; max-width: 420px; overflow-wrap: anywhere; font-size: 13px; }
      ul.change { margin: 0; padding: 0; list-style: none; }
      ul.change li + li { margin-top: 2px; }
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

  /** The entry's change as lines; the first few, and how many more (the CSV export has them all). */
  #change(e: AuditEntry) {
    const lines = changeLines(e);
    return html`<ul class="change" title=${lines.join('\n')}>
      ${lines.slice(0, SHOWN_LINES).map((l) => html`<li>${l}</li>`)}${lines.length > SHOWN_LINES ? html`<li class="muted">and ${lines.length - SHOWN_LINES} more</li>` : nothing}
    </ul>`;
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
        <table class="records">
          <thead><tr><th>When</th><th>Who</th><th>Action</th><th>Target</th><th>Change</th><th>Address</th></tr></thead>
          <tbody>
            ${this.entries.length === 0
              ? html`<tr><td colspan="6" class="empty">No entries.</td></tr>`
              : this.entries.map(
                  (e) => html`<tr>
                    <td>${dateTime(e.createdOn)}</td>
                    <td data-label="Who">${e.actor} <span class="badge">${e.actorRole}</span></td>
                    <td class="mono" data-label="Action">${e.action}</td>
                    <td data-label="Target">${[e.campaignId, e.target].filter(Boolean).join(' · ') || '—'}</td>
                    <td class="what" data-label="Change">${this.#change(e)}</td>
                    <td class="mono" data-label="Address">${e.ip ?? '—'}</td>
                  </tr>`,
                )}
          </tbody>
        </table>
      </div>
      ${this.next ? html`<button class="more" @click=${() => this.#load(this.next)}>Show more</button>` : nothing}`;
  }
}
