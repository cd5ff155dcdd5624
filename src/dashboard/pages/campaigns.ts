/** The campaign list: the account's campaigns of the mode shown (live or test), with their status and size. */
import { html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { CampaignSettings } from '../../api/client.js';
import { date, n, reward } from '../format.js';
import { Page } from '../page.js';
import { href } from '../router.js';
import { statusBadge } from '../status.js';
import { testBadge } from '../test-mode.js';

@customElement('rk-campaigns')
export class Campaigns extends Page {
  @property({ attribute: false }) campaigns: CampaignSettings[] = [];
  /** Test mode is on: `campaigns` are the test ones. */
  @property({ type: Boolean }) testMode = false;

  override render() {
    return html`<div class="page-head">
        <div>
          <h1>Campaigns</h1>
          <p>Each campaign is one referral program, with its own rewards, texts and widget.</p>
        </div>
        ${this.mayChange ? html`<a class="button primary" href=${href.newCampaign()}>New campaign</a>` : nothing}
      </div>
      <div class="table-wrap">
        <table class="records">
          <thead>
            <tr><th>Name</th><th>Status</th><th class="num">Participants</th><th>Rewards</th><th>Created</th></tr>
          </thead>
          <tbody>
            ${this.campaigns.length === 0
              ? html`<tr><td colspan="5" class="empty">${this.testMode ? 'No test campaign yet. Create one to try your rewards without touching live data.' : 'No campaign yet. Create the first one.'}</td></tr>`
              : this.campaigns.map(
                  (c) => html`<tr>
                    <td><a href=${href.campaign(c.campaignId!)}>${c.campaignName}</a> ${testBadge(c.test)}<div class="muted mono">${c.campaignId}</div></td>
                    <td data-label="Status">${statusBadge(c.status)}</td>
                    <td class="num" data-label="Participants">${n(c.participants)}</td>
                    <td data-label="Rewards"><span>Referrer ${reward(c.referrerRewardValue, c)}<br /><span class="muted">Friend ${reward(c.refereeRewardValue, c)}</span></span></td>
                    <td data-label="Created">${date(c.createdOn)}</td>
                  </tr>`,
                )}
          </tbody>
        </table>
      </div>`;
  }
}
