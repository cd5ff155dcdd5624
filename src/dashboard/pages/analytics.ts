/**
 * Analytics of a campaign: the funnel, sign-ups per day (uPlot), top referrers, referred revenue, viral
 * coefficient, the reward liability, and sign-ups by channel and by source (the utm tags of their page).
 */
import { css, html, nothing, unsafeCSS } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import uPlot from 'uplot';
import uplotCss from 'uplot/dist/uPlot.min.css?inline';
import type { CampaignAnalytics, CampaignSettings } from '../../api/client.js';
import { api } from '../api.js';
import { count, money, n, percent } from '../format.js';
import { Page } from '../page.js';
import './reward-liability.js';
import { participantLink } from '../participant-link.js';

const DAY_S = 86_400;
/**
 * The time axis spans at least a week, ending today: a campaign's first day alone is one point, which
 * uPlot would otherwise stretch over an axis of years.
 */
const MIN_DAYS = 7;
/** Tick steps: whole days and whole sign-ups only (uPlot's defaults include hours and 0.2 steps). */
const DAY_STEPS = [1, 2, 7, 14, 28, 91, 182, 364].map((d) => d * DAY_S);
const COUNT_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];
/** The days are UTC days (the service counts by them), so their labels are too. */
const dayLabel = (s: number) => new Date(s * 1000).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });

type ChannelCount = CampaignAnalytics['channels'][number];
/** The channels share links tag themselves with (utm_medium), by name; any other value is shown as it came. */
const CHANNEL_NAMES: Record<string, string> = {
  whatsapp: 'WhatsApp',
  email: 'Email',
  x: 'X',
  facebook: 'Facebook',
  linkedin: 'LinkedIn',
  copy: 'Copied link',
  qr: 'QR code',
};
const SOURCE_NAMES: Record<string, string> = { refkit: 'Refkit share links' };

/**
 * The steps of a referral, each named for what it counts. All sign-ups are not among them: a sign-up
 * that came without a share link is no step of a referral.
 */
const STEPS: [keyof CampaignAnalytics['funnel'], string, string][] = [
  ['impressions', 'Share-link views', 'Visitors who opened a share link (once a visitor a day)'],
  ['referredSignups', 'Referred sign-ups', 'Sign-ups with a referral code: from a link, or added by your backend'],
  ['qualified', 'Qualified referrals', 'Referred participants who completed the qualifying event'],
];

@customElement('rk-analytics')
export class Analytics extends Page {
  static override styles = [
    ...Page.styles,
    unsafeCSS(uplotCss),
    css`
      .funnel { display: grid; gap: 10px; }
      .step { display: grid; grid-template-columns: 160px 1fr 90px; gap: 4px 12px; align-items: center; }
      .step .what { grid-column: 1 / -1; color: var(--muted); font-size: 12px; }
      .bar { height: 28px; background: #f2f4f7; border-radius: 6px; overflow: hidden; }
      .bar span { display: block; height: 100%; background: linear-gradient(90deg, #6366f1, #8b5cf6); border-radius: 6px; min-width: 2px; }
      .step .num { text-align: right; font-weight: 600; font-variant-numeric: tabular-nums; }
      .chart { width: 100%; min-height: 280px; overflow: hidden; }
      .chart .u-legend { display: flex; flex-wrap: wrap; justify-content: center; gap: 0 12px; font-size: 12px; }
      .two { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; margin-bottom: 16px; }
      .two .card + .card { margin-top: 0; }
      .scroll { overflow-x: auto; }
      td a { word-break: break-all; }
      td.value { overflow-wrap: anywhere; font-weight: 500; }
      td.value .raw { color: var(--muted); font-size: 12px; font-weight: 400; margin-left: 2px; }
      @media (max-width: 900px) { .two { grid-template-columns: minmax(0, 1fr); } .step { grid-template-columns: 110px 1fr 70px; } }
    `,
  ];

