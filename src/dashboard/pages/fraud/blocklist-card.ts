/**
 * The blocklist of a campaign (the campaign editor), or of the whole account (Settings → Blocklist): emails,
 * email domains, IP addresses or CIDR ranges, and countries, one entry per line. Emptied, it is removed.
 * docs/fraud.md#blocklists says what a match does.
 */
import { css, html, type TemplateResult } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings } from '../../../api/client.js';
import type { Blocklist } from '../../../api/fraud-schemas.js';
import { api } from '../../api.js';
import { confirmAction } from '../../confirm.js';
import { ControlCard, lines } from './control-card.js';

type List = keyof Blocklist;

const LISTS: { key: List; label: string; hint: string; placeholder: string }[] = [
  { key: 'emails', label: 'Email addresses', hint: 'Whole addresses, any case; a +tag or a Gmail dot matches the same mailbox.', placeholder: 'someone@example.com' },
  { key: 'domains', label: 'Email domains', hint: 'A domain blocks its subdomains too.', placeholder: 'example.com' },
  { key: 'ips', label: 'IP addresses and ranges', hint: 'IPv4 or IPv6 addresses, or CIDR ranges such as 203.0.113.0/24.', placeholder: '203.0.113.0/24' },
  { key: 'countries', label: 'Countries', hint: "Two-letter ISO codes (DE, US) of the sign-up's IP address.", placeholder: 'XX' },
];
const KEYS = LISTS.map((l) => l.key);

type Texts = Record<List, string>;
const EMPTY: Texts = { emails: '', domains: '', ips: '', countries: '' };

/** The lists as typed: a line each. */
const textsOf = (b: Blocklist | null | undefined): Texts => ({ emails: (b?.emails ?? []).join('\n'), domains: (b?.domains ?? []).join('\n'), ips: (b?.ips ?? []).join('\n'), countries: (b?.countries ?? []).join('\n') });

/** The lists that have entries; null when none has. */
function blocklistOf(texts: Texts): Blocklist | null {
  const b: Blocklist = {};
  for (const key of KEYS) {
    const entries = lines(texts[key]);
    if (entries.length > 0) b[key] = entries;
  }
  return Object.keys(b).length > 0 ? b : null;
}

const entryCount = (b: Blocklist | null | undefined) => KEYS.reduce((n, k) => n + (b?.[k]?.length ?? 0), 0);

/** The form of a blocklist: four textareas, a line an entry. */
function listFields(texts: Texts, set: (key: List, value: string) => void, errorOf: (key: List) => string, idPrefix: string): TemplateResult[] {
  return LISTS.map((l) => {
    const id = `${idPrefix}-${l.key}`;
    const error = errorOf(l.key);
    return html`<div class="field">
      <label for=${id}>${l.label}</label>
      <textarea id=${id} spellcheck="false" autocomplete="off" placeholder=${l.placeholder} .value=${texts[l.key]}
        @input=${(e: Event) => set(l.key, (e.target as HTMLTextAreaElement).value)}
        aria-invalid=${error ? 'true' : 'false'} aria-describedby="${id}-hint${error ? ` ${id}-error` : ''}"></textarea>
      <div class="hint" id="${id}-hint">${l.hint} One per line.</div>
      ${error ? html`<div class="field-error" id="${id}-error" role="alert">${error}</div>` : ''}
    </div>`;
  });
}

/** The campaign's own blocklist, in the campaign editor. */
@customElement('rk-blocklist-card')
export class BlocklistCard extends ControlCard<'blocklist'> {
  readonly field = 'blocklist' as const;
  @state() private texts: Texts = { ...EMPTY };

  protected fill(stored: CampaignSettings['blocklist'] | null): void {
    this.texts = textsOf(stored);
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    const value = blocklistOf(this.texts);
    await this.write(value, value === null ? 'Blocklist removed.' : 'Blocklist saved.');
  }

