/** The owner's own account: change the password (other sessions end), and sign out everywhere. */
import { css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { api } from '../api.js';
import { confirmAction } from '../confirm.js';
import { Page } from '../page.js';

const sessions = (n: number) => (n === 1 ? '1 other session was' : `${n} other sessions were`);

@customElement('rk-account')
export class Account extends Page {
  static override styles = [
    ...Page.styles,
    css`
      section.card { max-width: 560px; }
      section.card + section.card { margin-top: 24px; }
      form .actions { margin-top: 8px; }
    `,
  ];
  @property() email = '';

  async #changePassword(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const current = String(data.get('current'));
    const next = String(data.get('new'));
    this.notice = '';
    if (next !== String(data.get('repeat'))) {
      this.error = 'The new passwords do not match.';
      return;
    }
    const answer = await this.attempt(() => api().changePassword(current, next));
    if (!answer) return;
    form.reset();
    this.notice = `Password changed. ${sessions(answer.sessionsEnded)} signed out; this one stays signed in.`;
  }

  async #signOutEverywhere() {
    const sure = await confirmAction(
      this,
      'Sign out everywhere?',
      'Every session of yours ends, on this device too: each browser has to sign in again.',
      'Sign out everywhere',
      true,
    );
    if (!sure) return;
    // Signed out on success: the shell returns to the sign-in form.
    if (await this.attempt(() => api().signOutEverywhere())) this.dispatchEvent(new CustomEvent('signed-out', { bubbles: true, composed: true }));
  }

  override render() {
    return html`<div class="page-head">
        <div>
          <h1>Account</h1>
          <p>Signed in as <strong>${this.email}</strong>.</p>
        </div>
      </div>
      ${this.messages()}
      <section class="card" aria-labelledby="password-h">
        <h2 id="password-h">Change password</h2>
        <form @submit=${this.#changePassword}>
          <div class="field">
            <label for="current">Current password</label>
            <input id="current" name="current" type="password" autocomplete="current-password" required maxlength="200" />
          </div>
          <div class="field">
            <label for="new">New password</label>
            <input id="new" name="new" type="password" autocomplete="new-password" required minlength="10" maxlength="200" aria-describedby="new-hint" />
            <div class="hint" id="new-hint">At least 10 characters. Your other sessions end when it changes.</div>
          </div>
          <div class="field">
            <label for="repeat">New password, again</label>
            <input id="repeat" name="repeat" type="password" autocomplete="new-password" required minlength="10" maxlength="200" />
          </div>
          <div class="actions"><button class="primary" type="submit">Change password</button></div>
        </form>
      </section>
      <section class="card" aria-labelledby="everywhere-h">
        <h2 id="everywhere-h">Sign out everywhere</h2>
        <p>Left the dashboard signed in on a shared or lost device? End every session of yours, this one included.</p>
        <button class="danger-ghost" @click=${() => this.#signOutEverywhere()}>Sign out everywhere</button>
      </section>`;
  }
}
