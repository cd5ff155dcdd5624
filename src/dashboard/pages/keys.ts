/** API keys of the mode shown (live or test): create (the key shown once), list, revoke. */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { ApiKey } from '../../api/client.js';
import { api } from '../api.js';
import { confirmAction } from '../confirm.js';
import { dateTime } from '../format.js';
import { Page } from '../page.js';
import { ofMode, testBadge } from '../test-mode.js';

@customElement('rk-keys')
export class Keys extends Page {
  static override styles = [
    ...Page.styles,
    css`
      form.add .field { margin: 0; }
      h2.list { margin-top: 32px; }
    `,
  ];
  /** Test mode is on: test keys are listed and made. */
  @property({ type: Boolean }) testMode = false;
  @state() private keys: ApiKey[] = [];
  @state() private created: { name: string; key: string } | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    // The first render, and each switch of mode (what was said of the other mode's keys goes).
    if (changed.has('testMode')) {
      this.forgetMessages();
      this.created = undefined;
      void this.#load();
    }
  }

  async #load() {
    const all = await this.attempt(() => api().listApiKeys());
    if (all) this.keys = ofMode(all, this.testMode);
  }

  async #create(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const name = String(new FormData(form).get('name')).trim();
    const k = await this.attempt(() => api().createApiKey(name, this.testMode));
    if (!k) return;
    form.reset();
    this.created = { name: k.name, key: k.key };
    await this.#load();
  }

  async #revoke(k: ApiKey) {
    if (!(await confirmAction(this, 'Revoke this key?', `Calls made with “${k.name}” (${k.prefix}…) are refused from now on. This cannot be undone.`, 'Revoke key', true))) return;
    if (await this.attempt(() => api().revokeApiKey(k.id))) {
      this.notice = `Key “${k.name}” revoked.`;
      await this.#load();
    }
  }

  /** Creating a key: managing keys, an owner's. */
  #createForm() {
    return html`<section class="card" aria-labelledby="new-h">
        <h2 id="new-h">${this.testMode ? 'Create a test key' : 'Create a key'}</h2>
        ${this.testMode ? html`<p class="muted">A test key (<code>sk_test_…</code>) sees and makes test campaigns only.</p>` : nothing}
        <form class="add" @submit=${this.#create}>
          <div class="field"><label for="name">Name</label><input id="name" name="name" required maxlength="100" placeholder="e.g. production backend" /></div>
          <button class="primary" type="submit">Create key</button>
        </form>
      </section>`;
  }

  override render() {
    return html`<div class="page-head">
        <div>
          <h1>API keys</h1>
          <p>Secret keys let your backend call the API: <code>Authorization: Bearer sk_…</code>. Never put one in a web page.</p>
        </div>
      </div>
      ${this.messages()}
      ${this.created
        ? html`<div class="notice" role="status">
            <strong>Key “${this.created.name}” created.</strong> It is shown this once: copy it now.
            <div class="secret"><code>${this.created.key}</code><button class="small" @click=${() => navigator.clipboard.writeText(this.created!.key)}>Copy</button></div>
          </div>`
        : nothing}
      ${this.mayManage ? this.#createForm() : nothing}
            <h2 class="list">${this.testMode ? 'Test keys' : 'Keys'}</h2>
      <div class="table-wrap">
        <table class="records">
          <thead><tr><th>Name</th><th>Key</th><th>Created</th><th>Status</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            ${this.keys.length === 0
              ? html`<tr><td colspan="5" class="empty">${this.testMode ? 'No test keys yet.' : 'No keys yet.'}</td></tr>`
              : this.keys.map(
                  (k) => html`<tr>
                    <td>${k.name} ${testBadge(k.test)}</td>
                    <td class="mono" data-label="Key">${k.prefix}…</td>
                    <td data-label="Created">${dateTime(k.createdOn)}</td>
                    <td data-label="Status">${k.revokedOn ? html`<span class="badge">revoked ${dateTime(k.revokedOn)}</span>` : html`<span class="badge ok">active</span>`}</td>
                    <td>${k.revokedOn || !this.mayManage ? nothing : html`<button class="small danger-ghost" aria-label="Revoke ${k.name}" @click=${() => this.#revoke(k)}>Revoke</button>`}</td>
                  </tr>`,
                )}
          </tbody>
        </table>
      </div>`;
  }
}