  @property() campaignId = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private data: CampaignAnalytics | undefined;
  @query('.chart') private chartBox: HTMLElement | undefined;
  #chart: uPlot | undefined;
  /** The chart drawn, for tests and the browser's console. */
  get chart(): uPlot | undefined {
    return this.#chart;
  }
  #resize = new ResizeObserver(() => this.#chart?.setSize(this.#size()));

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId')) {
      this.forgetMessages();
      void this.#load();
    }
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
    const last = x.at(-1) ?? Math.floor(Date.now() / 1000 / DAY_S) * DAY_S;
    const first = x[0] ?? last;
    this.#chart = new uPlot(
      {
        ...this.#size(),
        title: '',
        scales: {
          // From the data, not from uPlot's own guess: for a single point it proposes a 1,000-day span.
          x: { time: true, range: () => [Math.min(first, last - (MIN_DAYS - 1) * DAY_S), last] },
          y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] },
        },
        series: [
          { label: 'Day', value: (_u, v) => (v == null ? '–' : dayLabel(v)) },
          { label: 'Sign-ups', stroke: '#4f46e5', fill: 'rgba(99, 102, 241, 0.12)', width: 2 },
          { label: 'Referred sign-ups', stroke: '#0e9384', width: 2 },
        ],
        axes: [
          { stroke: '#5d6676', grid: { stroke: '#f2f4f7' }, space: 56, incrs: DAY_STEPS, values: (_u, splits) => splits.map(dayLabel) },
          { stroke: '#5d6676', grid: { stroke: '#f2f4f7' }, incrs: COUNT_STEPS, values: (_u, splits) => splits.map((v) => n(v)) },
        ],
      },
      [x, days.map((d) => d.signups), days.map((d) => d.referredSignups)],
      this.chartBox,
    );
    this.#resize.observe(this.chartBox);
  }

  /** Sign-ups by one utm tag: how many came, how many of them qualified, and the share that did. */
  #byTag(id: string, title: string, column: string, rows: ChannelCount[], names: Record<string, string>, empty: string) {
    return html`<section class="card" aria-labelledby=${id}>
      <h2 id=${id}>${title}</h2>
      ${rows.length === 0
        ? html`<p class="muted empty-tags">${empty}</p>`
        : html`<div class="scroll"><table class="records" aria-labelledby=${id}>
            <thead><tr><th>${column}</th><th class="num">Sign-ups</th><th class="num">Qualified</th><th class="num">Conversion</th></tr></thead>
            <tbody>
              ${rows.map(
                (r) => html`<tr>
                  <td class="value">${names[r.value] ?? r.value}${names[r.value] ? html` <span class="raw mono">${r.value}</span>` : nothing}</td>
                  <td class="num" data-label="Sign-ups">${n(r.signups)}</td>
                  <td class="num" data-label="Qualified">${n(r.qualified)}</td>
                  <td class="num" data-label="Conversion">${percent(r.qualified, r.signups)}</td>
                </tr>`,
              )}
            </tbody>
          </table></div>`}
    </section>`;
  }

  override render() {
    const a = this.data;
    const currency = this.campaign?.rewardCurrency ?? 'USD';
    if (!a) return html`<h1>Analytics</h1>${this.messages()}`;
    const f = a.funnel;
    const max = Math.max(1, ...STEPS.map(([key]) => f[key]));
    return html`<div class="page-head">
        <div>
          <h1>Analytics</h1>
          <p>${this.campaign?.campaignName ?? this.campaignId}</p>
        </div>
      </div>
      ${this.messages()}
      <div class="stats">
        <div class="stat"><div class="label">Sign-ups</div><div class="value">${n(f.signups)}</div><div class="sub">${count(f.impressions, 'share-link view', 'share-link views')}</div></div>
        <div class="stat"><div class="label">Referred sign-ups</div><div class="value">${n(f.referredSignups)}</div><div class="sub">${percent(f.referredSignups, f.signups)} of sign-ups</div></div>
        <div class="stat"><div class="label">Qualified</div><div class="value">${n(f.qualified)}</div><div class="sub">${percent(f.qualified, f.referredSignups)} of referred</div></div>
        <div class="stat"><div class="label">Referred revenue</div><div class="value">${money(a.referredRevenue, currency)}</div><div class="sub">paid by referred participants</div></div>
        <div class="stat"><div class="label">Viral coefficient</div><div class="value">${a.viralCoefficient.toFixed(2)}</div><div class="sub">referred sign-ups per sign-up</div></div>
      </div>
      <rk-reward-liability .campaignId=${this.campaignId} .campaign=${this.campaign}></rk-reward-liability>
      <section class="card" aria-labelledby="daily-h" style="margin-top:16px">
        <h2 id="daily-h">Sign-ups per day</h2>
        <div class="chart" role="img" aria-label="Chart of sign-ups and referred sign-ups per day, ${count(a.daily.length, 'day', 'days')}"></div>
      </section>
      <div class="two" style="margin-top:16px">
        <section class="card" aria-labelledby="funnel-h">
          <h2 id="funnel-h">Referral steps</h2>
          <div class="funnel">
            ${STEPS.map(
              ([key, label, what]) => html`<div class="step">
                <span>${label}</span>
                <div class="bar" aria-hidden="true"><span style="width:${(f[key] / max) * 100}%"></span></div>
                <span class="num">${n(f[key])}</span>
                <span class="what">${what}</span>
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
                      <td>${participantLink(this.campaignId, p.email!)}</td>
                      <td class="num">${n(p.totalReferrals)}</td>
                      <td class="num">${money(p.revenueGenerated, currency)}</td>
                    </tr>`,
                  )}
                </tbody>
              </table></div>`}
        </section>
      </div>
      <div class="two">
        ${this.#byTag('channels-h', 'By channel', 'Channel', a.channels ?? [], CHANNEL_NAMES, 'No sign-up came through a tagged link yet: share links tag their channel (utm_medium).')}
        ${this.#byTag('sources-h', 'By source', 'Source', a.sources ?? [], SOURCE_NAMES, 'No sign-up came with a source yet (utm_source).')}
      </div>`;
  }
}
