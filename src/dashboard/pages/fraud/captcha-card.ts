/**
 * The CAPTCHA of a campaign's keyless sign-ups (the campaign editor): the provider, its site key, and its
 * secret key, which is write-only: the card says whether one is stored, an empty field keeps it, and Remove
 * turns the CAPTCHA off (captcha: null). docs/fraud.md#captcha.
 */
import { html } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import type { CampaignSettings } from '../../../api/client.js';
import type { CaptchaProvider } from '../../../api/fraud-schemas.js';
import { confirmAction } from '../../confirm.js';
import { ControlCard } from './control-card.js';

/** The service's providers (a type-only import: the dashboard does not load the schemas), with their names. */
const PROVIDERS = [
  ['turnstile', 'Cloudflare Turnstile'],
  ['hcaptcha', 'hCaptcha'],
  ['recaptcha', 'Google reCAPTCHA v2 (checkbox)'],
] as const satisfies readonly (readonly [CaptchaProvider, string])[];

const FIELDS = ['provider', 'siteKey', 'secretKey'] as const;

@customElement('rk-captcha-card')
export class CaptchaCard extends ControlCard<'captcha'> {
  readonly field = 'captcha' as const;
  @state() private provider: CaptchaProvider = 'turnstile';
  @state() private siteKey = '';
  @state() private secretKey = '';

  protected fill(stored: CampaignSettings['captcha'] | null): void {
    this.provider = stored?.provider ?? 'turnstile';
    this.siteKey = stored?.siteKey ?? '';
    this.secretKey = '';
  }

  /** A stored CAPTCHA whose provider or site key is being changed: its secret must be given again with them. */
  /** A first CAPTCHA needs its secret; a stored one keeps its secret when the field is left empty. */
  get #secretNeeded(): boolean {
    return this.stored === null;
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    const secretKey = this.secretKey.trim();
    if (!secretKey && this.#secretNeeded) {
      this.error = 'The secret key is needed to turn the CAPTCHA on.';
      return;
    }
    const body = { provider: this.provider, siteKey: this.siteKey.trim(), ...(secretKey && { secretKey }) };
    if (await this.write(body, 'CAPTCHA saved.')) this.secretKey = '';
  }

  async #remove() {
    if (!(await confirmAction(this, 'Remove the CAPTCHA?', 'Sign-ups from the widget no longer solve a CAPTCHA. The keys are forgotten.', 'Remove CAPTCHA', true))) return;
    await this.write(null, 'CAPTCHA removed.');
  }

  override render() {
    const stored = this.stored;
    const needed = this.#secretNeeded;
    return this.frame({
      title: 'CAPTCHA',
      about: 'A challenge every sign-up from the widget solves first. Sign-ups your backend sends with a secret key need none.',
      configured: stored !== null,
      fields: FIELDS,
      saveLabel: 'Save CAPTCHA',
      save: (e) => void this.#save(e),
      remove: () => void this.#remove(),
      body: html`<div class="row">
          <div class="field">
            <label for="captcha-provider">Provider</label>
            <select id="captcha-provider" aria-describedby=${this.describedBy('provider')} @change=${(e: Event) => (this.provider = (e.target as HTMLSelectElement).value as CaptchaProvider)}>
              ${PROVIDERS.map(([value, label]) => html`<option value=${value} ?selected=${this.provider === value}>${label}</option>`)}
            </select>
            <div class="hint" id="captcha-provider-hint">Whose challenge the widget shows.</div>
            ${this.errorLine('provider')}
          </div>
          <div class="field">
            <label for="captcha-siteKey">Site key</label>
            <input id="captcha-siteKey" autocomplete="off" spellcheck="false" maxlength="200" required .value=${this.siteKey}
              @input=${(e: Event) => (this.siteKey = (e.target as HTMLInputElement).value)}
              aria-invalid=${this.errorOf('siteKey') ? 'true' : 'false'} aria-describedby=${this.describedBy('siteKey')} />
            <div class="hint" id="captcha-siteKey-hint">The public key the widget shows the challenge with.</div>
            ${this.errorLine('siteKey')}
          </div>
        </div>
        <div class="field">
          <div class="label-badge">
            <label for="captcha-secretKey">Secret key</label>
            ${this.campaign ? html`<span class="badge ${stored ? 'ok' : 'warn'}">${stored ? 'set' : 'not set'}</span>` : ''}
          </div>
          <input id="captcha-secretKey" type="password" autocomplete="off" maxlength="200" ?required=${needed} .value=${this.secretKey}
            placeholder=${stored ? 'Leave empty to keep it' : ''}
            @input=${(e: Event) => (this.secretKey = (e.target as HTMLInputElement).value)}
            aria-invalid=${this.errorOf('secretKey') ? 'true' : 'false'} aria-describedby=${this.describedBy('secretKey')} />
          <div class="hint" id="captcha-secretKey-hint">What the service checks each solved challenge with. Never shown again once saved.</div>
          ${this.errorLine('secretKey')}
        </div>`,
    });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-captcha-card': CaptchaCard;
  }
}
