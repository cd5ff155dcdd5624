/** The sign-in form: email and password; the service sets the session cookie. */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { OwnerSession } from '../../api/client.js';
import { ApiError, api, describe } from '../api.js';
import { Page } from '../page.js';

@customElement('rk-sign-in')
export class SignIn extends Page {
  static override styles = [
    ...Page.styles,
    css`
      :host { min-height: 100vh; display: grid; place-items: center; padding: 24px; background: radial-gradient(1200px 600px at 10% -10%, #e0e7ff, transparent), var(--bg); }
      .box { width: min(400px, 100%); }
      .brand { display: flex; align-items: center; gap: 10px; font-weight: 700; font-size: 20px; margin-bottom: 24px; justify-content: center; }
      .logo { width: 36px; height: 36px; border-radius: 10px; background: linear-gradient(135deg, #6366f1, #8b5cf6); display: grid; place-items: center; color: #fff; }
      .card { padding: 32px; }
      h1 { font-size: 22px; margin-bottom: 4px; }
      button.primary { width: 100%; margin-top: 8px; padding: 10px; }
      .foot { text-align: center; margin-top: 16px; font-size: 13px; }
    `,
  ];
  @property() initialError = '';
  @state() protected busy = false;

  override connectedCallback(): void {
    super.connectedCallback();
    this.error = this.initialError;
    document.title = 'Sign in · Refkit';
  }

  /** Signs in by `fn` (a password, an invitation): the shell takes over on success; a failure is shown. */
  protected async enter(fn: () => Promise<OwnerSession>) {
    this.busy = true;
    this.error = '';
    try {
      const session = await fn();
      this.dispatchEvent(new CustomEvent('signed-in', { detail: session, bubbles: true, composed: true }));
    } catch (err) {
      this.error = err instanceof ApiError && err.code === 'rate_limited' ? `${err.message}.` : describe(err);
    } finally {
      this.busy = false;
    }
  }

  #submit(e: SubmitEvent) {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    return this.enter(() => api().signIn(String(data.get('email')), String(data.get('password'))));
  }

  override render() {
    return html`<main class="box">
      <div class="brand"><span class="logo" aria-hidden="true">R</span> Refkit</div>
      <div class="card">
        <h1>Sign in</h1>
        <p class="muted">to manage your referral programs.</p>
        ${this.error ? html`<div class="alert" role="alert">${this.error}</div>` : nothing}
        <form @submit=${this.#submit}>
          <div class="field"><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required /></div>
          <div class="field">
            <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required />
          </div>
          <button class="primary" type="submit" ?disabled=${this.busy}>${this.busy ? 'Signing in…' : 'Sign in'}</button>
        </form>
      </div>
      <p class="foot muted">No account yet? Create one with <code>npx refkit user create</code>.</p>
    </main>`;
  }
}
