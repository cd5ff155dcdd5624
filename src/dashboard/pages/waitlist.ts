/**
 * The waitlist of a campaign in waitlist mode: how many wait and were let in, the front of the queue with
 * positions, and letting people in (the first N, or by email). Each one let in gets access_granted.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { CampaignSettings, WaitlistView } from '../../api/client.js';
import { api } from '../api.js';
import { Page } from '../page.js';
import { href } from '../router.js';
import { participantLink } from '../participant-link.js';

/** How much of the queue the page shows. */
const FRONT = 50;

/**
 * @summary The Waitlist page of a campaign (`#/campaigns/:id/waitlist`): the queue and granting access.
 *
 * @property campaignId - The campaign.
 * @property campaign - The campaign's settings, as the shell last read them.
 */
@customElement('rk-waitlist')
export class Waitlist extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .grant { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; margin-bottom: 16px; }
      .grant form { display: grid; gap: 8px; align-content: start; }
      .grant textarea { min-height: 72px; }
      @media (max-width: 720px) { .grant { grid-template-columns: 1fr; } }
    `,
  ];
  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private view: WaitlistView | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      this.view = undefined;
      void this.refresh();
    }
  }

  async refresh(): Promise<void> {
    const id = this.campaignId;
    const view = await this.attempt(() => api().getWaitlist(id, FRONT));
    if (view && id === this.campaignId) this.view = view;
  }

  async #grant(e: SubmitEvent, body: { count: number } | { emails: string[] }) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    this.notice = '';
    const answer = await this.attempt(() => api().grantAccess({ id: this.campaignId, ...body }));
    if (!answer) return;
    form.reset();
    const unknown = answer.unknown.length > 0 ? ` Not participants: ${answer.unknown.join(', ')}.` : '';
    this.notice = `Let in ${answer.granted.length}${answer.granted.length === 1 ? ' participant' : ' participants'}.${unknown}`;
    await this.refresh();
  }

  #first(e: SubmitEvent) {
    const count = Number(new FormData(e.currentTarget as HTMLFormElement).get('count'));
    return this.#grant(e, { count });
  }

  #named(e: SubmitEvent) {
    const emails = String(new FormData(e.currentTarget as HTMLFormElement).get('emails'))
      .split(/[\s,;]+/)
      .filter(Boolean);
    return this.#grant(e, { emails });
  }

  /** Letting people in: a change, for a role that may make one. */
  #grantForms() {
    return html`<div class="grant">
      <form class="card" @submit=${(e: SubmitEvent) => this.#first(e)}>
        <label for="grant-count">Let in the first</label>
        <input id="grant-count" name="count" type="number" min="1" max="1000" required />
        <button class="primary" type="submit">Let them in</button>
      </form>
      <form class="card" @submit=${(e: SubmitEvent) => this.#named(e)}>
        <label for="grant-emails">Let in by email (one or more, separated by spaces or commas)</label>
        <textarea id="grant-emails" name="emails" required></textarea>
        <button type="submit">Let these in</button>
      </form>
    </div>`;
  }

  override render() {
    const v = this.view;
    const off = this.campaign !== undefined && this.campaign.waitlist === null;
    return html`<div class="page-head">
        <div>
          <h1>Waitlist</h1>
          <p>${this.campaign?.campaignName ?? this.campaignId}</p>
        </div>
      </div>
      ${off
        ? html`<p>This campaign is not in waitlist mode. Turn it on before launch in the campaign's <a href=${href.campaign(this.campaignId)}>Waitlist</a> setting.</p>`
        : html`${this.messages()}
            ${v ? html`<p><strong>${v.waiting}</strong> waiting, <strong>${v.granted}</strong> let in.</p>` : nothing}
            ${this.mayChange ? this.#grantForms() : nothing}
                        <div class="table-wrap">
              <table class="records" aria-labelledby="queue-h">
                <caption id="queue-h" class="sr-only">The queue</caption>
                <thead><tr><th class="num">Position</th><th>Participant</th></tr></thead>
                <tbody>
                  ${v === undefined
                    ? nothing
                    : v.queue.length === 0
                      ? html`<tr><td colspan="2" class="empty">No one is waiting.</td></tr>`
                      : v.queue.map(
                          (e) => html`<tr>
                            <td class="num" data-label="Position">#${e.position}</td>
                            <td>${participantLink(this.campaignId, e.email)}</td>
                          </tr>`,
                        )}
                </tbody>
              </table>
            </div>
            ${v && v.waiting > v.queue.length ? html`<p class="muted">The first ${v.queue.length} of ${v.waiting} are shown.</p>` : nothing}`}`;
  }
}
