/** A modal confirmation (the native <dialog>: focus trapped, Escape cancels) before an action that cannot be undone lightly. */
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { base } from './styles.js';

@customElement('rk-confirm')
export class Confirm extends LitElement {
  static override styles = [
    base,
    css`
      dialog { border: 0; border-radius: 12px; padding: 24px; width: min(440px, calc(100vw - 32px)); box-shadow: 0 20px 40px rgba(16, 24, 40, 0.2); }
      dialog::backdrop { background: rgba(16, 24, 40, 0.45); }
      .buttons { display: flex; justify-content: flex-end; gap: 8px; margin-top: 20px; }
    `,
  ];
  @property() heading = '';
  @property() body = '';
  @property() confirmLabel = 'Confirm';
  @property({ type: Boolean }) destructive = false;
  /** Text the owner must type before the confirm button works (an erasure asks for the email); '' for none. */
  @property() typed = '';
  @state() private typing = '';
  @query('dialog') dialog!: HTMLDialogElement;
  #resolve: ((ok: boolean) => void) | undefined;

  /** Opens the dialog; resolves true when confirmed (after typing `typed`, when given). */
  ask(heading: string, body: string, confirmLabel: string, destructive = false, typed = ''): Promise<boolean> {
    Object.assign(this, { heading, body, confirmLabel, destructive, typed, typing: '' });
    return this.updateComplete.then(() => {
      this.dialog.showModal();
      return new Promise<boolean>((resolve) => (this.#resolve = resolve));
    });
  }

  #close(ok: boolean) {
    this.dialog.close();
    this.#resolve?.(ok);
    this.#resolve = undefined;
  }

  override render() {
    return html`<dialog aria-labelledby="t" aria-describedby="b" @cancel=${() => this.#close(false)}>
      <h2 id="t">${this.heading}</h2>
      <p id="b" class="muted">${this.body}</p>
      ${this.typed
        ? html`<div class="field">
            <label for="typed">Type <strong>${this.typed}</strong> to confirm</label>
            <input id="typed" autocomplete="off" spellcheck="false" .value=${this.typing} @input=${(e: InputEvent) => (this.typing = (e.target as HTMLInputElement).value)} />
          </div>`
        : nothing}
      <div class="buttons">
        <button @click=${() => this.#close(false)}>Cancel</button>
        <button class=${this.destructive ? 'danger' : 'primary'} ?disabled=${this.typing.trim() !== this.typed} @click=${() => this.#close(true)}>${this.confirmLabel}</button>
      </div>
    </dialog>`;
  }
}

/** One dialog per page, appended on first use. */
export function confirmAction(host: HTMLElement, heading: string, body: string, confirmLabel: string, destructive = false, typed = ''): Promise<boolean> {
  const root = host.shadowRoot ?? host;
  let dialog = root.querySelector('rk-confirm');
  if (!dialog) {
    dialog = document.createElement('rk-confirm');
    root.appendChild(dialog);
  }
  return dialog.ask(heading, body, confirmLabel, destructive, typed);
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-confirm': Confirm;
  }
}
