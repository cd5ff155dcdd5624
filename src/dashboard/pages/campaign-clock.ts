/**
 * A test campaign's clock (test mode, docs/testing-mode.md): the campaign's time and how far it is ahead of the
 * real time, its held and available rewards, and "Advance clock": a day, a week, a month, or to a chosen
 * moment. The service steps through what falls due on the way (holds end, reminders go out), so the rewards
 * shown move as the clock does. Its refusals (a time not ahead, one too far, another advance meanwhile) are
 * said in the panel's alert line.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings, RewardLiability } from '../../api/client.js';
import type { CampaignClock } from '../../api/schemas.js';
import { api } from '../api.js';
import { count, moment, reward, toLocalInput } from '../format.js';
import { Page } from '../page.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
/** The quick steps: [days, label]. */
const STEPS: [number, string][] = [
  [1, '+1 day'],
  [7, '+7 days'],
  [30, '+30 days'],
];

/** How far ahead of the real time, to the minute ("30 days", "1 day, 2 hours"); a step's own run takes a moment of real time. */
export function aheadBy(offsetMs: number): string {
  const minutes = Math.round(offsetMs / MINUTE);
  if (minutes <= 0) return 'Not moved: the real time';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const parts = [days && count(days, 'day', 'days'), hours && count(hours, 'hour', 'hours'), minutes % 60 && count(minutes % 60, 'minute', 'minutes')];
  return parts.filter(Boolean).join(', ');
}

/**
 * @summary The Clock panel of a test campaign's page.
 *
 * @property campaignId - The test campaign.
 * @property campaign - Its settings: rewards are written in its currency or unit.
 * @fires campaigns-changed - After the clock moved: what reads the time (status after `end`, counts) is read again.
 */
@customElement('rk-campaign-clock')
export class CampaignClockPanel extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .head { display: flex; align-items: center; justify-content: space-between; gap: 12px; flex-wrap: wrap; margin-bottom: 12px; }
      .head h2 { margin: 0; }
      dl.props { margin-bottom: 16px; }
      .steps { display: flex; gap: 8px; flex-wrap: wrap; margin-bottom: 16px; }
      form.add .field { margin: 0; }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private clock: CampaignClock | undefined;
  @state() private rewards: RewardLiability | undefined;
  @state() private busy = false;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      this.clock = undefined;
      void this.#load();
    }
  }

  async #load() {
    const r = await this.attempt(() => Promise.all([api().getCampaignClock(this.campaignId), api().getRewardLiability(this.campaignId)]));
    if (r) [this.clock, this.rewards] = r;
  }

  async #advance(to: Date) {
    if (Number.isNaN(to.getTime())) {
      this.error = 'Choose the date and time to move the clock to.';
      return;
    }
    this.busy = true;
    this.notice = '';
    const moved = await this.attempt(() => api().advanceClock({ id: this.campaignId, to: to.toISOString() }));
    this.busy = false;
    if (!moved) {
      // The refusal stays on screen; the time shown is read again (after a 409 another advance moved it).
      const clock = await api()
        .getCampaignClock(this.campaignId)
        .catch(() => undefined);
      if (clock) this.clock = clock;
      return;
    }
    await this.#load();
    this.notice = `Clock advanced: the campaign's time is now ${moment(moved.now)}.`;
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
  }

  #step(days: number) {
    if (this.clock) void this.#advance(new Date(Date.parse(this.clock.now) + days * DAY));
  }

  #submit(e: SubmitEvent) {
    e.preventDefault();
    void this.#advance(new Date(String(new FormData(e.currentTarget as HTMLFormElement).get('to'))));
  }

  override render() {
    const c = this.clock;
    const r = this.rewards?.total;
    return html`<section class="card" aria-labelledby="clock-h">
      <div class="head">
        <h2 id="clock-h">Clock</h2>
        <span class="badge test">Test</span>
      </div>
      <p class="muted">This test campaign runs on its own time. Advancing it runs what falls due on the way, in order: held rewards are released, reminders go out, with their webhooks and emails.</p>
      ${this.messages()}
      ${c
        ? html`<dl class="props" aria-label="Campaign clock">
            <dt>Campaign time</dt>
            <dd>${moment(c.now)}</dd>
            <dt>Ahead of real time</dt>
            <dd>${aheadBy(c.offsetMs)}</dd>
            ${r
              ? html`<dt>Held rewards</dt>
                  <dd>${reward(r.pending, this.campaign)}</dd>
                  <dt>Available rewards</dt>
                  <dd>${reward(r.available, this.campaign)}</dd>`
              : nothing}
          </dl>`
        : nothing}
      ${this.mayChange ? this.#controls(c) : nothing}
    </section>`;
  }

  /** Moving the clock: a change, for a role that may make one. */
  #controls(c: CampaignClock | undefined) {
    return html`<div class="steps" role="group" aria-label="Advance clock by">
        ${STEPS.map(([days, label]) => html`<button type="button" ?disabled=${!c || this.busy} @click=${() => this.#step(days)}>${label}</button>`)}
      </div>
      <form class="add" @submit=${this.#submit} aria-label="Advance clock to a date">
        <div class="field">
          <label for="clock-to">Advance to</label>
          <input id="clock-to" name="to" type="datetime-local" required .value=${c ? toLocalInput(new Date(Date.parse(c.now) + DAY).toISOString()) : ''} />
        </div>
        <button class="primary" type="submit" ?disabled=${!c || this.busy}>Advance</button>
      </form>`;
  }
}
