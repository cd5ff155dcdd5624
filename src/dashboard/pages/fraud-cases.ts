/**
 * The Fraud page of a campaign: the fraud cases its controls opened (docs/fraud.md#fraud-cases), each the
 * participants one rule or more held, grouped under the referrer they are about, with what matched. The
 * owner approves a case (everyone in it approved and credited what they earned) or rejects it (they stay
 * unapproved and earn nothing), behind a confirmation; decided cases are listed under their own filter.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings, FraudCaseView } from '../../api/client.js';
import { api } from '../api.js';
import { confirmAction } from '../confirm.js';
import { count, moment } from '../format.js';
import { Page } from '../page.js';
import { participantLink } from '../participant-link.js';

type Status = FraudCaseView['status'];
type Kind = FraudCaseView['signals'][number]['kind'];

/** How many cases the page reads: the service's most. */
const LIMIT = 100;

/** Each rule as the owner set it. */
const KIND_LABELS: Record<Kind, string> = {
  blocklist: 'Blocklist',
  self_referral_payment: "Paid with the referrer's card",
  duplicate_payout_method: 'Shared payout method',
  limit_per_day: 'Daily limit',
  limit_per_referrer: 'Referrer limit',
};

const FILTERS: [Status, string][] = [
  ['open', 'Open'],
  ['approved', 'Approved'],
  ['rejected', 'Rejected'],
];

const EMPTY: Record<Status, string> = {
  open: 'No open cases. When a blocklist, a limit or another of your fraud controls holds a participant, their case is listed here for you to decide.',
  approved: 'No approved cases yet.',
  rejected: 'No rejected cases yet.',
};

/**
 * @summary The Fraud page of a campaign (`#/campaigns/:id/fraud`): its fraud cases, approved or rejected as a whole.
 *
 * @property campaignId - The campaign.
 * @property campaign - The campaign's settings, as the shell last read them.
 */
