/**
 * The auto-approval limits of a campaign (the campaign editor, autoApprove): how many referrals one
 * referrer may have credited in a day, and in all, before the next waits for the owner's review. Empty:
 * no limit; both empty removes them. docs/fraud.md#limits-that-hold.
 */
import { html } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import type { CampaignSettings } from '../../../api/client.js';
import type { AutoApprove } from '../../../api/fraud-schemas.js';
import { ControlCard } from './control-card.js';

type Limit = keyof AutoApprove;

const LIMITS: { key: Limit; label: string; hint: string }[] = [
  { key: 'maxRewardsPerDay', label: 'Credited referrals per referrer per day', hint: "In the campaign's time zone. Empty: no daily limit." },
  { key: 'maxRewardsPerReferrer', label: 'Credited referrals per referrer in all', hint: 'Empty: no limit.' },
];
const KEYS = LIMITS.map((l) => l.key);

@customElement('rk-limits-card')
export class LimitsCard extends ControlCard<'autoApprove'> {
  readonly field = 'autoApprove' as const;
  @state() private values: Record<Limit, string> = { maxRewardsPerDay: '', maxRewardsPerReferrer: '' };

  protected fill(stored: CampaignSettings['autoApprove'] | null): void {
    this.values = { maxRewardsPerDay: String(stored?.maxRewardsPerDay ?? ''), maxRewardsPerReferrer: String(stored?.maxRewardsPerReferrer ?? '') };
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    const limits: AutoApprove = {};
    for (const key of KEYS) if (this.values[key].trim() !== '') limits[key] = Number(this.values[key]);
    const none = Object.keys(limits).length === 0;
    await this.write(none ? null : limits, none ? 'No limits: every credit is approved at once.' : 'Limits saved.');
  }

  override render() {
    const stored = this.stored;
    return this.frame({
      title: 'Limits that hold',
      about: 'Past a limit, the next credit of that referrer waits for your approval on the Fraud page, with the reason.',
      configured: stored !== null && Object.keys(stored).length > 0,
      fields: KEYS,
      saveLabel: 'Save limits',
      save: (e) => void this.#save(e),
      body: html`<div class="row">
        ${LIMITS.map(
          (l) => html`<div class="field">
            <label for="autoApprove-${l.key}">${l.label}</label>
            <input id="autoApprove-${l.key}" type="number" inputmode="numeric" min="1" max="1000000" step="1" placeholder="No limit" .value=${this.values[l.key]}
              @input=${(e: Event) => (this.values = { ...this.values, [l.key]: (e.target as HTMLInputElement).value })}
              aria-invalid=${this.errorOf(l.key) ? 'true' : 'false'} aria-describedby=${this.describedBy(l.key)} />
            <div class="hint" id="autoApprove-${l.key}-hint">${l.hint}</div>
            ${this.errorLine(l.key)}
          </div>`,
        )}
      </div>`,
    });
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'rk-limits-card': LimitsCard;
  }
}
