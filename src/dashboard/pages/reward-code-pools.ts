/**
 * A campaign's reward code pools: per kind the codes available and used and the credits waiting for one,
 * a warning for a pool that ran out with credits waiting or fell under the campaign's low threshold, the
 * threshold itself, and filling a pool from a CSV file or pasted codes.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { REWARD_CODE_KINDS } from '../../api/schemas.js';
import type { CampaignSettings, RewardCodeKind, RewardCodePool, RewardCodesAdded, RowProblem } from '../../api/client.js';
import { ApiError, api } from '../api.js';
import { count, n } from '../format.js';
import { Page } from '../page.js';
import { rowReport, rowReportStyles } from '../row-report.js';

const KINDS: Record<RewardCodeKind, string> = {
  referral: 'Referral rewards',
  referee: 'Referee rewards',
  milestone: 'Milestone bonuses',
};
const THRESHOLD_FIELD = 'rewardCodesLowThreshold';

/** What needs the owner about a pool, if anything: empty with credits waiting, or under the threshold (0: never low). */
export function poolWarning(pool: RewardCodePool, threshold: number): { level: 'danger' | 'warn'; label: string; text: string } | undefined {
  if (pool.available === 0 && pool.waiting > 0) return { level: 'danger', label: 'empty', text: `${count(pool.waiting, 'credit waits', 'credits wait')} for a code` };
  if (threshold > 0 && pool.available < threshold) return { level: 'warn', label: 'low', text: `${count(pool.available, 'code', 'codes')} left, under ${n(threshold)}` };
  return undefined;
}

/** Pasted codes, one a line, with the line each is on: blank lines are skipped, yet the lines after them keep their number. */
export function pastedCodes(text: string): { code: string; line: number }[] {
  return text
    .split(/\r\n|\n|\r/)
    .map((raw, i) => ({ code: raw.trim(), line: i + 1 }))
    .filter((c) => c.code !== '');
}

/**
 * @summary The reward code pools card of a campaign's Billing page.
 *
 * @property campaignId - The campaign.
 * @property campaign - The campaign's settings: `rewardCodesLowThreshold` is what "low" means.
 *
 * @event campaigns-changed - Bubbles after the low threshold is saved, so the shell reads the settings again.
 */
