/**
 * The lifecycle emails of a campaign: which are sent, the postal address of their footer, each email's
 * text per language with a live preview and a test send, and the delivery log.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings } from '../../api/client.js';
import { EMAIL_KINDS, type EmailKind, type EmailLogEntry, type EmailTextsView } from '../../api/email-schemas.js';
import { LOCALES, type Locale } from '../../api/locales.js';
import { api } from '../api.js';
import { count, dateTime } from '../format.js';
import { Page } from '../page.js';

const KIND_NAMES: Record<EmailKind, string> = {
  welcome: 'Welcome',
  friend_joined: 'Friend joined',
  reward_earned: 'Reward earned',
  reward_available: 'Reward available after its hold',
  reward_reversed: 'Reward taken back',
  milestone: 'Milestone reached',
  reminder: 'Reminder to share',
  access_granted: 'Waitlist: let in',
  leaderboard_top: 'Leaderboard: in the top places',
  payout_paid: 'Cash payout: paid',
  payout_failed: 'Cash payout: did not go through',
};
const LOCALE_NAMES: Record<Locale, string> = { en: 'English', de: 'German', fr: 'French', es: 'Spanish', ar: 'Arabic' };
type Status = '' | EmailLogEntry['status'];
/** How long typing pauses before the preview is rendered again. */
const PREVIEW_DELAY_MS = 300;

const emailBadge = (status: EmailLogEntry['status']) =>
  html`<span class="badge ${status === 'sent' ? 'ok' : status === 'failed' ? 'danger' : status === 'skipped' ? '' : 'warn'}">${status}</span>`;

/**
 * @summary The Emails page of a campaign (`#/campaigns/:id/emails`).
 *
 * @property campaignId - The campaign.
 * @property campaign - The campaign's settings, as the shell last read them.
 */
