/**
 * What the campaign editor's fraud control cards share (./blocklist-card.ts, ./captcha-card.ts,
 * ./limits-card.ts): each edits one field of the campaign (blocklist, captcha, autoApprove) and saves it on
 * its own with updateCampaign, apart from the settings form, so that neither's unsaved edits are sent by the
 * other. A card fills its form from the campaign when that field's stored value changes (its own save, or
 * another tab's), not on every refresh of the campaign list; the service's refusal of one of its fields is
 * said beside that field.
 */
import { css, html, nothing, type TemplateResult } from 'lit';
import { property } from 'lit/decorators.js';
import type { CampaignSettings, UpdateCampaignBody } from '../../../api/client.js';
import { api } from '../../api.js';
import { Page } from '../../page.js';

export type ControlField = 'blocklist' | 'captcha' | 'autoApprove';

export abstract class ControlCard<F extends ControlField> extends Page {
  static override styles = [
    ...Page.styles,
    css`
      :host { display: block; }
      .title { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; margin-bottom: 4px; }
      .title h2 { margin: 0; }
      form .actions { margin-top: 4px; }
      textarea { min-height: 88px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
    `,
  ];
  abstract readonly field: F;
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  /** The stored value the form was last filled from (as JSON), with its campaign. */
  #filledFrom: string | undefined;

  /** The field as the service last said it is stored. */
  protected get stored(): CampaignSettings[F] | null {
    return this.campaign?.[this.field] ?? null;
  }

  /** Fills the form's state from the stored value. */
  protected abstract fill(stored: CampaignSettings[F] | null): void;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (!changed.has('campaign') && !changed.has('campaignId')) return;
    const key = `${this.campaignId} ${JSON.stringify(this.stored)}`;
    if (this.campaign && key !== this.#filledFrom) {
      if (this.#filledFrom?.split(' ')[0] !== this.campaignId) this.forgetMessages();
      this.#filledFrom = key;
      this.fill(this.stored);
    }
  }

  /** Saves (or, with null, removes) the field; the shell reads the campaigns again, which fills the form with what was stored. */
  protected async write(value: UpdateCampaignBody[F] | null, done: string): Promise<boolean> {
    this.notice = '';
    const saved = await this.attempt(() => api().updateCampaign({ id: this.campaignId, [this.field]: value } as UpdateCampaignBody));
    if (!saved) return false;
    this.campaign = saved;
    this.notice = done;
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
    return true;
  }

  /** The service's refusal of `name` (or of an entry of it: `blocklist.ips.2`), or ''. */
  protected errorOf(name: string): string {
    const at = this.errorField;
    const path = `${this.field}.${name}`;
    return at !== undefined && (at === path || at.startsWith(`${path}.`)) ? this.error : '';
  }

  /** Whether the message is about one of these fields (then it is said beside the field, not on top). */
  protected fieldRefused(names: readonly string[]): boolean {
    return names.some((n) => this.errorOf(n) !== '');
  }

  /** The line under a field that says what the service refused of it. */
  protected errorLine(name: string): TemplateResult | typeof nothing {
    const error = this.errorOf(name);
    return error ? html`<div class="field-error" id="${this.field}-${name}-error" role="alert">${error}</div>` : nothing;
  }

  /** aria-describedby of a field: its hint, and its error when there is one. */
  protected describedBy(name: string): string {
    return [`${this.field}-${name}-hint`, this.errorOf(name) ? `${this.field}-${name}-error` : ''].filter(Boolean).join(' ');
  }

  /** The card's frame: its title and state badge, what it does, and its form with Save (and Remove when set). */
  protected frame(o: { title: string; about: string; configured: boolean; fields: readonly string[]; body: TemplateResult; save: (e: SubmitEvent) => void; saveLabel: string; remove?: () => void }): TemplateResult {
    const h = `${this.field}-h`;
    return html`<section class="card" aria-labelledby=${h}>
      <div class="title">
        <h2 id=${h}>${o.title}</h2>
        ${this.campaign ? html`<span class="badge ${o.configured ? 'ok' : ''}">${o.configured ? 'on' : 'off'}</span>` : nothing}
      </div>
      <p class="muted">${o.about}</p>
      ${this.fieldRefused(o.fields) ? html`<div role="status">${this.notice ? html`<div class="notice">${this.notice}</div>` : nothing}</div>` : this.messages()}
      <form @submit=${o.save}>
        <fieldset ?disabled=${!this.mayChange}>${o.body}</fieldset>
        ${this.mayChange
          ? html`<div class="actions">
              <button class="primary" type="submit">${o.saveLabel}</button>
              ${o.remove && o.configured ? html`<button type="button" class="danger-ghost" @click=${o.remove}>Remove</button>` : nothing}
            </div>`
          : nothing}
      </form>
    </section>`;
  }
}

/** The non-empty lines of a textarea, trimmed. */
export const lines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
