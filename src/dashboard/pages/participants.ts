/**
 * The participant table: search by email or code, sort, keyset paging (a stack of cursors for Previous),
 * the review queue of held sign-ups with approve and reject, CSV export and import.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings, ParticipantSummary, RowProblem, SearchParticipantsQuery } from '../../api/client.js';
import { ApiError, api } from '../api.js';
import { confirmAction } from '../confirm.js';
import { count, date, n, reward } from '../format.js';
import { Page } from '../page.js';
import { rowReport, rowReportStyles } from '../row-report.js';
import { scoreBadge } from '../status.js';
import { participantLink } from '../participant-link.js';

const PAGE_SIZE = 25;
type Filter = NonNullable<SearchParticipantsQuery['filter']>;
const SORTS: [string, string][] = [
  ['createdOn:desc', 'Newest first'],
  ['createdOn:asc', 'Oldest first'],
  ['email:asc', 'Email A–Z'],
  ['email:desc', 'Email Z–A'],
  ['totalReferrals:desc', 'Most referrals'],
];

@customElement('rk-participants')
export class Participants extends Page {
  static override styles = [
    ...Page.styles,
    rowReportStyles,
    css`
      .toolbar { display: flex; gap: 12px; flex-wrap: wrap; align-items: end; margin-bottom: 16px; }
      .toolbar .search { flex: 1 1 240px; }
      .toolbar label { margin-bottom: 4px; }
      .toolbar .field { margin: 0; }
      .pager { display: flex; justify-content: space-between; align-items: center; margin-top: 12px; gap: 8px; }
      .who a { display: block; }
      input[type='file'] { display: none; }
    `,
  ];

  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private rows: ParticipantSummary[] = [];
  @state() private q = '';
  @state() private sort = 'createdOn:desc';
  @state() private filter: Filter = 'all';
  /** Cursors of the pages before this one (the first page has none), and of the next page. */
  @state() private cursors: (string | undefined)[] = [];
  @state() private next: string | undefined;
  @state() private loading = true;
  /** The rows the last import refused (it imported nothing then), shown until the next import. */
  @state() private refused: RowProblem[] = [];
  #debounce: ReturnType<typeof setTimeout> | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      void this.#load(undefined, []);
    }
  }

  async #load(cursor: string | undefined, stack: (string | undefined)[]) {
    const [sort, order] = this.sort.split(':') as [SearchParticipantsQuery['sort'], SearchParticipantsQuery['order']];
    this.loading = true;
    const page = await this.attempt(() =>
      api().searchParticipants({ id: this.campaignId, pageSize: PAGE_SIZE, sort, order, filter: this.filter, ...(this.q && { q: this.q }), ...(cursor && { cursor }) }),
    );
    this.loading = false;
    if (!page) return;
    this.rows = page.participants;
    this.next = page.nextCursor;
    this.cursors = [...stack, cursor];
  }

  #reload() {
    void this.#load(undefined, []);
  }

  #search(e: Event) {
    this.q = (e.target as HTMLInputElement).value.trim();
    clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => this.#reload(), 250);
  }

  #setFilter(filter: Filter) {
    this.filter = filter;
    this.#reload();
  }

  async #approve(p: ParticipantSummary) {
    if (!(await confirmAction(this, 'Approve this participant?', `${p.email} and their referrer are credited the rewards they earned.`, 'Approve'))) return;
    if (await this.attempt(() => api().approveParticipant(this.campaignId, p.email!))) {
      this.notice = `${p.email} approved.`;
      this.#queueChanged();
      void this.#load(this.cursors.at(-1), this.cursors.slice(0, -1));
    }
  }

  async #reject(p: ParticipantSummary) {
    if (!(await confirmAction(this, 'Reject this participant?', `${p.email} stays unapproved and earns nothing. You can still approve them later.`, 'Reject', true))) return;
    if (await this.attempt(() => api().rejectParticipant(this.campaignId, p.email!))) {
      this.notice = `${p.email} rejected.`;
      this.#queueChanged();
      void this.#load(this.cursors.at(-1), this.cursors.slice(0, -1));
    }
  }

  /** The review queue's count (in the navigation and the tab) comes with the campaign list. */
  #queueChanged() {
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
  }

  async #import(e: Event) {
    const input = e.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    this.notice = `Importing ${file.name}…`;
    this.refused = [];
    const r = await this.attempt(() =>
      api()
        .importParticipants(this.campaignId, file)
        .catch((err: unknown) => {
          if (err instanceof ApiError && err.rows) this.refused = err.rows;
          throw err;
        }),
    );
    if (!r) {
      this.notice = '';
      return;
    }
    this.notice = `Imported ${count(r.created, 'participant', 'participants')}; ${n(r.skipped)} already there.`;
    this.#queueChanged();
    this.#reload();
  }

  #row(p: ParticipantSummary) {
    const held = !p.approval && !p.rejected;
    return html`<tr>
      <td class="who">
        ${participantLink(this.campaignId, p.email!)}
        ${p.firstName || p.lastName ? html`<span class="muted">${[p.firstName, p.lastName].filter(Boolean).join(' ')}</span>` : nothing}
      </td>
      <td class="mono" data-label="Code">${p.referralCode}</td>
      <td class="mono" data-label="Referred by">${p.referredByCode ?? '—'}</td>
      <td class="num" data-label="Referrals">${n(p.totalReferrals)}</td>
      <td class="num" data-label="Balance">${reward(p.referralRewardBalance, this.campaign)}</td>
      <td data-label="Fraud score"><span>${scoreBadge(p.fraudScore)} ${p.rejected ? html`<span class="badge danger">rejected</span>` : held ? html`<span class="badge warn">held</span>` : nothing}</span></td>
      <td class="when" data-label="Joined">${date(p.createdOn)}</td>
      ${this.#reviewing()
        ? html`<td data-label="Review">
            <div class="actions">
              <button class="small" @click=${() => this.#approve(p)}>Approve</button>
              ${held ? html`<button class="small danger-ghost" @click=${() => this.#reject(p)}>Reject</button>` : nothing}
            </div>
          </td>`
        : nothing}
    </tr>`;
  }

  /** The held or rejected list, shown to a role that may approve and reject: each row has those buttons. */
  #reviewing(): boolean {
    return this.filter !== 'all' && this.mayChange;
  }

  override render() {
    const pageNo = this.cursors.length;
    return html`<div class="page-head">
        <div>
          <h1>Participants</h1>
          <p>${this.campaign?.campaignName ?? this.campaignId} · ${count(this.campaign?.participants, 'participant', 'participants')} in all</p>
        </div>
        <div class="actions">
          ${this.mayChange
            ? html`<label class="button" for="import-file">Import CSV</label>
                <input id="import-file" type="file" accept=".csv,text/csv" @change=${this.#import} />`
            : nothing}
          <a class="button" href=${api().exportParticipantsUrl(this.campaignId)} download title="Text a spreadsheet would run as a formula starts with a quote">Export CSV</a>
        </div>
      </div>
      ${this.messages()} ${rowReport(this.refused, 'Rows refused by the import')}
      <div class="toolbar">
        <div class="field search">
          <label for="q">Search</label>
          <input id="q" type="search" placeholder="Email or referral code" .value=${this.q} @input=${this.#search} />
        </div>
        <div class="field">
          <label for="sort">Sort</label>
          <select id="sort" ?disabled=${!!this.q} title=${this.q ? 'Search results are in email order' : ''} @change=${(e: Event) => ((this.sort = (e.target as HTMLSelectElement).value), this.#reload())}>
            ${SORTS.map(([v, l]) => html`<option value=${v} ?selected=${v === this.sort}>${l}</option>`)}
          </select>
        </div>
        <div class="tabs" role="group" aria-label="Show">
          <button aria-pressed=${this.filter === 'all'} @click=${() => this.#setFilter('all')}>All</button>
          <button aria-pressed=${this.filter === 'held'} @click=${() => this.#setFilter('held')}>
            Review queue${this.campaign?.reviewQueue ? html` <span class="badge warn">${n(this.campaign.reviewQueue)}</span>` : nothing}
          </button>
          <button aria-pressed=${this.filter === 'rejected'} @click=${() => this.#setFilter('rejected')}>Rejected</button>
        </div>
      </div>
      <div class="table-wrap">
        <table class="records" aria-busy=${this.loading ? 'true' : 'false'}>
          <caption class="sr-only">Participants, page ${pageNo}</caption>
          <thead>
            <tr>
              <th>Email</th><th>Code</th><th>Referred by</th><th class="num">Referrals</th><th class="num">Balance</th><th>Fraud score</th><th>Joined</th>
              ${this.#reviewing() ? html`<th>Review</th>` : nothing}
            </tr>
          </thead>
          <tbody>
            ${this.rows.length === 0 && !this.loading
              ? html`<tr><td colspan="8" class="empty">${this.filter === 'held' ? 'Nobody is waiting for review.' : this.q ? 'Nobody matches this search.' : 'No participants yet.'}</td></tr>`
              : this.rows.map((p) => this.#row(p))}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Pages">
        <button ?disabled=${pageNo <= 1} @click=${() => this.#load(this.cursors.at(-2), this.cursors.slice(0, -2))}>Previous</button>
        <span class="muted">Page ${pageNo}</span>
        <button ?disabled=${!this.next} @click=${() => this.#load(this.next, this.cursors)}>Next</button>
      </nav>`;
  }
}