@customElement('rk-emails')
export class Emails extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .kinds { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 8px 16px; margin: 8px 0 16px; }
      .kinds label { display: inline-flex; gap: 8px; align-items: center; font-weight: 400; margin: 0; }
      .editor { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 24px; }
      .pick { display: flex; gap: 12px; flex-wrap: wrap; }
      .vars { display: flex; flex-wrap: wrap; gap: 6px; margin: 4px 0 12px; }
      textarea { width: 100%; min-height: 180px; font: inherit; }
      iframe { width: 100%; height: 560px; border: 1px solid var(--border, #e5e7eb); border-radius: 8px; background: #f3f4f6; }
      .actions { display: flex; gap: 8px; flex-wrap: wrap; align-items: end; }
      .head2 { display: flex; justify-content: space-between; align-items: end; gap: 12px; flex-wrap: wrap; margin: 32px 0 12px; }
      .head2 h2 { margin: 0; }
      @media (max-width: 900px) { .editor { grid-template-columns: 1fr; } iframe { height: 480px; } }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private view: EmailTextsView | undefined;
  @state() private kind: EmailKind = 'welcome';
  @state() private locale: Locale = 'en';
  @state() private subject = '';
  @state() private body = '';
  @state() private preview: { subject: string; html: string } | undefined;
  @state() private log: EmailLogEntry[] = [];
  @state() private next: string | undefined;
  @state() private status: Status = '';
  #previewTimer: ReturnType<typeof setTimeout> | undefined;

  override updated(changed: Map<string, unknown>): void {
    if (changed.has('campaignId') && this.campaignId) void this.#load();
  }

  async #load() {
    this.forgetMessages();
    const view = await this.attempt(() => api().getEmailSettings(this.campaignId));
    if (!view) return;
    this.view = view;
    this.#pickText();
    await this.#loadLog();
  }

  /** The text of the chosen email and language into the editor, and its preview. */
  #pickText() {
    const t = this.view?.texts.find((x) => x.kind === this.kind && x.locale === this.locale);
    this.subject = t?.subject ?? '';
    this.body = t?.body ?? '';
    void this.#renderPreview();
  }

  async #renderPreview() {
    const p = await this.attempt(() => api().previewEmail({ id: this.campaignId, kind: this.kind, locale: this.locale, subject: this.subject || ' ', body: this.body || ' ' }));
    if (p) this.preview = { subject: p.subject, html: p.html };
  }

  #typed() {
    clearTimeout(this.#previewTimer);
    this.#previewTimer = setTimeout(() => void this.#renderPreview(), PREVIEW_DELAY_MS);
  }

  async #loadLog(more = false) {
    const page = await this.attempt(() => api().listEmails({ id: this.campaignId, limit: 50, ...(this.status && { status: this.status }), ...(more && this.next !== undefined && { cursor: this.next }) }));
    if (!page) return;
    this.log = more ? [...this.log, ...page.items] : page.items;
    this.next = page.nextCursor;
  }

  async #saveSettings(e: SubmitEvent) {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const on = Object.fromEntries(EMAIL_KINDS.map((k) => [k, data.has(k)])) as Record<EmailKind, boolean>;
    const view = await this.attempt(() =>
      api().updateEmailSettings({ id: this.campaignId, ...on, reminderDays: Number(data.get('reminderDays')), postalAddress: String(data.get('postalAddress') ?? '') }),
    );
    if (!view) return;
    this.view = view;
    this.notice = 'Email settings saved.';
    void this.#renderPreview();
  }

  async #saveText() {
    const view = await this.attempt(() => api().putEmailText({ id: this.campaignId, kind: this.kind, locale: this.locale, subject: this.subject, body: this.body }));
    if (!view) return;
    this.view = view;
    this.notice = `${KIND_NAMES[this.kind]} (${LOCALE_NAMES[this.locale]}) saved.`;
  }

  async #resetText() {
    const view = await this.attempt(() => api().resetEmailText({ id: this.campaignId, kind: this.kind, locale: this.locale }));
    if (!view) return;
    this.view = view;
    this.#pickText();
    this.notice = `${KIND_NAMES[this.kind]} (${LOCALE_NAMES[this.locale]}) is the default text again.`;
  }

  async #sendTest(e: SubmitEvent) {
    e.preventDefault();
    const to = String(new FormData(e.currentTarget as HTMLFormElement).get('to') ?? '').trim();
    if (await this.attempt(() => api().sendTestEmail({ id: this.campaignId, kind: this.kind, locale: this.locale, subject: this.subject, body: this.body, to }))) {
      this.notice = `Test email sent to ${to}.`;
    }
  }

  /** Saving a text, going back to the default, sending a test: changes, for a role that may make them. */
  #textActions(v: EmailTextsView, custom: boolean) {
    return html`<div class="actions">
        <button class="primary" @click=${() => this.#saveText()}>Save text</button>
        ${custom ? html`<button @click=${() => this.#resetText()}>Back to the default text</button>` : html`<span class="muted">The default text</span>`}
      </div>
      <form class="actions" style="margin-top:16px" @submit=${this.#sendTest}>
        <div class="field" style="margin:0"><label for="to">Send a test to</label><input id="to" name="to" type="email" required placeholder="you@example.com" ?disabled=${!v.smtpConfigured} /></div>
        <button type="submit" ?disabled=${!v.smtpConfigured} aria-describedby=${v.smtpConfigured ? nothing : 'no-smtp'}>Send test</button>
        ${v.smtpConfigured ? nothing : html`<span class="muted" id="no-smtp">A test needs SMTP_URL.</span>`}
      </form>`;
  }

  override render() {
    const v = this.view;
    const custom = v?.texts.find((t) => t.kind === this.kind && t.locale === this.locale)?.custom ?? false;
    return html`<div class="page-head">
        <div>
          <h1>Emails</h1>
          <p>${this.campaign?.campaignName ?? this.campaignId}: what participants are told as their program moves.</p>
        </div>
      </div>
      ${v && !v.smtpConfigured
        ? html`<div class="alert" role="note"><strong>SMTP is not configured.</strong> No email is written or sent until the service has <code>SMTP_URL</code> (see the Lifecycle emails page of the docs). You can still edit and preview them.</div>`
        : nothing}
      ${this.messages()}
      ${v
        ? html`<section class="card" aria-labelledby="send-h">
              <h2 id="send-h">Which emails are sent</h2>
              <form @submit=${this.#saveSettings}>
                <fieldset ?disabled=${!this.mayChange}>
                <fieldset class="kinds">
                  <legend class="sr-only">Emails</legend>
                  ${EMAIL_KINDS.map((k) => html`<label><input type="checkbox" name=${k} ?checked=${v.settings[k]} /> ${KIND_NAMES[k]}</label>`)}
                </fieldset>
                <div class="field">
                  <label for="reminder-days">Days after joining before the reminder to share (sent once, to those who referred no one)</label>
                  <input id="reminder-days" name="reminderDays" type="number" min="1" max="365" required .value=${String(v.settings.reminderDays)} />
                </div>
                <div class="field">
                  <label for="address">Your postal address (shown in every email's footer)</label>
                  <textarea id="address" name="postalAddress" maxlength="300" style="min-height:64px" .value=${v.settings.postalAddress}></textarea>
                </div>
                </fieldset>
                ${this.mayChange ? html`<button class="primary" type="submit">Save settings</button>` : nothing}
              </form>
            </section>
            <section class="card" aria-labelledby="text-h">
              <h2 id="text-h">Texts</h2>
              <div class="editor">
                <div>
                  <div class="pick">
                    <div class="field">
                      <label for="kind">Email</label>
                      <select id="kind" @change=${(e: Event) => ((this.kind = (e.target as HTMLSelectElement).value as EmailKind), this.#pickText())}>
                        ${EMAIL_KINDS.map((k) => html`<option value=${k} ?selected=${k === this.kind}>${KIND_NAMES[k]}</option>`)}
                      </select>
                    </div>
                    <div class="field">
                      <label for="locale">Language</label>
                      <select id="locale" @change=${(e: Event) => ((this.locale = (e.target as HTMLSelectElement).value as Locale), this.#pickText())}>
                        ${LOCALES.map((l) => html`<option value=${l} ?selected=${l === this.locale}>${LOCALE_NAMES[l]}</option>`)}
                      </select>
                    </div>
                  </div>
                  <div class="field">
                    <label for="subject">Subject</label>
                    <input id="subject" maxlength="200" dir="auto" ?readonly=${!this.mayChange} .value=${this.subject} @input=${(e: Event) => ((this.subject = (e.target as HTMLInputElement).value), this.#typed())} />
                  </div>
                  <div class="field">
                    <label for="body">Body (a blank line starts a paragraph)</label>
                    <textarea id="body" maxlength="5000" dir="auto" ?readonly=${!this.mayChange} .value=${this.body} @input=${(e: Event) => ((this.body = (e.target as HTMLTextAreaElement).value), this.#typed())}></textarea>
                  </div>
                  <div class="muted" id="vars-h">Variables</div>
                  <div class="vars" aria-labelledby="vars-h">${v.variables.map((name) => html`<code>{${name}}</code>`)}</div>
                  ${this.mayChange ? this.#textActions(v, custom) : nothing}
                </div>
                <div>
                  <div class="muted">Preview${this.preview ? html`: <strong>${this.preview.subject}</strong>` : nothing}</div>
                  <iframe title="Preview of the email" sandbox="" .srcdoc=${this.preview?.html ?? ''}></iframe>
                </div>
              </div>
            </section>`
        : nothing}
      <div class="head2">
        <h2>Delivery log</h2>
        <div class="field" style="margin:0">
          <label for="status">Status</label>
          <select id="status" @change=${(e: Event) => ((this.status = (e.target as HTMLSelectElement).value as Status), void this.#loadLog())}>
            <option value="">All</option><option value="pending">Pending</option><option value="sent">Sent</option><option value="failed">Failed</option><option value="skipped">Skipped</option>
          </select>
        </div>
      </div>
      <div class="table-wrap">
        <table class="records">
          <thead><tr><th>Email</th><th>To</th><th>Status</th><th class="num">Attempts</th><th>Created</th><th>Sent</th></tr></thead>
          <tbody>
            ${this.log.length === 0
              ? html`<tr><td colspan="6" class="empty">No emails${this.status ? ` with status ${this.status}` : ''} yet.</td></tr>`
              : this.log.map(
                  (m) => html`<tr>
                    <td>${KIND_NAMES[m.kind]}</td>
                    <td class="mono" data-label="To">${m.to}</td>
                    <td data-label="Status">${emailBadge(m.status)}${m.lastError ? html` <span class="muted">${m.lastError}</span>` : nothing}</td>
                    <td class="num" data-label="Attempts">${count(m.attempts, 'attempt', 'attempts')}</td>
                    <td class="when" data-label="Created">${dateTime(m.createdOn)}</td>
                    <td class="when" data-label="Sent">${m.sentOn ? dateTime(m.sentOn) : '—'}</td>
                  </tr>`,
                )}
          </tbody>
        </table>
      </div>
      ${this.next ? html`<button style="margin-top:12px" @click=${() => this.#loadLog(true)}>Load more</button>` : nothing}`;
  }
}
