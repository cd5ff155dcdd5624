/**
 * One participant: profile, referrer, referrals, balances (and what is pending or owed back) with
 * redemption, the reward ledger, payments and their disputes, fraud signals and review, and their referral
 * code (with their promotion code for friends at checkout), which an owner may change for them.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import type { CampaignSettings, DisputeView, Participant, ParticipantDetail } from '../../api/client.js';
import { api } from '../api.js';
import { confirmAction } from '../confirm.js';
import { count, date, money, n, reward } from '../format.js';
import { Page } from '../page.js';
import { go, href } from '../router.js';
import { scoreBadge } from '../status.js';
import './reward-ledger.js';
import type { RewardLedger } from './reward-ledger.js';
import { participantLink } from '../participant-link.js';

@customElement('rk-participant-detail')
export class ParticipantDetailPage extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .cols { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 16px; margin-bottom: 16px; }
      .cols .card + .card { margin-top: 0; }
      .balances { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin-bottom: 16px; }
      .balances .value { font-size: 22px; font-weight: 650; }
      form.redeem { display: grid; grid-template-columns: 1fr 1fr; gap: 8px 12px; align-items: end; }
      form.redeem button { grid-column: 1 / -1; }
      /* The share link is a row of its own, across the card: beside its label it wrapped a few characters a line. */
      dl.props .wide { grid-column: 1 / -1; }
      dl.props dd.wide { margin-top: -4px; }
      dl.props dd a { word-break: break-all; }
      form.redeem .field { margin: 0; }
      form.redeem .alert { grid-column: 1 / -1; margin: 0; }
      form.code { display: grid; gap: 8px; justify-items: start; margin-top: 16px; }
      form.code .field { margin: 0; width: 100%; }
      .stripe-id { display: block; font-size: 12px; overflow-wrap: anywhere; }
      ul.signals { margin: 8px 0 12px; padding-left: 18px; }
      rk-reward-ledger { margin-top: 24px; }
    `,
  ];

  @property() campaignId = '';
  @property() email = '';
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  @state() private detail: ParticipantDetail | undefined;
  @state() private referrals: Participant[] = [];
  /** Disputes of this participant's payments (as the payer), newest first. */
  @state() private disputes: DisputeView[] = [];
  @state() private moreReferrals: string | undefined;
  /** A refused redemption, said beside the form that made it. */
  @state() private redeemError = '';
  /** A refused code change, said beside its field. */
  @state() private codeError = '';
  @query('rk-reward-ledger') private ledger: RewardLedger | undefined;

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('campaignId') || changed.has('email')) {
      this.forgetMessages();
      this.redeemError = '';
      this.codeError = '';
      void this.#load();
    }
  }

  async #load() {
    const [detail, referrals, disputes] = (await this.attempt(() =>
      Promise.all([
        api().getParticipantDetail(this.campaignId, this.email),
        api().getReferralsPage(this.campaignId, this.email, { pageSize: 20 }),
        api().listDisputes(this.campaignId, this.email),
      ]),
    )) ?? [undefined, undefined, undefined];
    this.detail = detail;
    this.disputes = disputes?.disputes ?? [];
    this.referrals = referrals?.items ?? [];
    this.moreReferrals = referrals?.nextCursor;
  }

  async #more() {
    const page = await this.attempt(() => api().getReferralsPage(this.campaignId, this.email, { pageSize: 20, cursor: this.moreReferrals! }));
    if (!page) return;
    this.referrals = [...this.referrals, ...page.items];
    this.moreReferrals = page.nextCursor;
  }

  async #redeem(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const kind = data.get('kind') as 'referral' | 'referee';
    const amount = Number(data.get('amount'));
    const value = reward(amount, this.campaign);
    this.redeemError = '';
    if (!(await confirmAction(this, `Redeem ${value}?`, `${value} is taken from ${this.email}'s ${kind} balance, for good.`, 'Redeem'))) return;
    const ok = await this.attempt(() => api().redeemReward({ id: this.campaignId, email: this.email, kind, amount }));
    if (!ok) {
      // Said at the form, where the owner is looking, rather than at the top of the page.
      this.redeemError = this.error;
      this.error = '';
      return;
    }
    form.reset();
    this.notice = `Redeemed ${value} from the ${kind} balance.`;
    await Promise.all([this.#load(), this.ledger?.refresh()]);
  }

  async #review(approve: boolean) {
    const ok = approve
      ? await confirmAction(this, 'Approve this participant?', 'They and their referrer are credited the rewards they earned.', 'Approve')
      : await confirmAction(this, 'Reject this participant?', 'They stay unapproved and earn nothing.', 'Reject', true);
    if (!ok) return;
    const done = await this.attempt(() => (approve ? api().approveParticipant(this.campaignId, this.email) : api().rejectParticipant(this.campaignId, this.email)));
    if (!done) return;
    this.notice = approve ? 'Approved.' : 'Rejected.';
    // The review queue's count (in the navigation) comes with the campaign list.
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
    await Promise.all([this.#load(), this.ledger?.refresh()]);
  }

  /** Gives the participant the code typed (admin setReferralCode); a refusal is said beside the field. */
  async #changeCode(e: SubmitEvent) {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const code = String(new FormData(form).get('code') ?? '').trim();
    this.codeError = '';
    this.notice = '';
    const changed = await this.attempt(() => api().setReferralCode(this.campaignId, this.email, code));
    if (!changed) {
      this.codeError = this.error;
      this.error = '';
      return;
    }
    form.reset();
    this.notice = `Referral code changed to ${changed.referralCode}. The old code keeps working for them.`;
    await this.#load();
  }

  /** The referral code, the promotion code made of it, and (for a role that may change it) the form that changes it. */
  #codeCard(d: ParticipantDetail) {
    const p = d.participant;
    return html`<section class="card" aria-labelledby="code-h">
      <h2 id="code-h">Referral code</h2>
      <dl class="props">
        <dt>Code</dt><dd class="mono" data-code>${p.referralCode}</dd>
        <dt>Promotion code</dt>
        <dd>${d.promotionCode
          ? html`<span class="mono" data-promotion-code>${d.promotionCode.code}</span>
              <span class="muted stripe-id">for friends at checkout (Stripe <code>${d.promotionCode.id}</code>)</span>`
          : html`<span class="muted">${this.campaign?.refereeDiscount ? 'No promotion code made yet.' : 'None: the campaign gives no friend’s discount.'}</span>`}</dd>
      </dl>
      ${this.mayChange
        ? html`<form class="code" @submit=${this.#changeCode} aria-label="Change referral code">
            <div class="field">
              <label for="new-code">New referral code</label>
              <input
                id="new-code"
                name="code"
                required
                maxlength="64"
                autocomplete="off"
                spellcheck="false"
                aria-invalid=${this.codeError ? 'true' : 'false'}
                aria-describedby="new-code-hint${this.codeError ? ' new-code-error' : ''}"
              />
              <div class="hint" id="new-code-hint">4 to 24 letters A–Z, digits and dashes. The old code keeps working; three changes a day at most.</div>
              ${this.codeError ? html`<div class="field-error" id="new-code-error" role="alert">${this.codeError}</div>` : nothing}
            </div>
            <button type="submit">Change referral code</button>
          </form>`
        : nothing}
    </section>`;
  }

  /** Downloads everything stored about this email across the campaigns, as JSON (admin exportPerson). */
  async #export() {
    const data = await this.attempt(() => api().exportPerson(this.email));
    if (!data) return;
    const url = URL.createObjectURL(new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: 'application/json' }));
    const link = Object.assign(document.createElement('a'), { href: url, download: `refkit-${this.email}.json` });
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    this.notice = `Exported what is stored about ${this.email}.`;
  }

  /** Erases the person in every campaign (admin erasePerson), once the owner has typed their email. */
  async #erase() {
    const ok = await confirmAction(
      this,
      'Erase this person?',
      `Everything stored about ${this.email}, in every campaign, is deleted or anonymised for good. Their referrals and everyone's balances stay; they show as "Deleted participant".`,
      'Erase',
      true,
      this.email,
    );
    if (!ok) return;
    if (!(await this.attempt(() => api().erasePerson(this.email)))) return;
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
    go(href.participants(this.campaignId));
  }

  /** Redeeming from a balance: a change, for a role that may make one. */
  #redeemForm() {
    return html`<form class="redeem" @submit=${this.#redeem} aria-label="Redeem a reward">
      <div class="field">
        <label for="kind">Balance</label>
        <select id="kind" name="kind"><option value="referral">Referral</option><option value="referee">Referee</option></select>
      </div>
      <div class="field"><label for="amount">Amount</label><input id="amount" name="amount" type="number" min="1" step="1" required /></div>
      <button class="primary" type="submit">Redeem</button>
      ${this.redeemError ? html`<div class="alert" role="alert">${this.redeemError}</div>` : nothing}
    </form>`;
  }

  override render() {
    const d = this.detail;
    const back = html`<a href=${href.participants(this.campaignId)}>← All participants</a>`;
    if (!d) return html`${back}${this.messages()}`;
    const p = d.participant;
    const currency = this.campaign?.rewardCurrency ?? 'USD';
    const c = this.campaign;
    const held = !p.approval && !p.rejected;
    return html`${back}
      <div class="page-head" style="margin-top:12px">
        <div>
          <h1>${p.email}</h1>
          <p>${[p.firstName, p.lastName].filter(Boolean).join(' ') || 'No name given'} · joined ${date(p.createdOn)} · code <span class="mono">${p.referralCode}</span></p>
        </div>
        <div class="actions">
          ${scoreBadge(p.fraudScore)}
          ${p.approval ? html`<span class="badge ok">approved</span>` : p.rejected ? html`<span class="badge danger">rejected</span>` : html`<span class="badge warn">held for review</span>`}
        </div>
      </div>
      ${this.messages()}
      <div class="cols">
        <section class="card" aria-labelledby="bal-h">
          <h2 id="bal-h">Rewards</h2>
          <div class="balances">
            <div>
              <div class="muted">Referral balance</div><div class="value">${reward(p.referralRewardBalance, c)}</div>
              <div class="muted">${reward(p.referralReward, c)} earned · ${reward(p.referralRewardRedeemed, c)} redeemed</div>
              <div class="muted">${reward(d.rewards.pending.referral, c)} pending · ${reward(d.rewards.owed.referral, c)} owed back</div>
            </div>
            <div>
              <div class="muted">Referee balance</div><div class="value">${reward(p.refereeRewardBalance, c)}</div>
              <div class="muted">${reward(p.refereeReward, c)} earned · ${reward(p.refereeRewardRedeemed, c)} redeemed</div>
              <div class="muted">${reward(d.rewards.pending.referee, c)} pending · ${reward(d.rewards.owed.referee, c)} owed back</div>
            </div>
          </div>
          ${this.mayChange ? this.#redeemForm() : nothing}
        </section>
        <section class="card" aria-labelledby="pay-h">
          <h2 id="pay-h">Payments</h2>
          <dl class="props">
            <dt>Paid</dt><dd>${money(p.amountPaid, currency)} in ${count(p.paymentCount, 'payment', 'payments')}</dd>
            <dt>Revenue from referrals</dt><dd>${money(p.revenueGenerated, currency)}</dd>
            <dt>Qualified</dt><dd>${p.rewardEventCompleted ? 'Yes' : 'Not yet'}</dd>
            <dt>Link views</dt><dd>${n(p.impressionCount)}</dd>
            <dt class="wide">Share link</dt><dd class="wide"><a href=${p.shareLink!} rel="noopener" target="_blank">${p.shareLink}</a></dd>
          </dl>
          ${this.disputes.length === 0 ? nothing : html`<h3 id="disputes-h">Disputes</h3>
            <ul class="disputes" aria-labelledby="disputes-h">
              ${this.disputes.map((d) => html`<li data-dispute=${d.id}>
                Payment ${d.paymentSeq}: ${money(d.amount, currency)} disputed ${date(d.openedOn)} (<code>${d.id}</code>),
                <strong>${d.status === 'open' ? 'open' : `${d.status} ${date(d.closedOn!)}`}</strong>${d.status === 'open' && d.held > 0 ? html`, holding ${reward(d.held, this.campaign)}` : nothing}${d.reversed > 0 ? html`, ${reward(d.reversed, this.campaign)} ${d.status === 'won' ? 'reversed and given back' : 'reversed'}` : nothing}
              </li>`)}
            </ul>`}
        </section>
        <section class="card" aria-labelledby="fraud-h">
          <h2 id="fraud-h">Fraud signals</h2>
          <p>Score ${scoreBadge(p.fraudScore)} · signed up ${d.signupSource === 'browser' ? 'in a browser' : d.signupSource === 'api' ? 'through the API' : 'by import'}</p>
          <ul class="signals">${d.signals.map((s) => html`<li>${s}</li>`)}</ul>
          ${!p.approval && this.mayChange
            ? html`<div class="actions">
                <button class="primary" @click=${() => this.#review(true)}>Approve</button>
                ${held ? html`<button class="danger-ghost" @click=${() => this.#review(false)}>Reject</button>` : nothing}
              </div>`
            : nothing}
        </section>
        ${this.#codeCard(d)}
        <section class="card" aria-labelledby="ref-h">
          <h2 id="ref-h">Referred by</h2>
          ${d.referrer
            ? html`<p>${participantLink(this.campaignId, d.referrer.email!)}</p>
                <p class="muted">Code <span class="mono">${d.referrer.referralCode}</span> · ${count(d.referrer.totalReferrals, 'referral', 'referrals')}</p>`
            : html`<p class="muted">Nobody: joined directly.</p>`}
        </section>
        <section class="card" aria-labelledby="privacy-h">
          <h2 id="privacy-h">Personal data</h2>
          <p class="muted">Everything stored about this email, in every campaign: download it, or erase it for good.</p>
          <div class="actions">
            <button @click=${() => this.#export()}>Export data</button>
            ${this.mayChange ? html`<button class="danger-ghost" @click=${() => this.#erase()}>Erase</button>` : nothing}
          </div>
        </section>
      </div>
      <section aria-labelledby="refs-h">
        <h2 id="refs-h">Referrals (${n(p.totalReferrals)})</h2>
        <div class="table-wrap">
          <table class="records" aria-labelledby="refs-h">
            <thead><tr><th>Email</th><th>Joined</th><th>Qualified</th><th>Fraud score</th></tr></thead>
            <tbody>
              ${this.referrals.length === 0
                ? html`<tr><td colspan="4" class="empty">No referrals yet.</td></tr>`
                : this.referrals.map(
                    (r) => html`<tr>
                      <td>${participantLink(this.campaignId, r.email!)}</td>
                      <td data-label="Joined">${date(r.createdOn)}</td>
                      <td data-label="Qualified">${r.rewardEventCompleted ? html`<span class="badge ok">qualified</span>` : html`<span class="badge">pending</span>`}</td>
                      <td data-label="Fraud score">${scoreBadge(r.fraudScore)}</td>
                    </tr>`,
                  )}
            </tbody>
          </table>
        </div>
        ${this.moreReferrals ? html`<p style="margin-top:12px"><button @click=${() => this.#more()}>Show more referrals</button></p>` : nothing}
      </section>
      <rk-reward-ledger .campaignId=${this.campaignId} .email=${this.email} .campaign=${c}></rk-reward-ledger>`;
  }
}
