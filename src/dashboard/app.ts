/** Removes the readable companion of the session cookie (either name), as the service does on sign-out. */
function forgetSignedIn(): void {
  for (const name of ['refkit_signed_in', '__Host-refkit_signed_in']) document.cookie = `${name}=; Max-Age=0; Path=/; SameSite=Strict${location.protocol === 'https:' ? '; Secure' : ''}`;
}

/**
 * <refkit-dashboard>: asks the service for the session; shows the sign-in form without one, else the
 * shell (sidebar, the page the hash names). A 401 from any page (the session ended) returns to sign-in.
 * The sidebar's Test mode switch (./test-mode.ts) picks which campaigns the lists and links show, and which
 * mode the Campaigns, API keys and Webhooks pages list and create.
 */
import { LitElement, css, html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import type { CampaignSettings, OwnerSession, RoleName } from '../api/client.js';
import { api, describe, isUnauthorized, useSession } from './api.js';
import { count } from './format.js';
import { useRole } from './role.js';
import { href, parseRoute, type Route } from './router.js';
import { base } from './styles.js';
import { ofMode, readTestMode, saveTestMode } from './test-mode.js';
import './pages/sign-in.js';
import './pages/campaigns.js';
import './pages/campaign-editor.js';
import './pages/participants.js';
import './pages/participant-detail.js';
import './pages/analytics.js';
import './pages/billing/billing.js';
import './pages/billing/payouts.js';
import './pages/billing/payout-providers.js';
import './pages/emails.js';
import './pages/waitlist.js';
import './pages/fraud-cases.js';
import './pages/webhooks.js';
import './pages/keys.js';
import './pages/account.js';
import './pages/team.js';
import './pages/audit-log.js';
import './pages/join.js';
import './pages/data-retention.js';
import './pages/fraud/blocklist-card.js';

const LAST_CAMPAIGN = 'refkit-dashboard:campaign';

const TITLES: Record<Route['page'], string> = {
  campaigns: 'Campaigns',
  'campaign-new': 'New campaign',
  campaign: 'Campaign',
  participants: 'Participants',
  participant: 'Participant',
  analytics: 'Analytics',
  billing: 'Billing',
  payouts: 'Payouts',
  emails: 'Emails',
  waitlist: 'Waitlist',
  fraud: 'Fraud cases',
  webhooks: 'Webhooks',
  keys: 'API keys',
  team: 'Team',
  audit: 'Audit log',
  join: 'Join',
  retention: 'Data retention',
  'payout-providers': 'Payout providers',
  blocklist: 'Blocklist',
  account: 'Account',
};

@customElement('refkit-dashboard')
export class Dashboard extends LitElement {
  static override styles = [
    base,
    css`
      :host { min-height: 100vh; background: var(--bg); }
      .shell { display: grid; grid-template-columns: 248px 1fr; min-height: 100vh; background: linear-gradient(to right, #0f172a 248px, transparent 248px); }
      nav.side { background: #0f172a; color: #e2e8f0; padding: 20px 12px; display: flex; flex-direction: column; gap: 4px; position: sticky; top: 0; height: 100vh; overflow-y: auto; }
      .brand { display: flex; align-items: center; gap: 10px; font-weight: 700; font-size: 17px; color: #fff; padding: 4px 12px 20px; }
      .logo { width: 28px; height: 28px; border-radius: 8px; background: linear-gradient(135deg, #6366f1, #8b5cf6); display: grid; place-items: center; font-size: 15px; color: #fff; }
      .section { font-size: 11px; text-transform: uppercase; letter-spacing: 0.08em; color: #94a3b8; padding: 16px 12px 6px; }
      nav.side a { display: flex; align-items: center; gap: 10px; color: #cbd5e1; padding: 8px 12px; border-radius: 8px; font-weight: 500; }
      nav.side a:hover { background: #1e293b; color: #fff; text-decoration: none; }
      nav.side a[aria-current='page'] { background: #1e293b; color: #fff; box-shadow: inset 3px 0 0 #818cf8; }
      .queue { margin-left: auto; min-width: 20px; padding: 0 6px; border-radius: 999px; background: #f59e0b; color: #1f2937; font-size: 12px; font-weight: 700; line-height: 20px; text-align: center; }
      nav.side select { background: #1e293b; color: #fff; border-color: #334155; margin: 0 0 4px; }
      nav.side label { color: #94a3b8; font-size: 11px; text-transform: uppercase; letter-spacing: 0.08em; padding: 16px 12px 0; }
      .campaign-pick { padding: 0 12px; }
      .who { margin-top: auto; padding: 12px; border-top: 1px solid #1e293b; font-size: 13px; color: #94a3b8; }
      .who strong { display: block; color: #e2e8f0; font-weight: 500; overflow: hidden; text-overflow: ellipsis; }
      .who button { margin-top: 8px; width: 100%; background: transparent; color: #e2e8f0; border-color: #334155; box-shadow: none; }
      .who button:hover { background: #1e293b; }
      .who .role { text-transform: capitalize; }
      main { padding: 32px 40px; max-width: 1200px; width: 100%; min-width: 0; }
      /* Test mode, as Stripe shows it: a band along the top of the page and a banner that says what it means. */
      .shell.test, .shell.test nav.side { box-shadow: inset 0 4px 0 var(--test); }
      nav.side label.mode { display: flex; align-items: center; justify-content: space-between; gap: 10px; margin: 12px 0 0; padding: 8px 12px; border-radius: 8px; color: #e2e8f0; font-size: 13px; font-weight: 500; text-transform: none; letter-spacing: 0; cursor: pointer; }
      nav.side label.mode:hover { background: #1e293b; }
      .mode input { appearance: none; width: 34px; height: 20px; margin: 0; padding: 0; border: 0; border-radius: 999px; background: #475569; position: relative; cursor: pointer; flex: none; transition: background 0.15s; }
      .mode input::after { content: ''; position: absolute; top: 2px; left: 2px; width: 16px; height: 16px; border-radius: 50%; background: #fff; transition: transform 0.15s; }
      .mode input:checked { background: #f79009; }
      .mode input:checked::after { transform: translateX(14px); }
      .test-banner { display: flex; align-items: center; gap: 10px; flex-wrap: wrap; margin-bottom: 24px; padding: 10px 14px; border-radius: 8px; background: var(--test-soft); color: var(--test); border: 1px solid #fedf89; }
      .test-banner strong { font-weight: 650; }
      .test-banner .badge { background: var(--test); color: #fff; }
      .loading { padding: 48px; color: var(--muted); }
      /* On a desktop the links are the sidebar's own items; on a phone, one row that scrolls sideways. */
      .links { display: contents; }
      nav.side a.phone-only { display: none; }
      @media (max-width: 860px) {
        .shell { grid-template-columns: 1fr; grid-template-rows: auto 1fr; background: none; }
        /* Two rows, under 15% of a phone's screen: the logo, who is signed in, test mode and sign-out; then the links. */
        nav.side { position: static; height: auto; display: grid; grid-template-columns: auto minmax(0, 1fr) auto auto; align-items: center; padding: 8px 12px 6px; gap: 2px 8px; }
        .brand { padding: 0; }
        .brand .name { display: none; }
        .links { display: flex; grid-column: 1 / -1; grid-row: 2; gap: 2px; overflow-x: auto; scrollbar-width: thin; }
        .section, nav.side label:not(.mode) { display: none; }
        .campaign-pick { grid-column: 1 / -1; padding: 2px 0; }
        nav.side label.mode { margin: 0; padding: 4px 6px; grid-row: 1; grid-column: 3; white-space: nowrap; }
        nav.side a { padding: 6px 10px; font-size: 13px; white-space: nowrap; flex: none; }
        .who { display: contents; }
        .who > span { grid-row: 1; grid-column: 2; min-width: 0; font-size: 12px; line-height: 1.3; color: #94a3b8; }
        .who > span strong { white-space: nowrap; }
        nav.side .who a { display: none; }
        nav.side a.phone-only { display: flex; }
        .who button { grid-row: 1; grid-column: 4; margin: 0; width: auto; padding: 4px 10px; font-size: 13px; }
        main { padding: 20px 16px; }
      }
    `,
  ];

  @state() private phase: 'loading' | 'signed-out' | 'signed-in' = 'loading';
  @state() private email = '';
  @state() private memberRole: RoleName = 'viewer';
  @state() private route: Route = parseRoute(location.hash);
  @state() private campaigns: CampaignSettings[] = [];
  @state() private error = '';
  @state() private testMode = readTestMode();

  readonly #onHash = () => {
    this.route = parseRoute(location.hash);
    const id = 'id' in this.route ? this.route.id : undefined;
    if (id) localStorage.setItem(LAST_CAMPAIGN, id);
    this.#title();
    // The counts in the list (participants, review queue) move while the owner looks elsewhere: a page
    // opened shows them as they are now, not as they were at sign-in.
    if (this.phase === 'signed-in') void this.#loadCampaigns();
  };

  /** Titles per view, so the browser's history and screen readers name the page (the sign-in form sets its own). */
  #title() {
    if (this.phase === 'signed-in') document.title = `${TITLES[this.route.page]} · Refkit`;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('hashchange', this.#onHash);
    this.#onHash();
    this.addEventListener('signed-out', () => this.#signedOut());
    this.addEventListener('signed-in', (e) => this.#signedIn((e as CustomEvent<OwnerSession>).detail));
    this.addEventListener('campaigns-changed', () => void this.#loadCampaigns());
    void this.#start();
  }

  override disconnectedCallback(): void {
    window.removeEventListener('hashchange', this.#onHash);
    super.disconnectedCallback();
  }

  async #start() {
    // Signed out (no companion cookie beside the session's): the sign-in form at once, with no request
    // the service would refuse (a 401 in the console on every visit).
    if (!/(^|;\s*)(__Host-)?refkit_signed_in=1/.test(document.cookie)) {
      this.phase = 'signed-out';
      return;
    }
    try {
      const session = await api().getSession();
      this.#signedIn(session);
    } catch (err) {
      if (!isUnauthorized(err)) this.error = describe(err);
      // The session ended on the server (signed out everywhere, or expired there): the next visit asks nothing.
      else forgetSignedIn();
      this.phase = 'signed-out';
    }
  }

  #signedIn(session: OwnerSession) {
    useSession(session.csrfToken);
    useRole(session.role);
    this.memberRole = session.role;
    this.email = session.email;
    this.phase = 'signed-in';
    this.#title();
    void this.#loadCampaigns();
  }

  #signedOut() {
    useSession(undefined);
    forgetSignedIn();
    this.phase = 'signed-out';
  }

  async #loadCampaigns() {
    try {
      this.campaigns = await api().listCampaigns();
    } catch (err) {
      if (isUnauthorized(err)) this.#signedOut();
    }
  }

  async #signOut() {
    try {
      await api().signOut();
    } finally {
      this.#signedOut();
    }
  }

  /** The campaigns of the mode shown: what the list, the picker and the campaign-scoped links offer. */
  #shown(): CampaignSettings[] {
    return ofMode(this.campaigns, this.testMode);
  }

  /** The campaign the campaign-scoped links open: the one on screen, else the last one visited, else the newest (of the mode shown). */
  #currentCampaign(): string | undefined {
    if ('id' in this.route) return this.route.id;
    const shown = this.#shown();
    const last = localStorage.getItem(LAST_CAMPAIGN);
    if (last && shown.some((c) => c.campaignId === last)) return last;
    return shown[0]?.campaignId;
  }

  /** Switches mode; a campaign of the other mode on screen gives way to the list, as a test campaign is no live one. */
  #setTestMode(on: boolean) {
    saveTestMode(on);
    this.testMode = on;
    const id = 'id' in this.route ? this.route.id : undefined;
    const onScreen = this.campaigns.find((c) => c.campaignId === id);
    if (onScreen && onScreen.test !== on) location.hash = href.campaigns();
  }

  #link(to: string, label: string, current: boolean, badge: unknown = nothing) {
    return html`<a href=${to} aria-current=${current ? 'page' : 'false'}>${label}${badge}</a>`;
  }

  /** The review queue's size beside Participants, when anyone waits. */
  #queueBadge(campaign: CampaignSettings | undefined) {
    const waiting = campaign?.reviewQueue ?? 0;
    if (waiting === 0) return nothing;
    return html`<span class="queue" title=${`${count(waiting, 'sign-up', 'sign-ups')} held for review`}
      ><span aria-hidden="true">${waiting}</span><span class="sr-only">(${count(waiting, 'sign-up', 'sign-ups')} held for review)</span></span
    >`;
  }

  override render() {
    if (this.phase === 'loading') return html`<div class="loading" role="status">Loading…</div>`;
    if (this.phase === 'signed-out' && this.route.page === 'join') return html`<rk-join .token=${this.route.token}></rk-join>`;
    if (this.phase === 'signed-out') return html`<rk-sign-in .initialError=${this.error}></rk-sign-in>`;
    const id = this.#currentCampaign();
    const page = this.route.page;
    const current = this.campaigns.find((c) => c.campaignId === id);
    const shown = this.#shown();
    return html`<div class="shell ${this.testMode ? 'test' : ''}">
      <nav class="side" aria-label="Main">
        <div class="brand"><span class="logo" aria-hidden="true">R</span> <span class="name">Refkit</span></div>
        <div class="links">
        ${this.#link(href.campaigns(), 'Campaigns', page === 'campaigns' || page === 'campaign' || page === 'campaign-new')}
        ${id
          ? html`${this.#link(href.participants(id), 'Participants', page === 'participants' || page === 'participant', this.#queueBadge(current))}
            ${this.#link(href.fraud(id), 'Fraud', page === 'fraud')}
            ${this.#link(href.analytics(id), 'Analytics', page === 'analytics')} ${this.#link(href.billing(id), 'Billing', page === 'billing')}
            ${this.#link(href.payouts(id), 'Payouts', page === 'payouts')}
            ${this.#link(href.emails(id), 'Emails', page === 'emails')}
            ${current?.waitlist ? this.#link(href.waitlist(id), 'Waitlist', page === 'waitlist') : nothing}`
          : nothing}
        <div class="section">Developers</div>
        ${this.#link(href.webhooks(), 'Webhooks', page === 'webhooks')} ${this.#link(href.keys(), 'API keys', page === 'keys')}
        <div class="section">Account</div>
        ${this.#link(href.team(), 'Team', page === 'team')} ${this.#link(href.audit(), 'Audit log', page === 'audit')}
        <div class="section">Settings</div>
        ${this.#link(href.retention(), 'Data retention', page === 'retention')}
        ${this.#link(href.payoutProviders(), 'Payout providers', page === 'payout-providers')}
        ${this.#link(href.blocklist(), 'Blocklist', page === 'blocklist')}
        <a class="phone-only" href=${href.account()} aria-current=${page === 'account' ? 'page' : 'false'}>Account</a>
        </div>
        <label class="mode">
          Test mode
          <input type="checkbox" role="switch" .checked=${this.testMode} @change=${(e: Event) => this.#setTestMode((e.target as HTMLInputElement).checked)} />
        </label>
        ${shown.length > 1 && 'id' in this.route
          ? html`<label for="pick">Campaign</label>
              <div class="campaign-pick">
                <select id="pick" aria-label="Campaign" @change=${(e: Event) => this.#switchCampaign((e.target as HTMLSelectElement).value)}>
                  ${shown.map((c) => html`<option value=${c.campaignId!} ?selected=${c.campaignId === id}>${c.campaignName}</option>`)}
                </select>
              </div>`
          : nothing}
        <div class="who">
          <span><span class="sr-only">Signed in as</span><strong>${this.email}</strong> <span class="role">${this.memberRole}</span></span>
          <a href=${href.account()} aria-current=${page === 'account' ? 'page' : 'false'}>Account</a>
          <button @click=${() => this.#signOut()}>Sign out</button>
        </div>
      </nav>
      <main>
        ${this.testMode
          ? html`<div class="test-banner" role="note" aria-label="Test mode">
              <span class="badge test">Test mode</span>
              <span><strong>You are viewing test data.</strong> Campaigns, API keys and webhook endpoints you create now are test ones.</span>
            </div>`
          : nothing}
        ${this.#page()}
      </main>
    </div>`;
  }

  #switchCampaign(id: string) {
    localStorage.setItem(LAST_CAMPAIGN, id);
    const r = this.route;
    location.hash =
      r.page === 'analytics' ? href.analytics(id) : r.page === 'billing' ? href.billing(id) : r.page === 'payouts' ? href.payouts(id) : r.page === 'emails' ? href.emails(id) : r.page === 'fraud' ? href.fraud(id) : r.page === 'participants' || r.page === 'participant' ? href.participants(id) : href.campaign(id);
  }

  #page() {
    const r = this.route;
    switch (r.page) {
      case 'campaigns':
        return html`<rk-campaigns .campaigns=${this.#shown()} .testMode=${this.testMode}></rk-campaigns>`;
      case 'campaign-new':
        return html`<rk-campaign-editor .testMode=${this.testMode}></rk-campaign-editor>`;
      case 'campaign':
        return html`<rk-campaign-editor .campaignId=${r.id} .campaign=${this.campaigns.find((c) => c.campaignId === r.id)}></rk-campaign-editor>`;
      case 'participants':
        return html`<rk-participants .campaignId=${r.id} .campaign=${this.campaigns.find((c) => c.campaignId === r.id)}></rk-participants>`;
      case 'participant':
        return html`<rk-participant-detail .campaignId=${r.id} .email=${r.email} .campaign=${this.campaigns.find((c) => c.campaignId === r.id)}></rk-participant-detail>`;
      case 'analytics':
        return html`<rk-analytics .campaignId=${r.id} .campaign=${this.campaigns.find((c) => c.campaignId === r.id)}></rk-analytics>`;
      case 'billing':
        return html`<rk-billing .campaignId=${r.id} .campaign=${this.campaigns.find((c) => c.campaignId === r.id)}></rk-billing>`;
      case 'payouts':
        return html`<rk-payouts .campaignId=${r.id} .campaign=${this.campaigns.find((c) => c.campaignId === r.id)}></rk-payouts>`;
      case 'emails':
        return html`<rk-emails .campaignId=${r.id} .campaign=${this.campaigns.find((c) => c.campaignId === r.id)}></rk-emails>`;
      case 'waitlist':
        return html`<rk-waitlist .campaignId=${r.id} .campaign=${this.campaigns.find((c) => c.campaignId === r.id)}></rk-waitlist>`;
      case 'fraud':
        return html`<rk-fraud-cases .campaignId=${r.id} .campaign=${this.campaigns.find((c) => c.campaignId === r.id)}></rk-fraud-cases>`;
      case 'webhooks':
        return html`<rk-webhooks .testMode=${this.testMode}></rk-webhooks>`;
      case 'keys':
        return html`<rk-keys .testMode=${this.testMode}></rk-keys>`;
      case 'team':
        return html`<rk-team .email=${this.email}></rk-team>`;
      case 'audit':
        return html`<rk-audit-log .campaigns=${this.campaigns}></rk-audit-log>`;
      case 'join':
        // Signed in already: the invitation is someone else's business (or used); go on as yourself.
        return html`<rk-campaigns .campaigns=${this.#shown()} .testMode=${this.testMode}></rk-campaigns>`;
      case 'retention':
        return html`<rk-data-retention></rk-data-retention>`;
      case 'payout-providers':
        return html`<rk-payout-providers></rk-payout-providers>`;
      case 'blocklist':
        return html`<rk-account-blocklist></rk-account-blocklist>`;
      case 'account':
        return html`<rk-account .email=${this.email}></rk-account>`;
    }
  }
}
