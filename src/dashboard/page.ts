/** What every page shares: the styles, an alert line for failures, and a notice line for successes. */
import { LitElement, html, nothing } from 'lit';
import { state } from 'lit/decorators.js';
import { ApiError, describe, isUnauthorized } from './api.js';
import { may } from './role.js';
import { base } from './styles.js';

export class Page extends LitElement {
  static override styles = [base];
  @state() error = '';
  @state() notice = '';
  /** The request field the last failure named (the error envelope's `field`, e.g. `milestones.1.label`), for a form to mark. */
  @state() errorField: string | undefined;

  /** The signed-in member may change campaigns, participants, rewards and settings (not a viewer): their controls show. */
  protected get mayChange(): boolean {
    return may('change');
  }

  /** The signed-in member may manage members and secret keys (an owner). */
  protected get mayManage(): boolean {
    return may('manage');
  }

  /** Runs an action, showing its failure in the alert line; a lost session sends the owner to sign in. */
  protected async attempt<T>(fn: () => Promise<T>): Promise<T | undefined> {
    this.error = '';
    this.errorField = undefined;
    try {
      return await fn();
    } catch (err) {
      if (isUnauthorized(err)) this.dispatchEvent(new CustomEvent('signed-out', { bubbles: true, composed: true }));
      this.error = describe(err);
      this.errorField = err instanceof ApiError ? err.field : undefined;
      return undefined;
    }
  }

  /** Another subject is on screen (another participant, campaign): what was said about the last one goes. */
  protected forgetMessages(): void {
    this.error = '';
    this.errorField = undefined;
    this.notice = '';
  }

  protected messages() {
    return html`${this.error ? html`<div class="alert" role="alert">${this.error}</div>` : nothing}
      <div role="status">${this.notice ? html`<div class="notice">${this.notice}</div>` : nothing}</div>`;
  }
}