  async #remove() {
    if (!(await confirmAction(this, 'Remove the blocklist?', 'Every entry of this campaign’s blocklist is removed. The account’s blocklist still applies.', 'Remove blocklist', true))) return;
    await this.write(null, 'Blocklist removed.');
  }

  override render() {
    const stored = this.stored;
    return this.frame({
      title: 'Blocklist',
      about: `Who may not join this campaign, besides the account's blocklist: a match from a browser is refused; one your backend sends is held for review.${stored ? ` ${entryCount(stored)} entries.` : ''}`,
      configured: stored !== null,
      fields: KEYS,
      body: html`${listFields(this.texts, (key, value) => (this.texts = { ...this.texts, [key]: value }), (key) => this.errorOf(key), 'blocklist')}`,
      save: (e) => void this.#save(e),
      saveLabel: 'Save blocklist',
      remove: () => void this.#remove(),
    });
  }
}

/**
 * Settings → Blocklist (`#/settings/blocklist`): the account's blocklist, applied to every campaign beside the
 * campaign's own (getAccountSettings, updateAccountSettings {blocklist}).
 */
@customElement('rk-account-blocklist')
export class AccountBlocklist extends ControlCard<'blocklist'> {
  static override styles = [...ControlCard.styles, css`section.card { max-width: 760px; }`];
  readonly field = 'blocklist' as const;
  @property({ attribute: false }) account: Blocklist | null | undefined;
  @state() private texts: Texts = { ...EMPTY };
  @state() private loaded = false;

  protected fill(): void {}

  override connectedCallback(): void {
    super.connectedCallback();
    void this.#load();
  }

  async #load() {
    const settings = await this.attempt(() => api().getAccountSettings());
    if (!settings) return;
    this.account = settings.blocklist ?? null;
    this.texts = textsOf(this.account);
    this.loaded = true;
  }

  async #write(value: Blocklist | null, done: string) {
    this.notice = '';
    const saved = await this.attempt(() => api().updateAccountSettings({ blocklist: value }));
    if (!saved) return;
    this.account = saved.blocklist ?? null;
    this.texts = textsOf(this.account);
    this.notice = done;
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    const value = blocklistOf(this.texts);
    await this.#write(value, value === null ? 'Account blocklist removed.' : 'Account blocklist saved.');
  }

  async #remove() {
    if (!(await confirmAction(this, "Remove the account's blocklist?", "Every entry is removed. Each campaign's own blocklist still applies.", 'Remove blocklist', true))) return;
    await this.#write(null, 'Account blocklist removed.');
  }

  override render() {
    const stored = this.account ?? null;
    const h = 'account-blocklist-h';
    return html`<div class="page-head">
        <div>
          <h1>Blocklist</h1>
          <p>Who may not join any campaign of this account. Each campaign has a blocklist of its own too, in its settings.</p>
        </div>
      </div>
      <section class="card" aria-labelledby=${h}>
      <div class="title">
        <h2 id=${h}>Blocklist for every campaign</h2>
        ${this.loaded ? html`<span class="badge ${stored ? 'ok' : ''}">${stored ? 'on' : 'off'}</span>` : ''}
      </div>
      <p class="muted">Applied to every campaign of this account, beside each campaign's own blocklist: a match from a browser is refused; one your backend sends is held for review.</p>
      ${this.fieldRefused(KEYS) ? '' : this.messages()}
      <form @submit=${(e: SubmitEvent) => void this.#save(e)}>
        <fieldset ?disabled=${!this.mayChange || !this.loaded}>
          ${listFields(this.texts, (key, value) => (this.texts = { ...this.texts, [key]: value }), (key) => this.errorOf(key), 'account-blocklist')}
        </fieldset>
        ${this.mayChange
          ? html`<div class="actions">
              <button class="primary" type="submit" ?disabled=${!this.loaded}>Save account blocklist</button>
              ${stored ? html`<button type="button" class="danger-ghost" @click=${() => void this.#remove()}>Remove</button>` : ''}
            </div>`
          : ''}
      </form>
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-blocklist-card': BlocklistCard;
    'rk-account-blocklist': AccountBlocklist;
  }
}
