/** Joining through an invitation's link (#/join?token=...): set a password; signed in at once. */
import { html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { api } from '../api.js';
import { href } from '../router.js';
import { SignIn } from './sign-in.js';

@customElement('rk-join')
export class Join extends SignIn {
  @property() token = '';

  override connectedCallback(): void {
    super.connectedCallback();
    document.title = 'Join · Refkit';
  }

  #submit(e: SubmitEvent) {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const password = String(data.get('password'));
    if (password !== String(data.get('again'))) {
      this.error = 'The two passwords differ.';
      return;
    }
    return this.enter(async () => {
      const session = await api().acceptInvitation(this.token, password);
      location.hash = href.campaigns();
      return session;
    });
  }

  override render() {
    return html`<main class="box">
      <div class="brand"><span class="logo" aria-hidden="true">R</span> Refkit</div>
      <div class="card">
        <h1>Join the team</h1>
        <p class="muted">Choose a password to accept the invitation. The link works once.</p>
        ${this.error ? html`<div class="alert" role="alert">${this.error}</div>` : nothing}
        <form @submit=${this.#submit}>
          <div class="field"><label for="password">Password (at least 10 characters)</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required /></div>
          <div class="field"><label for="again">The same password again</label><input id="again" name="again" type="password" autocomplete="new-password" minlength="10" required /></div>
          <button class="primary" type="submit" ?disabled=${this.busy || !this.token}>${this.busy ? 'Joining…' : 'Join'}</button>
        </form>
      </div>
    </main>`;
  }
}