@customElement('rk-reward-code-pools')
export class RewardCodePools extends Page {
  static override styles = [
    ...Page.styles,
    rowReportStyles,
    css`
      .warnings { margin: 0 0 12px; padding: 0; list-style: none; display: grid; gap: 6px; }
      form.fill { display: grid; grid-template-columns: 200px minmax(0, 1fr); gap: 12px 16px; margin-top: 16px; }
      form.fill .wide { grid-column: 1 / -1; }
      form.fill .field, form.threshold .field { margin: 0; }
      form.threshold { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; margin-top: 16px; }
      form.threshold input { width: 12ch; }
      input[type='file'] { max-width: 100%; }
      @media (max-width: 640px) { form.fill { grid-template-columns: minmax(0, 1fr); } }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private pools: RewardCodePool[] | undefined;
  /** The lines the last fill refused (it added nothing then), shown until the next one. */
  @state() private refused: RowProblem[] = [];
  /** The threshold the last save here set, until the shell's settings (read again) say it themselves. */
  @state() private savedThreshold: number | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      this.refused = [];
      this.pools = undefined;
      void this.#load();
    }
    if (changed.has('campaign')) this.savedThreshold = undefined;
  }

  get #threshold(): number {
    return this.savedThreshold ?? this.campaign?.rewardCodesLowThreshold ?? 0;
  }

  async #load() {
    const id = this.campaignId;
    const pools = await this.attempt(() => api().listRewardCodePools(id));
    if (pools && id === this.campaignId) this.pools = pools;
  }

  async #fill(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const kind = String(data.get('kind')) as RewardCodeKind;
    const file = data.get('file');
    const hasFile = file instanceof File && file.size > 0;
    const pasted = pastedCodes(String(data.get('codes') ?? ''));
    this.notice = '';
    this.refused = [];
    if (hasFile === (pasted.length > 0)) {
      this.error = hasFile ? 'Upload a file or paste codes, not both.' : 'Choose a CSV file or paste codes, one a line.';
      return;
    }
    const added = await this.attempt(() => (hasFile ? this.#upload(kind, file) : this.#paste(kind, pasted)));
    // A refused file is corrected on disk and chosen again; left chosen, it would stand in the way of pasting.
    if (hasFile) (form.elements.namedItem('file') as HTMLInputElement).value = '';
    if (!added) return;
    form.reset();
    const served = added.served > 0 ? `; ${count(added.served, 'waiting credit', 'waiting credits')} got one` : '';
    this.notice = `${KINDS[kind]}: added ${count(added.added, 'code', 'codes')}, ${count(added.duplicates, 'duplicate', 'duplicates')} skipped${served}.`;
    await this.#load();
  }

  /** A CSV file: its 400 lists the refused lines itself. */
  #upload(kind: RewardCodeKind, file: File): Promise<RewardCodesAdded> {
    return api()
      .importRewardCodes(this.campaignId, kind, file)
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.rows) this.refused = err.rows;
        throw err;
      });
  }

  /**
   * Pasted codes: the 400 names the first bad one as `codes.<index>` of the list sent, which has no blank
   * lines; the report says the line of the text area it is on, which the owner sees.
   */
  #paste(kind: RewardCodeKind, pasted: { code: string; line: number }[]): Promise<RewardCodesAdded> {
    return api()
      .addRewardCodes({ id: this.campaignId, kind, codes: pasted.map((c) => c.code) })
      .catch((err: unknown) => {
        const at = err instanceof ApiError ? /^codes\.(\d+)$/.exec(err.field ?? '') : null;
        const line = at ? pasted[Number(at[1])]?.line : undefined;
        if (!(err instanceof ApiError) || line === undefined) throw err;
        this.refused = [{ line, message: err.message.replace(/^codes\.\d+/, 'The code') }];
        throw new ApiError(err.status, err.code, `Line ${line} cannot be added, so no code was: correct it and add the codes again.`, err.field);
      });
  }

  async #saveThreshold(e: SubmitEvent) {
    e.preventDefault();
    const value = Number(new FormData(e.currentTarget as HTMLFormElement).get('threshold'));
    this.notice = '';
    this.refused = [];
    if (!(await this.attempt(() => api().updateCampaign({ id: this.campaignId, [THRESHOLD_FIELD]: value })))) return;
    this.savedThreshold = value;
    this.notice = value === 0 ? 'Pools are never called low now.' : `A pool with fewer than ${count(value, 'code', 'codes')} left is called low now.`;
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
  }

  #table() {
    const pools = this.pools;
    return html`<div class="table-wrap">
      <table class="records" aria-labelledby="pools-h" aria-busy=${pools === undefined ? 'true' : 'false'}>
        <thead><tr><th>Pool</th><th class="num">Available</th><th class="num">Used</th><th class="num">Waiting</th></tr></thead>
        <tbody>
          ${pools === undefined
            ? nothing
            : pools.length === 0
              ? html`<tr><td colspan="4" class="empty">No pool yet: add codes to start one.</td></tr>`
              : pools.map(
                  (p) => html`<tr data-kind=${p.kind}>
                    <td>${KINDS[p.kind]}</td>
                    <td class="num" data-label="Available">${n(p.available)}</td>
                    <td class="num" data-label="Used">${n(p.used)}</td>
                    <td class="num" data-label="Waiting">${n(p.waiting)}</td>
                  </tr>`,
                )}
        </tbody>
      </table>
    </div>`;
  }

  #warnings() {
    const threshold = this.#threshold;
    const warnings = (this.pools ?? []).flatMap((p) => {
      const w = poolWarning(p, threshold);
      return w ? [{ ...w, kind: p.kind }] : [];
    });
    if (warnings.length === 0) return nothing;
    return html`<ul class="warnings" aria-label="Pools that need codes">
      ${warnings.map((w) => html`<li><span class="badge ${w.level}">${w.label}</span> ${KINDS[w.kind]}: ${w.text}</li>`)}
    </ul>`;
  }

  override render() {
    return html`<section class="card" aria-labelledby="pools-h">
      <h2 id="pools-h">Reward code pools</h2>
      <p class="muted">
        Each credit of a kind with a pool gets one of its codes (a gift card, a coupon) as it becomes available. When the pool is empty, credits
        wait, and a refill serves them, oldest first.
      </p>
      ${this.#warnings()} ${this.#table()} ${this.mayChange ? this.#forms() : this.messages()}
    </section>`;
  }

  /** Setting the threshold and adding codes: changes, for a role that may make them. */
  #forms() {
    return html`<form class="threshold" @submit=${this.#saveThreshold}>
        <div class="field">
          <label for="pool-threshold">Low when fewer than</label>
          <input id="pool-threshold" name="threshold" type="number" min="0" max="1000000" step="1" required .value=${String(this.#threshold)} aria-describedby="pool-threshold-hint" />
        </div>
        <button type="submit">Save threshold</button>
        <div class="hint muted" id="pool-threshold-hint">A pool with fewer codes left is called low here, and <code>reward_codes_low</code> is sent; 0: never.</div>
      </form>
      <h3 style="margin-top:16px">Add codes</h3>
      ${this.messages()} ${rowReport(this.refused, 'Lines refused')}
      <form class="fill" @submit=${this.#fill}>
        <div class="field">
          <label for="pool-kind">Pool</label>
          <select id="pool-kind" name="kind">
            ${REWARD_CODE_KINDS.map((k) => html`<option value=${k}>${KINDS[k]}</option>`)}
          </select>
        </div>
        <div class="field">
          <label for="pool-file">CSV file</label>
          <input id="pool-file" name="file" type="file" accept=".csv,text/csv,text/plain" aria-describedby="pool-file-hint" />
          <div class="hint" id="pool-file-hint">One code a line, or a header line naming a <code>code</code> column.</div>
        </div>
        <div class="field wide">
          <label for="pool-codes">Or paste codes, one a line</label>
          <textarea id="pool-codes" class="mono" name="codes" rows="4" spellcheck="false"></textarea>
        </div>
        <div class="wide"><button class="primary" type="submit">Add codes</button></div>
      </form>`;
  }
}
