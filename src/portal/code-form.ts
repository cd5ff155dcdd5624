/**
 * The participant chooses their referral code (a vanity code): it goes in their link, and a campaign with
 * a friend's discount makes a promotion code of it. Their old code keeps working. A refusal is said beside
 * the field in the page's language (a code against the rules, a word not allowed, a code someone has, the
 * day's changes used up); a change is told to the page (`portal-changed`), which reads the portal again.
 */
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { PortalMe } from '../api/portal-schemas.js';
import { base } from '../dashboard/styles.js';
import { describeFailure } from '../widget/failures.js';
import { ApiError, type PortalClient } from './portal-client.js';
import { t } from './texts.js';

/** What to say of a refused code, in the page's language: by the service's code. */
function refusal(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === 'code_taken') return t.codeTaken();
    if (err.code === 'code_not_allowed') return t.codeNotAllowed();
    if (err.status === 429 && err.field === 'code') return t.tooManyCodeChanges();
    if (err.code === 'invalid_request' && err.field === 'code') return t.badCode();
  }
  return describeFailure(err, navigator.onLine).message;
}

@customElement('portal-code-form')
export class PortalCodeForm extends LitElement {
  static override styles = [
    base,
    css`
      form { display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 8px 12px; align-items: end; }
      form .field { margin: 0; }
      form .hint, form .field-error { grid-column: 1 / -1; margin: 0; }
      input { text-transform: uppercase; }
      input::placeholder { text-transform: none; }
      @media (max-width: 640px) { form { grid-template-columns: minmax(0, 1fr); } }
    `,
  ];

  @property({ attribute: false }) me!: PortalMe;
  @property({ attribute: false }) client!: PortalClient;
  @state() private busy = false;
  @state() private error = '';
  @state() private notice = '';

  async #save(e: SubmitEvent): Promise<void> {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const code = String(new FormData(form).get('code') ?? '').trim();
    this.busy = true;
    this.error = '';
    this.notice = '';
    try {
      const participant = await this.client.setReferralCode(code);
      form.reset();
      this.notice = t.savedCode(participant.referralCode ?? code.toUpperCase());
      this.dispatchEvent(new CustomEvent('portal-changed', { bubbles: true, composed: true }));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) this.dispatchEvent(new CustomEvent('portal-signed-out', { bubbles: true, composed: true }));
      this.error = refusal(err);
    } finally {
      this.busy = false;
    }
  }

  protected override render() {
    const code = this.me.participant.referralCode ?? '';
    return html`<section class="card" aria-labelledby="code-title">
      <h2 id="code-title">${t.chooseCode()}</h2>
      <p class="muted" id="code-intro">${t.chooseCodeIntro(code)}</p>
      <div role="status">${this.notice ? html`<div class="notice">${this.notice}</div>` : nothing}</div>
      <form @submit=${this.#save}>
        <div class="field">
          <label for="new-code">${t.newCode()}</label>
          <input
            id="new-code"
            name="code"
            dir="ltr"
            required
            maxlength="64"
            autocomplete="off"
            autocapitalize="characters"
            spellcheck="false"
            aria-invalid=${this.error ? 'true' : 'false'}
            aria-describedby="code-hint${this.error ? ' code-error' : ''}"
          />
        </div>
        <button class="primary" type="submit" ?disabled=${this.busy}>${t.saveCode()}</button>
        <div class="hint muted" id="code-hint">${t.codeHint()}</div>
        ${this.error ? html`<div class="field-error" id="code-error" role="alert">${this.error}</div>` : nothing}
      </form>
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'portal-code-form': PortalCodeForm;
  }
}
