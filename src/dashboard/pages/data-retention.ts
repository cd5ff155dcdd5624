/** Settings → Data retention: how many days IP addresses, delivered webhooks and the email log are kept. */
import { css, html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { MAX_RETENTION_DAYS, type AccountSettings, type RetentionSettings } from '../../api/settings-schemas.js';
import { api } from '../api.js';
import { Page } from '../page.js';

type Period = keyof RetentionSettings;

const PERIODS: { key: Period; label: string; hint: string; min: number }[] = [
  {
    key: 'ipDays',
    label: 'IP addresses',
    hint: 'The address and network each participant signed up from, which fraud scoring compares. With none stored, its network signals are off.',
    min: 0,
  },
  { key: 'webhookDays', label: 'Delivered webhooks', hint: 'Webhook events delivered to every endpoint, with their attempts. Undelivered ones are kept until they are delivered.', min: 1 },
  { key: 'emailDays', label: 'Email log', hint: 'Sent, failed and skipped lifecycle emails in the log. Emails still to send are kept until they are sent.', min: 1 },
];

@customElement('rk-data-retention')
export class DataRetention extends Page {
  static override styles = [
    ...Page.styles,
    css`
      section.card { max-width: 640px; }
      .days { display: flex; align-items: center; gap: 8px; }
      .days input { width: 7em; }
      .field input[type='checkbox'] { width: auto; }
      form .actions { margin-top: 8px; }
    `,
  ];
  @state() private settings: AccountSettings | undefined;
  /** "Store no IP addresses": ipDays 0, kept apart from the number so that unticking it gives the default back. */
  @state() private noIps = false;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  async #load() {
    const settings = await this.attempt(() => api().getAccountSettings());
    if (!settings) return;
    this.settings = settings;
    this.noIps = settings.retention.ipDays === 0;
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const retention: Partial<RetentionSettings> = {};
    for (const p of PERIODS) {
      if (p.key === 'ipDays' && this.noIps) retention.ipDays = 0;
      else retention[p.key] = Number(data.get(p.key));
    }
    this.notice = '';
    const saved = await this.attempt(() => api().updateAccountSettings({ retention }));
    if (!saved) return;
    this.settings = saved;
    this.noIps = saved.retention.ipDays === 0;
    this.notice = 'Saved. Older data goes at the next pruning, within the hour.';
  }

  #field(p: (typeof PERIODS)[number], s: AccountSettings) {
    const value = s.retention[p.key];
    const disabled = p.key === 'ipDays' && this.noIps;
    const shown = p.key === 'ipDays' && value === 0 ? s.defaults.ipDays : value;
    return html`<div class="field">
      <label for=${p.key}>${p.label}</label>
      <div class="days">
        <input id=${p.key} name=${p.key} type="number" inputmode="numeric" required min=${p.key === 'ipDays' ? 1 : p.min} max=${MAX_RETENTION_DAYS} step="1"
          .value=${String(shown)} ?disabled=${disabled} aria-describedby="${p.key}-hint" aria-invalid=${this.errorField === `retention.${p.key}` ? 'true' : 'false'} />
        <span>days</span>
      </div>
      <div class="hint" id="${p.key}-hint">${p.hint} Default: ${s.defaults[p.key]} days.</div>
    </div>`;
  }

  override render() {
    const s = this.settings;
    return html`<div class="page-head">
        <div>
          <h1>Data retention</h1>
          <p>How long Refkit keeps personal and delivery data for every campaign of this account. Older data is cleared or deleted every hour, a little at a time.</p>
        </div>
      </div>
      ${this.messages()}
      ${s
        ? html`<section class="card" aria-labelledby="retention-h">
            <h2 id="retention-h">Keep data for</h2>
            <form @submit=${this.#save}>
              <fieldset ?disabled=${!this.mayChange}>
              <div class="field">
                <label><input type="checkbox" name="noIps" .checked=${this.noIps} @change=${(e: Event) => (this.noIps = (e.target as HTMLInputElement).checked)} /> Store no IP addresses at all</label>
              </div>
              ${PERIODS.map((p) => this.#field(p, s))}
              </fieldset>
              ${this.mayChange ? html`<div class="actions"><button class="primary" type="submit">Save</button></div>` : nothing}
            </form>
          </section>`
        : nothing}`;
  }
}
