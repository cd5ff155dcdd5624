/**
 * Create or edit a campaign: every field of the admin contract, a live preview of the widget with the
 * texts and look being edited, pause/resume/end behind a confirmation, and the embed snippet to copy. A new
 * campaign is made in the mode the dashboard shows (Test mode: a test campaign); a test campaign's page has its clock.
 */
import { css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { Campaign, CampaignSettings, CampaignStatus, CreateCampaignBody, WidgetSettings } from '../../api/client.js';
import type { LeaderboardSettings, MAX_LEADERBOARD_SIZE, RewardRulesFields, ShareMessages, WidgetStyle } from '../../api/schemas.js';
import { isMoney } from '../../api/reward-kind.js';
import { ACCENT_PATTERN, DEFAULT_WIDGET_STYLE, MAX_WIDGET_RADIUS, WIDGET_FONT_NAMES, widgetLook, type WidgetFont } from '../../api/widget-style.js';
import { api } from '../api.js';
import { confirmAction } from '../confirm.js';
import { reward, toLocalInput } from '../format.js';
import { Page } from '../page.js';
import '../preview-widget.js';
import { hasOfferRuleLines, offerRuleLines } from '../../widget/offer-rules.js';
import './rules-backtest.js';
import './campaign-clock.js';
// The fraud controls: each card saves its own field (./fraud/control-card.ts).
import './fraud/blocklist-card.js';
import './fraud/captcha-card.js';
import './fraud/limits-card.js';
import { EMPTY_MILESTONE, NO_RULES, previewRules, RULE_BOUNDS, rulesDraftOf, rulesOf, type MilestoneDraft, type RulesDraft } from '../reward-rules-draft.js';
import { go, href } from '../router.js';
import { statusBadge } from '../status.js';
import { testBadge } from '../test-mode.js';

/** The look of the widget, stored on the campaign (widgetStyle) so that every embed of it shows it. */
type Theme = Required<WidgetStyle>;
const FONT_LABELS: Record<WidgetFont, string> = { system: 'System', serif: 'Serif', rounded: 'Rounded', monospace: 'Monospace' };

/**
 * Earlier dashboards kept the look in the browser (this key, fonts as CSS stacks) and in the snippet. A
 * campaign without a stored look starts from the one this browser kept, so saving the campaign keeps it.
 */
const earlierThemeKey = (id: string) => `refkit-dashboard:theme:${id}`;
const EARLIER_FONTS: Record<string, WidgetFont> = {
  'system-ui, sans-serif': 'system',
  'Georgia, serif': 'serif',
  'ui-rounded, "Nunito", system-ui, sans-serif': 'rounded',
  'ui-monospace, monospace': 'monospace',
};
function earlierTheme(id: string): Partial<Theme> {
  try {
    const kept = JSON.parse(localStorage.getItem(earlierThemeKey(id)) ?? '{}') as { accent?: unknown; radius?: unknown; font?: unknown };
    const font = typeof kept.font === 'string' ? EARLIER_FONTS[kept.font] : undefined;
    return {
      ...(typeof kept.accent === 'string' && new RegExp(ACCENT_PATTERN).test(kept.accent) && { accent: kept.accent }),
      ...(Number.isInteger(kept.radius) && (kept.radius as number) >= 0 && (kept.radius as number) <= MAX_WIDGET_RADIUS && { radius: kept.radius as number }),
      ...(font && { font }),
    };
  } catch {
    return {};
  }
}

/** The form's values: the reward rules as typed (see ../reward-rules-draft.ts). */
// The Stripe secret and rewardCodesLowThreshold are set on the Billing page: updates here leave them as they are.
// The leaderboard is typed as its period ('off': none) and size.
type Draft = Required<
  Omit<CreateCampaignBody, 'end' | 'allowedOrigins' | 'shareMessages' | 'widgetStyle' | 'stripeWebhookSecret' | 'stripeRewardKey' | 'stripeRewardMode' | 'cashPayouts' | 'refereeDiscount' | 'promotionCodePrefix' | 'paddleWebhookSecret' | 'lemonSqueezyWebhookSecret' | 'shopifyWebhookSecret' | 'chargebeeWebhookAuth' | 'segmentSharedSecret' | 'rewardCodesLowThreshold' | 'leaderboard' | 'timeZone' | 'waitlist' | 'test' | 'blocklist' | 'captcha' | 'autoApprove' | keyof typeof RewardRulesFields>
> &
  RulesDraft & {
    end: string;
    allowedOrigins: string;
    shareMessages: Required<ShareMessages>;
    leaderboardPeriod: LeaderboardSettings['period'] | 'off';
    leaderboardSize: string;
    timeZone: string;
    /** Places a referral moves its referrer up the waitlist; '' when the campaign is not in waitlist mode. */
    waitlistSpots: string;
    waitlistCounts: 'signups' | 'qualified';
  };
/** The fields typed in one input each. */
type InputField = Exclude<keyof Draft, 'shareMessages' | 'milestones' | 'requireEmailConfirmation' | 'leaderboardPeriod' | 'waitlistCounts'>;

/**
 * The id of the input a request field is typed in, so that a 400 naming a field is said beside it:
 * `milestones.1.label` is #f-milestones-1-label, `shareMessages.x` #f-shareMessages-x, `allowedOrigins.2` the
 * one box of origins, `milestones` (a rule across the list) the list's fieldset.
 */
const inputId = (field: string) => `f-${field.replace(/^allowedOrigins\.\d+$/, 'allowedOrigins').replaceAll('.', '-')}`;
const MILESTONE_FIELDS: [keyof MilestoneDraft, string, string][] = [
  ['referrals', 'Referrals', 'number'],
  ['reward', 'Bonus', 'number'],
  ['label', 'Label', 'text'],
];
/** The share-message channels the editor shows: [channel, label, multi-line]. */
/** The service's bound (a type-only import: the dashboard does not load the schemas). */
const MAX_BOARD_SIZE = 100 satisfies typeof MAX_LEADERBOARD_SIZE;
const LEADERBOARD_CHOICES: [Draft['leaderboardPeriod'], string][] = [
  ['off', 'Off'],
  ['all', 'Since the start'],
  ['month', 'This month'],
];
const MESSAGE_FIELDS: [keyof ShareMessages, string, boolean][] = [
  ['emailSubject', 'Email subject', false],
  ['email', 'Email message', true],
  ['x', 'X (Twitter) post', true],
  ['whatsapp', 'WhatsApp message', true],
  ['native', "Phone share sheet (the device's own share)", true],
];
const NO_MESSAGES: Required<ShareMessages> = { emailSubject: '', email: '', x: '', whatsapp: '', native: '' };

/** The reward fields the written reward texts are made of. */
const REWARD_FIELDS = new Set<keyof Draft>(['referrerRewardValue', 'refereeRewardValue', 'rewardType', 'rewardCurrency']);
type RewardText = 'rewardHeader' | 'rewardDescription';

/** The reward texts written from the reward fields: a new campaign's start, kept in step until the owner writes their own. */
function rewardTexts(d: Pick<Draft, 'referrerRewardValue' | 'refereeRewardValue' | 'rewardType' | 'rewardCurrency'>): Record<RewardText, string> {
  const unit = { rewardType: d.rewardType, rewardCurrency: d.rewardCurrency.trim().toUpperCase() };
  const friend = reward(Number(d.refereeRewardValue), unit);
  const you = reward(Number(d.referrerRewardValue), unit);
  return {
    rewardHeader: `Give ${friend}, get ${you}`,
    rewardDescription: `Invite friends: they get ${friend} when they start, you get ${you} for each of them.`,
  };
}

const EMPTY_REWARDS = { referrerRewardValue: 10, refereeRewardValue: 5, rewardType: 'credit', rewardCurrency: 'USD' };
const EMPTY: Draft = {
  campaignName: '',
  hostURL: '',
  ...EMPTY_REWARDS,
  ...rewardTexts(EMPTY_REWARDS),
  shareHeader: 'Share your link',
  shareDescription: 'Send it to a friend or post it anywhere.',
  end: '',
  allowedOrigins: '',
  requireEmailConfirmation: false,
  shareMessages: { ...NO_MESSAGES },
  ...NO_RULES,
  leaderboardPeriod: 'off',
  leaderboardSize: '10',
  timeZone: 'UTC',
  waitlistSpots: '',
  waitlistCounts: 'signups',
};

function draftOf(c: CampaignSettings): Draft {
  return {
    campaignName: c.campaignName ?? '',
    hostURL: c.hostURL ?? '',
    referrerRewardValue: c.referrerRewardValue ?? 0,
    refereeRewardValue: c.refereeRewardValue ?? 0,
    rewardType: c.rewardType ?? '',
    rewardCurrency: c.rewardCurrency,
    rewardHeader: c.rewardHeader ?? '',
    rewardDescription: c.rewardDescription ?? '',
    shareHeader: c.shareHeader ?? '',
    shareDescription: c.shareDescription ?? '',
    end: toLocalInput(c.end),
    allowedOrigins: (c.allowedOrigins ?? []).join('\n'),
    requireEmailConfirmation: c.requireEmailConfirmation,
    shareMessages: { ...NO_MESSAGES, ...c.shareMessages },
    leaderboardPeriod: c.leaderboard?.period ?? 'off',
    leaderboardSize: String(c.leaderboard?.size ?? 10),
    timeZone: c.timeZone,
    waitlistSpots: c.waitlist ? String(c.waitlist.spotsPerReferral) : '',
    waitlistCounts: c.waitlist?.counts ?? 'signups',
    ...rulesDraftOf(c),
  };
}

@customElement('rk-campaign-editor')
export class CampaignEditor extends Page {
  static override styles = [
    ...Page.styles,
    css`
      .layout { display: grid; grid-template-columns: minmax(0, 1fr) minmax(320px, 420px); gap: 24px; align-items: start; }
      .side { position: sticky; top: 24px; display: grid; gap: 16px; }
      rk-campaign-clock { display: block; margin: 16px 0; }
      .fraud-controls { display: grid; gap: 16px; margin-top: 16px; }
      /* The rules' lines beside the preview's form: the widget shows them only once someone has signed up. */
      .offer-lines h3 { font-size: 13px; font-weight: 600; color: var(--muted); margin: 12px 0 4px; }
      .offer-lines ul { margin: 0; padding-left: 18px; font-size: 14px; }
      .preview { background: repeating-conic-gradient(#f2f4f7 0% 25%, #fff 0% 50%) 50% / 20px 20px; border-radius: 8px; padding: 16px; border: 1px solid var(--border); }
      pre { margin: 0; white-space: pre-wrap; word-break: break-all; background: #0f172a; color: #e2e8f0; padding: 12px; border-radius: 8px; font-size: 12px; }
      .status-row { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; }
      .save-bar { display: flex; gap: 8px; justify-content: flex-end; margin-top: 8px; }
      .look { display: grid; grid-template-columns: 1fr 1fr 1fr; gap: 12px; }
      fieldset.milestones { margin-bottom: 16px; }
      fieldset.milestones legend { font-weight: 500; font-size: 13px; margin-bottom: 4px; }
      fieldset.milestones > .hint { color: var(--muted); font-size: 12px; margin-bottom: 8px; }
      .milestone { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr) minmax(0, 2fr) auto; gap: 0 12px; align-items: end; }
      .milestone .field { margin-bottom: 8px; }
      .milestone button { margin-bottom: 8px; }
      @media (max-width: 1000px) { .layout { grid-template-columns: 1fr; } .side { position: static; } }
      @media (max-width: 640px) {
        .look { grid-template-columns: 1fr; }
        /* A milestone is a small card of its own on a phone: count and bonus side by side, the label below. */
        .milestone { grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); border: 1px solid var(--border); border-radius: 8px; padding: 8px 12px 0; margin-bottom: 8px; }
        .milestone .field:nth-child(3) { grid-column: 1 / -1; }
        .milestone button { grid-column: 1 / -1; justify-self: start; }
      }
    `,
  ];

  /** Undefined: a new campaign. */
  @property() campaignId: string | undefined;
  @property({ attribute: false }) campaign: CampaignSettings | undefined;
  /** Test mode is on: a new campaign is made a test one (fixed at creation). */
  @property({ type: Boolean }) testMode = false;
  @state() private draft: Draft = { ...EMPTY };
  @state() private theme: Theme = { ...DEFAULT_WIDGET_STYLE };
  @state() private busy = false;
  @state() private loadedFor: string | undefined;
  /** The reward texts still as written from the reward fields: they follow those fields' changes. */
  #following = new Set<RewardText>(['rewardHeader', 'rewardDescription']);

  protected override willUpdate(): void {
    // Fill the form once per campaign (not on every list refresh, which would undo unsaved edits).
    if (this.campaign && this.loadedFor !== this.campaign.campaignId) {
      this.loadedFor = this.campaign.campaignId;
      this.forgetMessages();
      this.draft = draftOf(this.campaign);
      const written = rewardTexts(this.draft);
      this.#following = new Set((['rewardHeader', 'rewardDescription'] as const).filter((f) => this.draft[f] === written[f]));
      const stored = this.campaign.widgetStyle ?? {};
      this.theme = { ...DEFAULT_WIDGET_STYLE, ...(Object.keys(stored).length > 0 ? stored : earlierTheme(this.campaign.campaignId!)) };
    }
  }

  #set(field: keyof Draft, value: string | number | boolean) {
    this.#edited(field);
    const draft = { ...this.draft, [field]: value };
    if (field === 'rewardHeader' || field === 'rewardDescription') this.#following.delete(field);
    if (REWARD_FIELDS.has(field)) {
      const written = rewardTexts(draft);
      for (const f of this.#following) draft[f] = written[f];
    }
    this.draft = draft;
  }

  /** The value the service refused is being changed: what it said of it goes. */
  #edited(field: string) {
    const at = this.errorField === undefined ? undefined : inputId(this.errorField);
    if (at !== undefined && (at === inputId(field) || at.startsWith(`${inputId(field)}-`))) {
      this.errorField = undefined;
      this.error = '';
    }
  }

  #setMilestones(milestones: MilestoneDraft[]) {
    this.#edited('milestones');
    this.draft = { ...this.draft, milestones };
  }

  #editMilestone(i: number, key: keyof MilestoneDraft, value: string) {
    this.#setMilestones(this.draft.milestones.map((m, j) => (j === i ? { ...m, [key]: value } : m)));
  }

  /** What the service said of `field`, and the attributes that tie it to the input. */
  #problem(field: string) {
    const id = inputId(field);
    const at = this.errorField !== undefined && inputId(this.errorField) === id;
    return {
      invalid: at ? 'true' : nothing,
      errorId: at ? `${id}-error` : undefined,
      line: at ? html`<div class="field-error" id="${id}-error">${this.error}</div>` : nothing,
    };
  }

  #setTheme(patch: Partial<Theme>) {
    this.theme = { ...this.theme, ...patch };
  }

  #body(): CreateCampaignBody {
    const d = this.draft;
    const origins = d.allowedOrigins.split(/\s+/).filter(Boolean);
    const body: CreateCampaignBody = {
      campaignName: d.campaignName.trim(),
      hostURL: d.hostURL.trim(),
      referrerRewardValue: Number(d.referrerRewardValue),
      refereeRewardValue: Number(d.refereeRewardValue),
      rewardType: d.rewardType,
      rewardCurrency: d.rewardCurrency.trim().toUpperCase(),
      rewardHeader: d.rewardHeader,
      rewardDescription: d.rewardDescription,
      shareHeader: d.shareHeader,
      shareDescription: d.shareDescription,
      widgetStyle: { ...this.theme },
    };
    const { maxReferralReward, ...rules } = rulesOf(d);
    Object.assign(body, rules);
    // No ceiling is sent only to remove a stored one, as the end date is.
    if (maxReferralReward !== null || this.campaign?.maxReferralReward != null) body.maxReferralReward = maxReferralReward;
    // Off is sent only to turn off a stored leaderboard.
    if (d.leaderboardPeriod !== 'off') body.leaderboard = { period: d.leaderboardPeriod, size: Number(d.leaderboardSize) };
    else if (this.campaign?.leaderboard) body.leaderboard = null;
    body.timeZone = d.timeZone.trim() || 'UTC';
    // Empty is sent only to end a stored waitlist (the launch, for good).
    if (d.waitlistSpots.trim() !== '') body.waitlist = { spotsPerReferral: Number(d.waitlistSpots), counts: d.waitlistCounts };
    else if (this.campaign?.waitlist) body.waitlist = null;
    // Every channel is sent: an emptied one ('') is cleared.
    body.shareMessages = { ...d.shareMessages };
    // Sent only when on or changed: turning it on needs SMTP, and an untouched box must not fail a save.
    if (d.requireEmailConfirmation || this.campaign?.requireEmailConfirmation) body.requireEmailConfirmation = d.requireEmailConfirmation;
    if (d.end) body.end = new Date(d.end).toISOString();
    else if (this.campaign?.end) body.end = null;
    // Emptied: none besides the landing page's own origin, which is always allowed.
    if (origins.length > 0 || this.campaign?.allowedOrigins?.length) body.allowedOrigins = origins;
    return body;
  }

  async #save(e: SubmitEvent) {
    e.preventDefault();
    this.busy = true;
    const saved = await this.attempt(() =>
      this.campaignId ? api().updateCampaign({ id: this.campaignId, ...this.#body() }) : api().createCampaign({ ...this.#body(), test: this.testMode }),
    );
    this.busy = false;
    if (!saved) {
      await this.updateComplete;
      this.#focusProblem();
      return;
    }
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
    if (!this.campaignId) {
      go(href.campaign(saved.campaignId!));
    } else {
      this.notice = 'Changes saved.';
    }
  }

  /** The input the service refused (or, for a rule across the milestones, their first input) takes the focus. */
  #focusProblem() {
    if (this.errorField === undefined) return;
    const at = this.renderRoot.querySelector<HTMLElement>(`#${inputId(this.errorField)}`);
    (at instanceof HTMLFieldSetElement ? at.querySelector<HTMLElement>('input, button') : at)?.focus();
  }

  async #setStatus(status: CampaignStatus) {
    const name = this.draft.campaignName;
    const ask = {
      Pause: ['Pause this campaign?', `${name} stops taking sign-ups and qualifications until you resume it. Everything else keeps working.`, 'Pause campaign'],
      Active: ['Resume this campaign?', `${name} takes sign-ups again.`, 'Resume campaign'],
      End: ['End this campaign?', `${name} stops for good: an ended campaign cannot be resumed. Participants and balances stay readable.`, 'End campaign'],
    }[status];
    if (!(await confirmAction(this, ask[0]!, ask[1]!, ask[2]!, status === 'End'))) return;
    const c = await this.attempt(() => api().setCampaignStatus(this.campaignId!, status));
    if (!c) return;
    this.notice = status === 'Active' ? 'The campaign is active.' : status === 'Pause' ? 'The campaign is paused.' : 'The campaign has ended.';
    this.dispatchEvent(new CustomEvent('campaigns-changed', { bubbles: true, composed: true }));
  }

  /** The look travels with the campaign, not with the snippet: a change reaches every page it is on. */
  #snippet(): string {
    return `<script type="module" src="${location.origin}/widget/referral-widget.js"></script>\n<referral-widget campaign-id="${this.campaignId}"></referral-widget>`;
  }

  async #copy() {
    await navigator.clipboard.writeText(this.#snippet());
    this.notice = 'Embed code copied to the clipboard.';
  }

  #message(channel: keyof ShareMessages, label: string, area: boolean) {
    const field = `shareMessages.${channel}`;
    const id = inputId(field);
    const value = this.draft.shareMessages[channel];
    const problem = this.#problem(field);
    const onInput = (e: Event) => {
      this.#edited(field);
      this.draft = { ...this.draft, shareMessages: { ...this.draft.shareMessages, [channel]: (e.target as HTMLInputElement).value } };
    };
    return html`<div class="field">
      <label for=${id}>${label}</label>
      ${area
        ? html`<textarea id=${id} .value=${value} @input=${onInput} aria-invalid=${problem.invalid} aria-describedby=${problem.errorId ?? nothing}></textarea>`
        : html`<input id=${id} .value=${value} @input=${onInput} aria-invalid=${problem.invalid} aria-describedby=${problem.errorId ?? nothing} />`}
      ${problem.line}
    </div>`;
  }

  #text(
    field: InputField,
    label: string,
    opts: { type?: string; hint?: string; required?: boolean; area?: boolean; pattern?: string; max?: number; step?: number; placeholder?: string } = {},
  ) {
    const id = inputId(field);
    const value = String(this.draft[field]);
    const onInput = (e: Event) => this.#set(field, (e.target as HTMLInputElement).value);
    const problem = this.#problem(field);
    const describedBy = [opts.hint && `${id}-hint`, problem.errorId].filter(Boolean).join(' ') || nothing;
    return html`<div class="field">
      <label for=${id}>${label}</label>
      ${opts.area
        ? html`<textarea id=${id} .value=${value} @input=${onInput} aria-invalid=${problem.invalid} aria-describedby=${describedBy}></textarea>`
        : html`<input
            id=${id}
            type=${opts.type ?? 'text'}
            .value=${value}
            ?required=${opts.required}
            pattern=${opts.pattern ?? nothing}
            min=${opts.type === 'number' ? '0' : nothing}
            max=${opts.max ?? nothing}
            step=${opts.step ?? nothing}
            placeholder=${opts.placeholder ?? nothing}
            @input=${onInput}
            aria-invalid=${problem.invalid}
            aria-describedby=${describedBy}
          />`}
      ${problem.line}
      ${opts.hint ? html`<div class="hint" id="${id}-hint">${opts.hint}</div>` : nothing}
    </div>`;
  }

  /** The milestone bonuses: a row each (count, bonus, label), added and removed; the service keeps the counts distinct. */
  #milestones() {
    const rows = this.draft.milestones;
    const list = this.#problem('milestones');
    return html`<fieldset class="milestones" id=${inputId('milestones')} aria-describedby=${['f-milestones-hint', list.errorId].filter(Boolean).join(' ')}>
      <legend>Milestone bonuses</legend>
      <div class="hint" id="f-milestones-hint">A bonus a referrer earns once, when their qualified referrals reach the count. Each count once.</div>
      ${rows.map(
        (m, i) => html`<div class="milestone" role="group" aria-label="Milestone ${i + 1}">
          ${MILESTONE_FIELDS.map(([key, label, type]) => {
            const field = `milestones.${i}.${key}`;
            const id = inputId(field);
            const problem = this.#problem(field);
            return html`<div class="field">
              <label for=${id}>${label}<span class="sr-only"> (milestone ${i + 1})</span></label>
              <input
                id=${id}
                type=${type}
                .value=${m[key]}
                required
                min=${type === 'number' ? (key === 'referrals' ? '1' : '0') : nothing}
                step=${type === 'number' ? '1' : nothing}
                maxlength=${key === 'label' ? '80' : nothing}
                @input=${(e: Event) => this.#editMilestone(i, key, (e.target as HTMLInputElement).value)}
                aria-invalid=${problem.invalid}
                aria-describedby=${problem.errorId ?? nothing}
              />
              ${problem.line}
            </div>`;
          })}
          <button type="button" class="danger-ghost" @click=${() => this.#setMilestones(rows.filter((_, j) => j !== i))}>
            Remove<span class="sr-only"> milestone ${i + 1}</span>
          </button>
        </div>`,
      )}
      ${list.line}
      <button type="button" ?disabled=${rows.length >= RULE_BOUNDS.milestones} @click=${() => this.#setMilestones([...rows, { ...EMPTY_MILESTONE }])}>
        Add milestone
      </button>
    </fieldset>`;
  }

  #statusCard() {
    const status = this.campaign?.status;
    if (!this.campaignId || !status) return nothing;
    return html`<section class="card" aria-labelledby="status-h">
      <h2 id="status-h">Status</h2>
      <div class="status-row">
        ${statusBadge(status)}
        ${this.mayChange && status === 'Active' ? html`<button @click=${() => this.#setStatus('Pause')}>Pause</button>` : nothing}
        ${this.mayChange && status === 'Pause' ? html`<button @click=${() => this.#setStatus('Active')}>Resume</button>` : nothing}
        ${status === 'End' ? html`<span class="muted">An ended campaign cannot be restarted.</span>` : nothing}
        ${this.mayChange && status !== 'End' ? html`<button class="danger-ghost" @click=${() => this.#setStatus('End')}>End campaign</button>` : nothing}
      </div>
    </section>`;
  }

  override render() {
    const d = this.draft;
    const t = this.theme;
    const preview: Campaign = {
      campaignName: d.campaignName,
      hostURL: d.hostURL,
      rewardHeader: d.rewardHeader,
      rewardDescription: d.rewardDescription,
      shareHeader: d.shareHeader,
      shareDescription: d.shareDescription,
      referrerRewardValue: Number(d.referrerRewardValue),
      refereeRewardValue: Number(d.refereeRewardValue),
      rewardType: d.rewardType,
    };
    // The widget draws amounts, share messages and the look from these, as it will from the service.
    const settings: WidgetSettings = {
      campaignId: 'preview',
      ...(isMoney(d.rewardType) ? { rewardCurrency: d.rewardCurrency.trim().toUpperCase() } : { rewardUnit: d.rewardType }),
      shareMessages: d.shareMessages,
      look: widgetLook(t),
      rules: previewRules(d),
    };
    return html`<div class="page-head">
        <div>
          <h1>${this.campaignId ? d.campaignName || 'Campaign' : this.testMode ? 'New test campaign' : 'New campaign'} ${testBadge(this.campaignId ? this.campaign?.test : this.testMode)}</h1>
          <p>
            ${this.campaignId
              ? html`<span class="mono">${this.campaignId}</span>`
              : this.testMode
                ? 'A test campaign: its data stay apart from live data, and its clock can be moved. Test or live is fixed once it is made.'
                : 'Set up the rewards and the texts of your referral program.'}
          </p>
        </div>
        ${this.campaignId
          ? html`<div class="actions">
              <a class="button" href=${href.participants(this.campaignId)}>Participants</a>
              <a class="button" href=${href.analytics(this.campaignId)}>Analytics</a>
              <a class="button" href=${href.billing(this.campaignId)}>Billing</a>
              <a class="button" href=${href.payouts(this.campaignId)}>Payouts</a>
            </div>`
          : nothing}
      </div>
      ${this.messages()}
      <div class="layout">
        <div>
          ${this.#statusCard()}
          ${this.campaignId && this.campaign?.test ? html`<rk-campaign-clock .campaignId=${this.campaignId} .campaign=${this.campaign}></rk-campaign-clock>` : nothing}
          <form class="card" @submit=${this.#save} aria-label="Campaign settings">
            <!-- A viewer reads the settings; every control of the form is disabled for them. -->
            <fieldset class="settings" ?disabled=${!this.mayChange}>
            <fieldset>
              <legend>Basics</legend>
              ${this.#text('campaignName', 'Campaign name', { required: true })}
              ${this.#text('hostURL', 'Landing page URL', { type: 'url', required: true, hint: 'Share links point here, with the campaign and the referral code in the query.' })}
              <div class="row">
                ${this.#text('end', 'Ends on (optional)', { type: 'datetime-local', hint: 'After this moment the campaign reads as ended.' })}
                ${this.#text('allowedOrigins', 'Allowed origins (optional)', { area: true, hint: 'Besides the landing page’s own origin, which is always allowed: one per line, e.g. https://www.example.com.' })}
              </div>
              <div class="field">
                <label class="check">
                  <input
                    type="checkbox"
                    id="f-requireEmailConfirmation"
                    .checked=${this.draft.requireEmailConfirmation}
                    @change=${(e: Event) => this.#set('requireEmailConfirmation', (e.target as HTMLInputElement).checked)}
                    aria-describedby="f-requireEmailConfirmation-hint"
                  />
                  Require email confirmation (double opt-in)
                </label>
                <div class="hint" id="f-requireEmailConfirmation-hint">
                  Sign-ups from the widget count only once their emailed link is followed, so nobody can sign others up under their own code. Needs SMTP_URL.
                </div>
              </div>
            </fieldset>
            <fieldset>
              <legend>Rewards</legend>
              <div class="row">
                ${this.#text('referrerRewardValue', 'Referrer reward', { type: 'number', hint: 'Credited to the referrer for each qualified referral.' })}
                ${this.#text('refereeRewardValue', 'Referee reward', { type: 'number', hint: 'Credited to the friend who joined.' })}
              </div>
              <div class="row">
                ${this.#text('rewardType', 'Reward type', { hint: 'e.g. credit, discount, points' })}
                ${this.#text('rewardCurrency', 'Currency', { pattern: '[A-Za-z]{3}', hint: 'Three letters, e.g. USD' })}
              </div>
            </fieldset>
            <fieldset>
              <legend>Reward rules</legend>
              <div class="row">
                ${this.#text('referrerRewardPercent', 'Commission (%)', {
                  type: 'number',
                  ...RULE_BOUNDS.percent,
                  hint: 'The referrer also earns this share of what each friend pays, in reward units. 0: no commission.',
                })}
                ${this.#text('commissionPayments', 'Payments that earn it', {
                  type: 'number',
                  max: RULE_BOUNDS.commissionPayments.max,
                  hint: "0: every payment; 3: each friend's first 3 payments.",
                })}
              </div>
              ${this.#milestones()}
              <div class="row">
                ${this.#text('maxReferralReward', 'Most a referrer can earn (optional)', {
                  type: 'number',
                  placeholder: 'No ceiling',
                  hint: 'In all, in this campaign. Empty: no ceiling. What goes over it is recorded as capped.',
                })}
                ${this.#text('holdDays', 'Hold (days)', {
                  type: 'number',
                  max: RULE_BOUNDS.holdDays.max,
                  hint: 'New rewards stay pending this many days (a refund in that time takes them back), then become available. 0: at once.',
                })}
              </div>
              ${this.campaignId
                ? html`<rk-rules-backtest
                    .campaignId=${this.campaignId}
                    .campaign=${this.campaign}
                    .rules=${{ ...rulesOf(d), referrerRewardValue: Number(d.referrerRewardValue), refereeRewardValue: Number(d.refereeRewardValue) }}
                  ></rk-rules-backtest>`
                : nothing}
            </fieldset>
            <fieldset>
              <legend>Leaderboard</legend>
              <div class="row">
                <div class="field">
                  <label for="f-leaderboardPeriod">Leaderboard</label>
                  <select
                    id="f-leaderboardPeriod"
                    aria-describedby="f-leaderboardPeriod-hint"
                    @change=${(e: Event) => this.#set('leaderboardPeriod', (e.target as HTMLSelectElement).value as Draft['leaderboardPeriod'])}
                  >
                    ${LEADERBOARD_CHOICES.map(([value, label]) => html`<option value=${value} ?selected=${this.draft.leaderboardPeriod === value}>${label}</option>`)}
                  </select>
                  <div class="hint" id="f-leaderboardPeriod-hint">Top referrers by qualified referrals, shown by widgets with show-leaderboard and by getLeaderboard.</div>
                </div>
                ${this.#text('leaderboardSize', 'Entries shown', { type: 'number', max: MAX_BOARD_SIZE, hint: `1 to ${MAX_BOARD_SIZE}.` })}
              </div>
              ${this.#text('timeZone', 'Time zone', { hint: 'Where months begin, for a monthly leaderboard: an IANA name such as Europe/Berlin.' })}
            </fieldset>
            <fieldset>
              <legend>Waitlist</legend>
              <div class="row">
                ${this.#text('waitlistSpots', 'Places up per referral', {
                  type: 'number',
                  max: 1000,
                  hint: 'Waitlist mode before launch: a queue by sign-up order, each referral moving its referrer up this many places. Empty: a normal campaign (emptying it launches, for good).',
                })}
                <div class="field">
                  <label for="f-waitlistCounts">Referrals that count</label>
                  <select id="f-waitlistCounts" @change=${(e: Event) => this.#set('waitlistCounts', (e.target as HTMLSelectElement).value as Draft['waitlistCounts'])}>
                    <option value="signups" ?selected=${this.draft.waitlistCounts === 'signups'}>Every referred sign-up</option>
                    <option value="qualified" ?selected=${this.draft.waitlistCounts === 'qualified'}>Qualified referrals only</option>
                  </select>
                </div>
              </div>
            </fieldset>
            <fieldset>
              <legend>Widget texts</legend>
              ${this.#text('rewardHeader', 'Reward headline')} ${this.#text('rewardDescription', 'Reward description', { area: true })}
              ${this.#text('shareHeader', 'Share headline')} ${this.#text('shareDescription', 'Share description', { area: true })}
            </fieldset>
            <fieldset>
              <legend>Share messages</legend>
              <div class="hint">What the friend receives on each channel. {link} is replaced by the share link (or it is added at the end). Empty: the widget's default.</div>
              ${MESSAGE_FIELDS.map(([channel, label, area]) => this.#message(channel, label, area))}
            </fieldset>
            <fieldset>
              <legend>Look</legend>
              <div class="look">
                <div class="field"><label for="accent">Accent colour</label><input id="accent" type="color" .value=${t.accent} @input=${(e: Event) => this.#setTheme({ accent: (e.target as HTMLInputElement).value })} /></div>
                <div class="field"><label for="radius">Corner radius: ${t.radius}px</label><input id="radius" type="range" min="0" max=${MAX_WIDGET_RADIUS} .value=${String(t.radius)} @input=${(e: Event) => this.#setTheme({ radius: Number((e.target as HTMLInputElement).value) })} /></div>
                <div class="field">
                  <label for="font">Font</label>
                  <select id="font" @change=${(e: Event) => this.#setTheme({ font: (e.target as HTMLSelectElement).value as WidgetFont })}>
                    ${WIDGET_FONT_NAMES.map((f) => html`<option value=${f} ?selected=${f === t.font}>${FONT_LABELS[f]}</option>`)}
                  </select>
                </div>
              </div>
            </fieldset>
            </fieldset>
            ${this.mayChange
              ? html`<div class="save-bar">
                  <a class="button" href=${href.campaigns()}>Cancel</a>
                  <button class="primary" type="submit" ?disabled=${this.busy}>${this.campaignId ? 'Save changes' : 'Create campaign'}</button>
                </div>`
              : nothing}
          </form>
          ${this.campaignId
            ? html`<div class="fraud-controls">
                <rk-blocklist-card .campaignId=${this.campaignId} .campaign=${this.campaign}></rk-blocklist-card>
                <rk-captcha-card .campaignId=${this.campaignId} .campaign=${this.campaign}></rk-captcha-card>
                <rk-limits-card .campaignId=${this.campaignId} .campaign=${this.campaign}></rk-limits-card>
              </div>`
            : nothing}
        </div>
        <aside class="side" aria-label="Preview and embed code">
          <section class="card" aria-labelledby="preview-h">
            <h2 id="preview-h">Live preview</h2>
            <div class="preview">
              <rk-widget-preview
                campaign-id="preview"
                .draft=${preview}
                .draftSettings=${settings}
              ></rk-widget-preview>
            </div>
            ${hasOfferRuleLines(settings.rules)
              ? html`<div class="offer-lines" aria-labelledby="offer-h">
                  <h3 id="offer-h">The offer's rules, as a participant reads them</h3>
                  <ul>
                    ${offerRuleLines(
                      settings.rules,
                      (v) => reward(v, { rewardType: d.rewardType, rewardCurrency: d.rewardCurrency.trim().toUpperCase() || 'USD' }),
                      (x) => new Intl.NumberFormat('en').format(x),
                    )}
                  </ul>
                </div>`
              : nothing}
          </section>
          ${this.campaignId
            ? html`<section class="card" aria-labelledby="embed-h">
                <h2 id="embed-h">Embed on your site</h2>
                <p class="muted">Paste this where the widget should appear.</p>
                <pre aria-label="Embed code"><code>${this.#snippet()}</code></pre>
                <div class="save-bar"><button @click=${() => this.#copy()}>Copy embed code</button></div>
              </section>`
            : nothing}
        </aside>
      </div>`;
  }
}
