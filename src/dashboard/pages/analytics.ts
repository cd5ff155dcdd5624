/** Analytics of a campaign: the funnel, sign-ups per day (uPlot), top referrers, referred revenue, viral coefficient. */
import { css, html, nothing, unsafeCSS } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import uPlot from 'uplot';
import uplotCss from 'uplot/dist/uPlot.min.css?inline';
import type { CampaignAnalytics, CampaignSettings } from '../../api/client.js';
import { api } from '../api.js';
import { money, n, percent } from '../format.js';
import { Page } from '../page.js';
import { href } from '../router.js';

@customElement('rk-analytics')
export class Analytics extends Page {
  static override styles = [
    ...Page.styles,
    unsafeCSS(uplotCss),
    css`
      .funnel { display: grid; gap: 10px; }
      .step { display: grid; grid-template-columns: 160px 1fr 90px; gap: 12px; align-items: center; }
      .bar { height: 28px; background: #f2f4f7; border-radius: 6px; overflow: hidden; }
      .bar span { display: block; height: 100%; background: linear-gradient(90deg, #6366f1, #8b5cf6); border-radius: 6px; min-width: 2px; }
      .step .num { text-align: right; font-weight: 600; font-variant-numeric: tabular-nums; }
      .chart { width: 100%; min-height: 280px; overflow: hidden; }
      .chart .u-legend { display: flex; flex-wrap: wrap; justify-content: center; gap: 0 12px; font-size: 12px; }
      .two { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; margin-bottom: 16px; }
      .two .card + .card { margin-top: 0; }
      .scroll { overflow-x: auto; }
      td a { word-break: break-all; }
      @media (max-width: 900px) { .two { grid-template-columns: minmax(0, 1fr); } .step { grid-template-columns: 110px 1fr 70px; } }
    `,
  ];

  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private data: CampaignAnalytics | undefined;
  @query('.chart') private chartBox: HTMLElement | undefined;
  #chart: uPlot | undefined;
  #resize = new ResizeObserver(() => this.#chart?.setSize(this.#size()));

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) void this.#load();
  }

  override disconnectedCallback(): void {
    this.#resize.disconnect();
    this.#chart?.destroy();
    super.disconnectedCallback();
  }

  async #load() {
    this.data = await this.attempt(() => api().getCampaignAnalytics(this.campaignId));
  }

  #size() {
    return { width: Math.max(260, this.chartBox?.clientWidth ?? 600), height: 280 };
  }

  protected override updated(): void {
    if (!this.data || !this.chartBox) return;
    this.#chart?.destroy();
    const days = this.data.daily;
    const x = days.map((d) => Date.parse(`${d.day}T00:00:00Z`) / 1000);
    this.#chart = new uPlot(
      {
        ...this.#size(),
        title: '',
        scales: { x: { time: true } },
        series: [
          {},
          { label: 'Sign-ups', stroke: '#4f46e5', fill: 'rgba(99, 102, 241, 0.12)', width: 2 },
          { label: 'Referred sign-ups', stroke: '#0e9384', width: 2 },
        ],
        axes: [{ stroke: '#5d6676', grid: { stroke: '#f2f4f7' } }, { stroke: '#5d6676', grid: { stroke: '#f2f4f7' } }],
      },
      [x, days.map((d) => d.signups), days.map((d) => d.referredSignups)],
      this.chartBox,
    );
    this.#resize.observe(this.chartBox);
  }

  override render() {
    const a = this.data;
    const currency = this.campaign?.rewardCurrency ?? 'USD';
    if (!a) return html`<h1>Analytics</h1>${this.messages()}`;
    const f = a.funnel;
    const steps: [string, number][] = [
      ['Impressions', f.impressions],
      ['Sign-ups', f.signups],
      ['Referred sign-ups', f.referredSignups],
      ['Qualified', f.qualified],
    ];
    const max = Math.max(1, ...steps.map(([, v]) => v));
    return html`<div class="page-head">
        <div>
          <h1>Analytics</h1>
          <p>${this.campaign?.campaignName ?? this.campaignId}</p>
        </div>
      </div>
      ${this.messages()}
      <div class="stats">
        <div class="stat"><div class="label">Sign-ups</div><div class="value">${n(f.signups)}</div><div class="sub">${n(f.impressions)} link views</div></div>
        <div class="stat"><div class="label">Referred sign-ups</div><div class="value">${n(f.referredSignups)}</div><div class="sub">${percent(f.referredSignups, f.signups)} of sign-ups</div></div>
        <div class="stat"><div class="label">Qualified</div><div class="value">${n(f.qualified)}</div><div class="sub">${percent(f.qualified, f.referredSignups)} of referred</div></div>
        <div class="stat"><div class="label">Referred revenue</div><div class="value">${money(a.referredRevenue, currency)}</div><div class="sub">paid by referred participants</div></div>
        <div class="stat"><div class="label">Viral coefficient</div><div class="value">${a.viralCoefficient.toFixed(2)}</div><div class="sub">referred sign-ups per sign-up</div></div>
      </div>
      <section class="card" aria-labelledby="daily-h">
        <h2 id="daily-h">Sign-ups per day</h2>
        <div class="chart" role="img" aria-label="Chart of sign-ups and referred sign-ups per day, ${a.daily.length} days"></div>
      </section>
      <div class="two" style="margin-top:16px">
        <section class="card" aria-labelledby="funnel-h">
          <h2 id="funnel-h">Funnel</h2>
          <div class="funnel">
            ${steps.map(
              ([label, v]) => html`<div class="step">
                <span>${label}</span>
                <div class="bar" aria-hidden="true"><span style="width:${(v / max) * 100}%"></span></div>
                <span class="num">${n(v)}</span>
              </div>`,
            )}
          </div>
        </section>
        <section class="card" aria-labelledby="top-h">
          <h2 id="top-h">Top referrers</h2>
          ${a.topReferrers.length === 0
            ? html`<p class="muted">No referrals yet.</p>`
            : html`<div class="scroll"><table>
                <thead><tr><th>Participant</th><th class="num">Referrals</th><th class="num">Revenue</th></tr></thead>
                <tbody>
                  ${a.topReferrers.map(
                    (p) => html`<tr>
                      <td><a href=${href.participant(this.campaignId, p.email!)}>${p.email}</a></td>
                      <td class="num">${n(p.totalReferrals)}</td>
                      <td class="num">${money(p.revenueGenerated, currency)}</td>
                    </tr>`,
                  )}
                </tbody>
              </table></div>`}
        </section>
      </div>
      ${nothing}`;
  }
}
