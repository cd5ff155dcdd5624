/**
 * The reward codes a participant got (getMyReferrals `rewards.codes`), in the share view: each code
 * with what it is for and a button that copies it, and a note while a credit waits for its code (the
 * campaign's pool ran out). Absent in campaigns without reward code pools.
 */
import { html, nothing } from 'lit';
import { msg, str } from '@lit/localize';
import type { MyRewards } from '../api/widget-schemas.js';
import { icons } from './icons.js';

/** `copied`: the code whose button says "Copied!" now, '' for none. */
export function rewardCodes(rewards: MyRewards | undefined, copied: string, onCopy: (code: string) => void) {
  const codes = rewards?.codes ?? [];
  const waiting = rewards?.codesWaiting ?? 0;
  if (!codes.length && !waiting) return nothing;
  return html`<section part="codes" aria-labelledby="codes-title">
    <h3 id="codes-title">${msg('Your reward codes')}</h3>
    ${codes.length
      ? html`<ul>
          ${codes.map(
            (c) => html`<li data-code-kind=${c.kind}>
              <span part="reward-code-label" dir="auto">${c.label}</span>
              <span part="reward-code-row">
                <code part="reward-code" dir="ltr">${c.code}</code>
                <button part="button copy-code" type="button" ?data-copied=${copied === c.code} aria-label=${msg(str`Copy the code ${c.code}`)} @click=${() => onCopy(c.code)}>
                  ${copied === c.code ? icons.check : icons.copy}<span aria-hidden="true">${copied === c.code ? msg('Copied!') : msg('Copy')}</span>
                </button>
              </span>
            </li>`,
          )}
        </ul>`
      : nothing}
    ${waiting ? html`<p part="codes-waiting">${msg('A reward code is on its way: it will show here as soon as it is ready.')}</p>` : nothing}
  </section>`;
}