@customElement('rk-fraud-cases')
export class FraudCases extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .toolbar { display: flex; justify-content: space-between; align-items: center; gap: 12px; flex-wrap: wrap; margin-bottom: 16px; }
      .toolbar p { margin: 0; max-width: 640px; }
      section.case { padding: 0; overflow: hidden; }
      .case-head { display: flex; justify-content: space-between; align-items: center; gap: 12px; flex-wrap: wrap; padding: 16px 20px; border-bottom: 1px solid var(--border); }
      .case-head h2 { margin: 0; font-size: 15px; display: flex; align-items: center; gap: 8px; flex-wrap: wrap; overflow-wrap: anywhere; }
      .case-head .sub { color: var(--muted); font-size: 13px; margin-top: 2px; }
      .case table { border-radius: 0; }
      td.detail { min-width: 220px; }
      .empty-card { text-align: center; color: var(--muted); padding: 40px 20px; }
      @media (max-width: 640px) {
        .case-head { padding: 12px 16px; }
        .case-head .actions { width: 100%; }
        .case-head .actions button { flex: 1; }
        td.detail { min-width: 0; }
      }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private status: Status = 'open';
  @state() private cases: FraudCaseView[] | undefined;
  @state() private busy: number | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      this.cases = undefined;
      this.status = 'open';
      void this.refresh();
    }
  }

  async refresh(): Promise<void> {
    const id = this.campaignId;
    const status = this.status;
    const list = await this.attempt(() => api().listFraudCases(id, { status, limit: LIMIT }));
    if (list && id === this.campaignId && status === this.status) this.cases = list.cases;
  }

  #show(status: Status) {
    if (status === this.status) return;
    this.status = status;
    this.cases = undefined;
    this.forgetMessages();
    void this.refresh();
  }

  async #decide(c: FraudCaseView, decision: 'approve' | 'reject') {
    const people = count(new Set(c.signals.map((s) => s.participant.email)).size, 'participant', 'participants');
    const ok =
      decision === 'approve'
        ? await confirmAction(this, `Approve the case of ${c.referrer.email}?`, `${people} of this case are approved, and they and their referrer are credited what they earned.`, 'Approve case')
        : await confirmAction(this, `Reject the case of ${c.referrer.email}?`, `${people} of this case stay unapproved and earn nothing. They leave the review queue.`, 'Reject case', true);
    if (!ok) return;
    this.notice = '';
    this.busy = c.caseId;
    const decided = await this.attempt(() => api().resolveFraudCase({ id: this.campaignId, caseId: c.caseId, decision }));
    this.busy = undefined;
    if (decided) this.notice = `The case of ${c.referrer.email} is ${decided.status}.`;
    // Decided here or by someone else meanwhile (409): either way it leaves the open list.
    if (decided || this.cases?.some((x) => x.caseId === c.caseId)) await this.#reloadKeepingMessages();
    // The review queue's count in the navigation moves with the decision.
    if (decided) this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
  }

  /** Reads the list again without clearing the notice or error the decision left. */
  async #reloadKeepingMessages() {
    const { error, errorField, notice } = this;
    await this.refresh();
    if (error) Object.assign(this, { error, errorField });
    this.notice = notice;
  }

  #case(c: FraudCaseView) {
    const h = `case-${c.caseId}`;
    const people = new Set(c.signals.map((s) => s.participant.email)).size;
    const decided = c.status === 'open' ? nothing : html` · ${c.status === 'approved' ? 'Approved' : 'Rejected'} by ${c.resolvedBy ?? 'someone'} ${moment(c.resolvedOn)}`;
    return html`<section class="card case" aria-labelledby=${h}>
      <div class="case-head">
        <div>
          <h2 id=${h}>
            <span class="sr-only">Case of</span>${participantLink(this.campaignId, c.referrer.email)}
            <span class="mono muted">${c.referrer.referralCode}</span>
            ${c.status === 'open' ? html`<span class="badge warn">open</span>` : c.status === 'approved' ? html`<span class="badge ok">approved</span>` : html`<span class="badge danger">rejected</span>`}
          </h2>
          <div class="sub">Case ${c.caseId} · ${count(people, 'participant', 'participants')} held · opened ${moment(c.openedOn)}${decided}</div>
        </div>
        ${c.status === 'open' && this.mayChange
          ? html`<div class="actions">
              <button class="primary" ?disabled=${this.busy === c.caseId} aria-label="Approve the case of ${c.referrer.email}" @click=${() => this.#decide(c, 'approve')}>Approve</button>
              <button class="danger-ghost" ?disabled=${this.busy === c.caseId} aria-label="Reject the case of ${c.referrer.email}" @click=${() => this.#decide(c, 'reject')}>Reject</button>
            </div>`
          : nothing}
      </div>
      <table class="records" aria-labelledby=${h}>
        <thead><tr><th>Rule</th><th>What matched</th><th>Participant</th><th>When</th></tr></thead>
        <tbody>
          ${c.signals.map(
            (s) => html`<tr>
              <td data-label="Rule"><span class="badge info">${KIND_LABELS[s.kind] ?? s.kind}</span></td>
              <td class="detail" data-label="What matched">${s.detail}</td>
              <td data-label="Participant">${participantLink(this.campaignId, s.participant.email)}</td>
              <td class="when" data-label="When">${moment(s.createdOn)}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </section>`;
  }

  override render() {
    const cases = this.cases;
    return html`<div class="page-head">
        <div>
          <h1>Fraud cases</h1>
          <p>${this.campaign?.campaignName ?? this.campaignId}</p>
        </div>
      </div>
      <div class="toolbar">
        <p class="muted">Participants your fraud controls held, grouped by the referrer they are about. Approve a case to credit what they earned, or reject it.</p>
        <div class="tabs" role="group" aria-label="Show">
          ${FILTERS.map(([status, label]) => html`<button aria-pressed=${this.status === status ? 'true' : 'false'} @click=${() => this.#show(status)}>${label}</button>`)}
        </div>
      </div>
      ${this.messages()}
      ${cases === undefined
        ? html`<p class="muted" role="status">Loading…</p>`
        : cases.length === 0
          ? html`<div class="card empty-card">${EMPTY[this.status]}</div>`
          : html`${cases.map((c) => this.#case(c))}
            ${cases.length >= LIMIT ? html`<p class="muted">The newest ${LIMIT} are shown.</p>` : nothing}`}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-fraud-cases': FraudCases;
  }
}
