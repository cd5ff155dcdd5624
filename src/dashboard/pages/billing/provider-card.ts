/**
 * What the Payout providers page's credential cards share (./paypal-credentials.ts,
 * ./stripe-connect-credentials.ts): one account setting each, saved or removed through
 * updateAccountSettings, with write-only secrets that show only whether they are set and, left empty,
 * keep the stored one. A card says the service's refusal of one of its fields beside that field.
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import { property } from 'lit/decorators.js';
import type { AccountSettings, UpdateAccountSettingsBody } from '../../../api/settings-schemas.js';
import { api } from '../../api.js';
import { confirmAction } from '../../confirm.js';
import { Page } from '../../page.js';

type ProviderField = 'paypal' | 'paypalSandbox' | 'stripe' | 'stripeTest';

/** A text or secret input of a card: its label, hint, and the service's refusal of it. */
export interface InputSpec {
  name: string;
  label: string;
  hint: string;
  required: boolean;
  /** A text input's current value; a secret input has none (`secretSet` says whether one is stored). */
  value?: string;
  secretSet?: boolean;
  placeholder?: string;
}

export abstract class ProviderCard<F extends ProviderField> extends Page {
  static override styles = [
    ...Page.styles,
    css`
      /* Side by side on a wide screen: as tall as the other card of the row. */
      :host { height: 100%; }
      section.card { height: 100%; }
      .title { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; margin-bottom: 8px; }
      .title h2 { margin: 0; }
      .actions { margin-top: 4px; }
    `,
  ];
  abstract field: F;
  @property({ attribute: false }) settings: AccountSettings | undefined;

  protected get current(): AccountSettings[F] | null {
    return this.settings?.[this.field] ?? null;
  }

  /** Saves (or, with null, removes) this card's setting; tells the page the settings the service answered. */
  protected async write(value: NonNullable<UpdateAccountSettingsBody[F]> | null): Promise<boolean> {
    this.notice = '';
    const saved = await this.attempt(() => api().updateAccountSettings({ [this.field]: value }));
    if (!saved) return false;
    this.dispatchEvent(new CustomEvent('account-settings-changed', { detail: saved, bubbles: true, composed: true }));
    return true;
  }

  /** The service's refusal of one field of this card, or ''. */
  protected errorOf(name: string): string {
    return this.errorField === `${this.field}.${name}` ? this.error : '';
  }

  /** Whether the page's message is about one of these fields (then it is said beside the field, not on top). */
  protected fieldRefused(names: readonly string[]): boolean {
    return names.some((n) => this.errorOf(n) !== '');
  }

  protected input(spec: InputSpec): TemplateResult {
    const { name, label, hint, required } = spec;
    const error = this.errorOf(name);
    const secret = spec.secretSet !== undefined;
    const described = `${name}-hint ${error ? `${name}-error` : ''}`;
    return html`<div class="field">
      ${secret
        ? html`<div class="label-badge">
            <label for=${name}>${label}</label>
            ${this.settings ? html`<span class="badge ${spec.secretSet ? 'ok' : 'warn'}">${spec.secretSet ? 'set' : 'not set'}</span>` : nothing}
          </div>`
        : html`<label for=${name}>${label}</label>`}
      ${secret
        ? html`<input id=${name} name=${name} type="password" autocomplete="off" ?required=${required} maxlength="260"
            placeholder=${spec.secretSet ? 'Leave empty to keep it' : (spec.placeholder ?? '')}
            aria-invalid=${error ? 'true' : 'false'} aria-describedby=${described} />`
        : html`<input id=${name} name=${name} autocomplete="off" spellcheck="false" ?required=${required} maxlength="200" .value=${spec.value ?? ''}
            aria-invalid=${error ? 'true' : 'false'} aria-describedby=${described} />`}
      <div class="hint" id="${name}-hint">${hint}</div>
      ${error ? html`<div class="field-error" id="${name}-error" role="alert">${error}</div>` : nothing}
    </div>`;
  }

  /**
   * The card: its title with badges, what it pays, and the form of `inputs` with Save and Remove. `value`
   * makes the setting of the submitted form; `noun` is what is saved ("credentials", "keys"); `afterRemove`
   * says, in the confirmation, what removing it does.
   */
  protected card(o: {
    title: string;
    mode: string;
    noun: string;
    inputs: TemplateResult[];
    fields: readonly string[];
    value: (data: FormData) => NonNullable<UpdateAccountSettingsBody[F]>;
    afterRemove: string;
  }): TemplateResult {
    const configured = this.current !== null;
    const what = `${o.title} ${o.noun}`;
    const save = async (e: SubmitEvent) => {
      e.preventDefault();
      const form = e.currentTarget as HTMLFormElement;
      if (!(await this.write(o.value(new FormData(form))))) return;
      // Secrets are not kept in the page once saved.
      for (const input of form.querySelectorAll<HTMLInputElement>('input[type=password]')) input.value = '';
      this.notice = `${what} saved.`;
    };
    const remove = async () => {
      const ok = await confirmAction(this, `Remove the ${what}?`, o.afterRemove, `Remove ${o.noun}`, true);
      if (ok && (await this.write(null))) this.notice = `${what} removed.`;
    };
    const h = `${this.field}-h`;
    return html`<section class="card" aria-labelledby=${h}>
      <div class="title">
        <h2 id=${h}>${o.title}</h2>
        ${this.field.endsWith('Sandbox') || this.field.endsWith('Test') ? html`<span class="badge test">Test campaigns</span>` : nothing}
        ${this.settings ? html`<span class="badge ${configured ? 'ok' : 'warn'} state">${configured ? 'configured' : 'not configured'}</span>` : nothing}
      </div>
      <p class="muted">${o.mode}</p>
      ${this.fieldRefused(o.fields) ? nothing : this.messages()}
      <form @submit=${save}>
        <fieldset ?disabled=${!this.mayChange}>${o.inputs}</fieldset>
        ${this.mayChange
          ? html`<div class="actions">
              <button class="primary" type="submit">Save ${what}</button>
              ${configured ? html`<button type="button" class="danger-ghost" aria-label="Remove ${what}" @click=${remove}>Remove</button>` : nothing}
            </div>`
          : nothing}
      </form>
    </section>`;
  }
}

/** A trimmed field of a submitted form, or undefined when it was left empty. */
export function given(data: FormData, name: string): string | undefined {
  return String(data.get(name) ?? '').trim() || undefined;
}
