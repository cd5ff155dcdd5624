/**
 * A small fetch-based client for the Refkit service. The widget (BrowserClient), the dashboard and the
 * tests use it with their own credentials (a browser's proof, a session, a key). Its types are the contract
 * generated from the OpenAPI document (./wire.ts), which @refkit/node ships too, so that the wire shapes are
 * spelled once: this file adds nothing but itself to a browser bundle.
 */
import type { Answer, Body, Item, Query as QueryOf, Refusal } from './wire.js';

// The wire shapes, named: each read from the contract generated from the OpenAPI document (./wire.ts).
export type Participant = Answer<'getParticipant'>;
/** The participant a secret key sees: every field, and held/heldReason when its rewards are held back. */
export type KeyedParticipant = Answer<'qualifyParticipant'>;
export type Campaign = Answer<'getCampaign'>;
export type CampaignSettings = Answer<'createCampaign'>;
export type CampaignStatus = Body<'setCampaignStatus'>['status'];
export type CampaignAnalytics = Answer<'getCampaignAnalytics'>;
export type CampaignClock = Answer<'getCampaignClock'>;
export type CreateCampaignBody = Body<'createCampaign'>;
export type UpdateCampaignBody = Body<'updateCampaign'>;
export type AdvanceClockBody = Body<'advanceClock'>;
export type AddParticipantBody = Body<'addParticipant'>;
export type QualifyParticipantBody = Body<'qualifyParticipant'>;
export type RedeemRewardBody = Body<'redeemReward'>;
export type RefundPaymentBody = Body<'refundPayment'>;
export type ApiErrorBody = Refusal<'addParticipant', 400>;
export type ApiKey = Item<'listApiKeys'>;
export type Ok = Answer<'revokeApiKey'>;
export type OwnerSession = Answer<'authSignIn'>;
export type SessionsEnded = Answer<'authChangePassword'>;
export type ImportResult = Answer<'importParticipants'>;
/** The 400 of an import with refused rows: the error envelope, with the first 100 of them. */
export type ImportRefusal = Refusal<'importParticipants', 400>;
export type RowProblem = NonNullable<ImportRefusal['error']['rows']>[number];
export type ParticipantDetail = Answer<'getParticipantDetail'>;
export type ParticipantSearchPage = Answer<'searchParticipants'>;
export type ParticipantSummary = Answer<'rejectParticipant'>;
export type SearchParticipantsQuery = QueryOf<'searchParticipants'>;
export type LeaderboardEntry = Item<'getLeaderboard'>;
export type GrantAccessBody = Body<'grantAccess'>;
export type GrantAccessResult = Answer<'grantAccess'>;
export type WaitlistView = Answer<'getWaitlist'>;
export type AddRewardCodesBody = Body<'addRewardCodes'>;
export type RewardCodeKind = QueryOf<'importRewardCodes'>['kind'];
export type RewardCodePool = Item<'listRewardCodePools'>;
export type RewardCodesAdded = Answer<'addRewardCodes'>;
export type RewardEntry = Item<'listRewardEntries'>;
export type RewardLiability = Answer<'getRewardLiability'>;
export type CreateWebhookEndpointBody = Body<'createWebhookEndpoint'>;
export type ListWebhookDeliveriesQuery = QueryOf<'listWebhookDeliveries'>;
export type WebhookDelivery = Item<'listWebhookDeliveries'>;
export type WebhookEndpoint = Item<'listWebhookEndpoints'>;
export type MyReferrals = Answer<'getMyReferrals'>;
export type MyReferral = MyReferrals['referrals'][number];
export type MyRank = NonNullable<MyReferrals['leaderboard']>;
export type ReferralStatus = MyReferral['status'];
export type WidgetSettings = Answer<'getWidgetSettings'>;
export type PromotionCodeOffer = Answer<'getPromotionCode'>;
export type PromotionCodeView = Item<'listPromotionCodes'>;
export type ExchangeRates = NonNullable<Answer<'getExchangeRates'>['exchangeRates']>;
export type SetExchangeRatesBody = Body<'setExchangeRates'>;
export type PaymentEventView = Item<'listPaymentEvents'>;
export type PersonExport = Answer<'exportPerson'>;
export type ErasureResult = Answer<'erasePerson'>;
export type ListStripePayoutsQuery = QueryOf<'listStripePayouts'>;
export type StripeEventView = Item<'listStripeEvents'>;
export type StripePayoutView = Item<'listStripePayouts'>;
export type BacktestRulesBody = Body<'backtestRules'>;
export type BacktestAnswer = Answer<'backtestRules'>;
export type DisputePaymentBody = Body<'disputePayment'>;
export type CloseDisputeBody = Body<'closeDispute'>;
export type DisputeView = Answer<'disputePayment'>;
export type DisputeList = Answer<'listDisputes'>;
export type FraudCaseList = Answer<'listFraudCases'>;
export type FraudCaseView = Answer<'resolveFraudCase'>;
export type ListFraudCasesQuery = QueryOf<'listFraudCases'>;
export type ResolveFraudCaseBody = Body<'resolveFraudCase'>;
export type AdminSetPayoutMethodBody = Body<'setPayoutMethod'>;
export type PayoutMethodView = Answer<'setPayoutMethod'>;
export type CreatePayoutsAnswer = Answer<'createPayouts'>;
export type PayoutsAnswer = Answer<'approvePayouts'>;
export type ListPayoutsQuery = QueryOf<'listPayouts'>;
export type CashPayout = Item<'listPayouts'>;
export type EmailTextsView = Answer<'getEmailSettings'>;
export type UpdateEmailSettingsBody = Body<'updateEmailSettings'>;
export type PutEmailTextBody = Body<'putEmailText'>;
export type EmailTextKey = Body<'resetEmailText'>;
export type PreviewEmailBody = Body<'previewEmail'>;
export type EmailPreview = Answer<'previewEmail'>;
export type TestEmailBody = Body<'sendTestEmail'>;
export type EmailLogQuery = QueryOf<'listEmails'>;
export type EmailLogPage = Answer<'listEmails'>;
export type AuditEntry = Item<'listAuditLog'>;
export type Invitation = Item<'listInvitations'>;
export type Member = Item<'listMembers'>;
export type RemovedMember = Answer<'removeMember'>;
export type RoleName = Body<'inviteMember'>['role'];
export type AccountSettings = Answer<'getAccountSettings'>;
export type UpdateAccountSettingsBody = Body<'updateAccountSettings'>;
import { EMAIL_LINK_REQUEST, LOCALE_HEADER, OUTCOME_HEADERS, PROOF_HEADERS } from './headers.js';

/** What listAuditLog and exportAuditLog may be narrowed to. */
export interface AuditFilters {
  actor?: string;
  action?: string;
  campaignId?: string;
  from?: string;
  to?: string;
}
/** Any failed call. `status` is 0 and `code` is `network_error` when no HTTP answer arrived at all. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly retryAfter?: number,
    /** An import's refused rows (the first 100), when the service named them. */
    readonly rows?: RowProblem[],
  ) {
    super(message);
  }
  get isNetworkError(): boolean {
    return this.status === 0;
  }
}

export interface ClientOptions {
  /** Base address of the service, e.g. `https://refkit.example.com`. */
  baseUrl: string;
  /** Secret key (`sk_...`) for the protected and admin operations. Never put one in a browser. */
  secretKey?: string;
  /**
   * The CSRF token of a dashboard session: sent as `x-csrf-token` on every change. The session itself
   * is the httpOnly cookie, which the browser sends to its own origin.
   */
  csrfToken?: string;
  fetch?: typeof fetch;
}

export interface Paging {
  page?: number;
  pageSize?: number;
  cursor?: string;
}

/** What a browser may send to prove it is the participant whose email it signs up (see docs/privacy.md). */
export interface ParticipantProof {
  /** The participant token this browser was given by an earlier sign-up or emailed link. */
  token?: string;
  /** The host backend's HMAC-SHA256 (hex) of the email with the campaign's signing secret. */
  emailSignature?: string;
  /** Without proof, have the service email the participant a sign-in link (the visitor typed the email). */
  sendLink?: boolean;
}

/** A browser's sign-up or followed link, with what the service said beside the participant. */
export interface SignupAnswer {
  participant: Participant;
  /** `created` now, `existing` already (a referral is never re-assigned), or `pending` email confirmation. */
  outcome: 'created' | 'existing' | 'pending';
  /** A participant token issued to this browser: keep it, and send it back as proof. */
  token?: string;
  /** `sent`: a link was emailed now; `throttled`: one was emailed moments ago. */
  emailLink?: 'sent' | 'throttled';
}

/** One page of a list, with the cursor of the next page when there is one (from the `Link` header). */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

type Query = Record<string, string | number | undefined>;

/**
 * The calls a browser makes, keyless: the widget's client. Kept apart from RefkitClient's secret-key
 * and admin operations so that the widget bundle carries none of them.
 */
export class BrowserClient {
  readonly baseUrl: string;
  readonly #secretKey: string | undefined;
  readonly #csrfToken: string | undefined;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#secretKey = options.secretKey;
    this.#csrfToken = options.csrfToken;
    // Bound so that `window.fetch` is not called with the client as `this` (an "Illegal invocation").
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  // ---- what a browser calls ----

  /** addParticipant as a browser makes it: with proof, and the outcome and token the answer carries. */
  async signUp(body: AddParticipantBody, proof: ParticipantProof = {}, locale?: string): Promise<SignupAnswer> {
    const headers = proofHeaders(proof);
    if (proof.sendLink) headers[EMAIL_LINK_REQUEST.header] = EMAIL_LINK_REQUEST.value;
    if (locale) headers[LOCALE_HEADER] = locale;
    return signupAnswer(await this.send<Participant>('POST', '/api/v1/addParticipant', {}, body, { headers }));
  }
  /** Follows an emailed link (its refkit_verify parameter): confirms a pending sign-up or proves a participant. */
  async verifyEmail(id: string, token: string, locale?: string): Promise<SignupAnswer> {
    const headers: Record<string, string> = locale ? { [LOCALE_HEADER]: locale } : {};
    return signupAnswer(await this.send<Participant>('POST', '/api/v1/verifyEmail', {}, { id, token }, { headers }));
  }
  /** Gives up a participant token (the widget's "Not you?"): POST /api/v1/signOut. */
  revokeToken(id: string, token: string): Promise<Ok> {
    return this.send<Ok>('POST', '/api/v1/signOut', {}, { id }, { headers: { [PROOF_HEADERS.token]: token } }).then((r) => r.body);
  }
  /** What the widget needs beyond the Campaign: the reward's currency or unit, per-channel share messages. */
  getWidgetSettings(id: string): Promise<WidgetSettings> {
    return this.getJson('/api/v1/getWidgetSettings', { id });
  }
  /** The proven participant's own record and referrals, in any campaign state (`email` goes with a signature). */
  getMyReferrals(id: string, proof: Pick<ParticipantProof, 'token' | 'emailSignature'>, email?: string): Promise<MyReferrals> {
    const headers = proofHeaders(proof);
    return this.send<MyReferrals>('POST', '/api/v1/getMyReferrals', {}, email === undefined ? { id } : { id, email }, { headers }).then((r) => r.body);
  }
  /** The campaign's public leaderboard, best first (404 not_found when it has none). */
  getLeaderboard(id: string): Promise<LeaderboardEntry[]> {
    return this.getJson('/api/v1/getLeaderboard', { id });
  }
  getCampaign(id: string): Promise<Campaign> {
    return this.getJson('/api/v1/getCampaign', { id });
  }
  validateCode(campaignId: string, code: string): Promise<boolean> {
    return this.getJson('/api/v1/validateCode', { campaignId, code });
  }
  /** The proven participant chooses their referral code (a vanity code); the old one keeps working. */
  setMyReferralCode(id: string, code: string, proof: Pick<ParticipantProof, 'token' | 'emailSignature'>, email?: string): Promise<Participant> {
    const headers = proofHeaders(proof);
    return this.send<Participant>('POST', '/api/v1/setMyReferralCode', {}, email === undefined ? { id, code } : { id, email, code }, { headers }).then((r) => r.body);
  }
  /** The promotion code a visitor's checkout applies: the referrer's whose code `code` is, with what it takes off. */
  getPromotionCode(campaignId: string, code: string): Promise<PromotionCodeOffer> {
    return this.getJson('/api/v1/getPromotionCode', { campaignId, code });
  }

  // ---- transport ----

  protected getJson<T>(path: string, query: Query): Promise<T> {
    return this.send<T>('GET', path, query).then((r) => r.body);
  }
  protected postJson<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('POST', path, {}, body).then((r) => r.body);
  }

  /** `body` is sent as JSON, unless `contentType` is given: then it is sent as it is (a file, text). */
  protected async send<T>(
    method: string,
    path: string,
    query: Query,
    body?: unknown,
    { headers: extraHeaders = {}, contentType }: { headers?: Record<string, string>; contentType?: string } = {},
  ): Promise<{ body: T; headers: Headers }> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
    if (body !== undefined) headers['content-type'] = contentType ?? 'application/json';
    if (this.#secretKey) headers.authorization = `Bearer ${this.#secretKey}`;
    if (this.#csrfToken && method !== 'GET') headers['x-csrf-token'] = this.#csrfToken;
    const payload = body === undefined ? undefined : contentType ? (body as BodyInit) : JSON.stringify(body);
    let res: Response;
    try {
      res = await this.#fetch(url, { method, headers, body: payload });
    } catch (err) {
      throw new ApiError(0, 'network_error', err instanceof Error ? err.message : 'The service could not be reached');
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      const error = (parsed as Partial<ApiErrorBody | ImportRefusal> | undefined)?.error;
      const retryAfter = Number(res.headers.get('retry-after')) || undefined;
      throw new ApiError(
        res.status,
        error?.code ?? 'http_error',
        error?.message ?? `The service answered ${res.status}`,
        error?.field,
        retryAfter,
        error && 'rows' in error ? error.rows : undefined,
      );
    }
    return { body: parsed as T, headers: res.headers };
  }
}

/** Every operation: the interface's, with a secret key where they need one, and the admin routes. */
export class RefkitClient extends BrowserClient {
  /** A list route's page: the body, and the next page's cursor from the `Link` header. */
  protected async getPage<T>(path: string, query: Query): Promise<Page<T>> {
    const { body, headers } = await this.send<T[]>('GET', path, query);
    const nextCursor = nextCursorFromLink(headers.get('link'));
    return nextCursor ? { items: body, nextCursor } : { items: body };
  }

  // ---- the owner's dashboard ----

  signIn(email: string, password: string): Promise<OwnerSession> {
    return this.postJson('/api/v1/auth/signIn', { email, password });
  }
  getSession(): Promise<OwnerSession> {
    return this.getJson('/api/v1/auth/session', {});
  }
  signOut(): Promise<Ok> {
    return this.send<Ok>('POST', '/api/v1/auth/signOut', {}).then((r) => r.body);
  }
  /** Sets a new password; the owner's other sessions end, this one goes on. */
  changePassword(currentPassword: string, newPassword: string): Promise<SessionsEnded> {
    return this.postJson('/api/v1/auth/changePassword', { currentPassword, newPassword });
  }
  /** Ends every session of the signed-in owner, this one included. */
  signOutEverywhere(): Promise<SessionsEnded> {
    return this.send<SessionsEnded>('POST', '/api/v1/auth/signOutEverywhere', {}).then((r) => r.body);
  }
  listCampaigns(): Promise<CampaignSettings[]> {
    return this.getJson('/api/v1/admin/listCampaigns', {});
  }
  searchParticipants(query: SearchParticipantsQuery): Promise<ParticipantSearchPage> {
    return this.getJson('/api/v1/admin/searchParticipants', { ...query });
  }
  getParticipantDetail(id: string, email: string): Promise<ParticipantDetail> {
    return this.getJson('/api/v1/admin/getParticipantDetail', { id, email });
  }
  rejectParticipant(id: string, email: string): Promise<ParticipantSummary> {
    return this.postJson('/api/v1/admin/rejectParticipant', { id, email });
  }
  getCampaignAnalytics(id: string): Promise<CampaignAnalytics> {
    return this.getJson('/api/v1/admin/getCampaignAnalytics', { id });
  }
  /** The address of a campaign's CSV export (a download link; the session cookie or a key authorises it). */
  exportParticipantsUrl(id: string): string {
    return `${this.baseUrl}/api/v1/admin/exportParticipants?id=${encodeURIComponent(id)}`;
  }
  importParticipants(id: string, csv: Blob | string): Promise<ImportResult> {
    return this.send<ImportResult>('POST', '/api/v1/admin/importParticipants', { id }, csv, { contentType: 'text/csv' }).then((r) => r.body);
  }

  // ---- the interface's operations (getCampaign and validateCode are in BrowserClient) ----

  /** `locale`: the language of a new participant's emails (the Refkit-Locale header). */
  addParticipant(body: AddParticipantBody, locale?: string): Promise<KeyedParticipant> {
    return this.send<KeyedParticipant>('POST', '/api/v1/addParticipant', {}, body, { headers: locale ? { [LOCALE_HEADER]: locale } : {} }).then((r) => r.body);
  }
  getParticipant(id: string, email: string): Promise<Participant> {
    return this.getJson('/api/v1/getParticipant', { id, email });
  }
  async getAllParticipants(id: string, paging: Paging = {}): Promise<Participant[]> {
    return (await this.getAllParticipantsPage(id, paging)).items;
  }
  getAllParticipantsPage(id: string, paging: Paging = {}): Promise<Page<Participant>> {
    return this.getPage('/api/v1/getAllParticipants', { id, ...paging });
  }
  async getReferrals(id: string, email: string, paging: Paging = {}): Promise<Participant[]> {
    return (await this.getReferralsPage(id, email, paging)).items;
  }
  getReferralsPage(id: string, email: string, paging: Paging = {}): Promise<Page<Participant>> {
    return this.getPage('/api/v1/getReferrals', { id, email, ...paging });
  }
  qualifyParticipant(body: QualifyParticipantBody): Promise<KeyedParticipant> {
    return this.postJson('/api/v1/qualifyParticipant', body);
  }

  // ---- admin ----
  createCampaign(body: CreateCampaignBody): Promise<CampaignSettings> {
    return this.postJson('/api/v1/admin/createCampaign', body);
  }
  updateCampaign(body: UpdateCampaignBody): Promise<CampaignSettings> {
    return this.postJson('/api/v1/admin/updateCampaign', body);
  }
  setCampaignStatus(id: string, status: CampaignStatus): Promise<CampaignSettings> {
    return this.postJson('/api/v1/admin/setCampaignStatus', { id, status });
  }
  redeemReward(body: RedeemRewardBody): Promise<Participant> {
    return this.postJson('/api/v1/admin/redeemReward', body);
  }
  async listRewardEntries(id: string, email: string, paging: Paging = {}): Promise<RewardEntry[]> {
    return (await this.listRewardEntriesPage(id, email, paging)).items;
  }
  listRewardEntriesPage(id: string, email: string, paging: Paging = {}): Promise<Page<RewardEntry>> {
    return this.getPage('/api/v1/admin/listRewardEntries', { id, email, ...paging });
  }
  /** Records a refund of a referee's payment; the reward engine takes back what it earned. */
  refundPayment(body: RefundPaymentBody, idempotencyKey?: string): Promise<KeyedParticipant> {
    return this.send<KeyedParticipant>('POST', '/api/v1/admin/refundPayment', {}, body, idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }).then((r) => r.body);
  }
  /** Records a dispute of a referee's payment: what it earned is held or reversed until it closes. */
  disputePayment(body: DisputePaymentBody): Promise<DisputeView> {
    return this.postJson('/api/v1/admin/disputePayment', body);
  }
  /** Closes a dispute: won gives back what it held or reversed, lost is a refund of its amount. */
  closeDispute(body: CloseDisputeBody): Promise<DisputeView> {
    return this.postJson('/api/v1/admin/closeDispute', body);
  }
  listDisputes(id: string, email: string): Promise<DisputeList> {
    return this.getJson('/api/v1/admin/listDisputes', { id, email });
  }
  /** A campaign's fraud cases, newest first (open ones unless `status` says otherwise), each with its signals. */
  listFraudCases(id: string, query: Omit<ListFraudCasesQuery, 'id'> = {}): Promise<FraudCaseList> {
    return this.getJson('/api/v1/admin/listFraudCases', { id, ...query });
  }
  /** Approves or rejects a fraud case as a whole. */
  resolveFraudCase(body: ResolveFraudCaseBody): Promise<FraudCaseView> {
    return this.postJson('/api/v1/admin/resolveFraudCase', body);
  }
  addRewardCodes(body: AddRewardCodesBody, idempotencyKey?: string): Promise<RewardCodesAdded> {
    return this.send<RewardCodesAdded>('POST', '/api/v1/admin/addRewardCodes', {}, body, idempotencyKey === undefined ? {} : { headers: { 'idempotency-key': idempotencyKey } }).then((r) => r.body);
  }
  importRewardCodes(id: string, kind: RewardCodeKind, csv: Blob | string): Promise<RewardCodesAdded> {
    return this.send<RewardCodesAdded>('POST', '/api/v1/admin/importRewardCodes', { id, kind }, csv, { contentType: 'text/csv' }).then((r) => r.body);
  }
  listRewardCodePools(id: string): Promise<RewardCodePool[]> {
    return this.getJson('/api/v1/admin/listRewardCodePools', { id });
  }
  /** What proposed rules would have cost over the campaign's recorded history, beside its current rules (reads only). */
  backtestRules(body: BacktestRulesBody): Promise<BacktestAnswer> {
    return this.postJson('/api/v1/admin/backtestRules', body);
  }

  getRewardLiability(id: string): Promise<RewardLiability> {
    return this.getJson('/api/v1/admin/getRewardLiability', { id });
  }
  exportRewardEntriesUrl(id: string): string {
    return `${this.baseUrl}/api/v1/admin/exportRewardEntries?id=${encodeURIComponent(id)}`;
  }
  listStripeEvents(id: string, status?: StripeEventView['status'], limit?: number): Promise<StripeEventView[]> {
    return this.getJson('/api/v1/admin/listStripeEvents', { id, status, limit });
  }
  /** Gives a participant the referral code they asked for; the old one keeps working as theirs. */
  setReferralCode(id: string, email: string, code: string): Promise<Participant> {
    return this.postJson('/api/v1/admin/setReferralCode', { id, email, code });
  }
  /** The account's exchange rates: units of base per one unit of each currency. */
  setExchangeRates(body: SetExchangeRatesBody): Promise<ExchangeRates & { applied: number }> {
    return this.postJson('/api/v1/admin/setExchangeRates', body);
  }
  getExchangeRates(): Promise<ExchangeRates | null> {
    return this.getJson<{ exchangeRates: ExchangeRates | null }>('/api/v1/admin/getExchangeRates', {}).then((r) => r.exchangeRates);
  }
  /** The payment events a campaign received from every source, newest first. */
  listPaymentEvents(id: string, filter: { provider?: string; status?: PaymentEventView['status']; limit?: number } = {}): Promise<PaymentEventView[]> {
    return this.getJson('/api/v1/admin/listPaymentEvents', { id, ...filter });
  }
  /** Applies an unmatched payment event (`<provider>:<id>`) to a participant. */
  matchPaymentEvent(id: string, eventId: string, email: string): Promise<PaymentEventView> {
    return this.postJson('/api/v1/admin/matchPaymentEvent', { id, eventId, email });
  }
  /** A campaign's Stripe promotion codes with their state, newest first. */
  listPromotionCodes(id: string, status?: PromotionCodeView['status'], limit?: number): Promise<PromotionCodeView[]> {
    return this.getJson('/api/v1/admin/listPromotionCodes', { id, status, limit });
  }
  matchStripeEvent(id: string, eventId: string, email: string): Promise<StripeEventView> {
    return this.postJson('/api/v1/admin/matchStripeEvent', { id, eventId, email });
  }
  /** The rewards a campaign paid (or is paying) into Stripe, newest first. */
  listStripePayouts(id: string, query: Omit<ListStripePayoutsQuery, 'id'> = {}): Promise<StripePayoutView[]> {
    return this.listStripePayoutsPage(id, query).then((p) => p.items);
  }
  listStripePayoutsPage(id: string, query: Omit<ListStripePayoutsQuery, 'id'> = {}): Promise<Page<StripePayoutView>> {
    return this.getPage('/api/v1/admin/listStripePayouts', { id, ...query });
  }
  retryStripePayout(id: string, payoutId: number): Promise<StripePayoutView> {
    return this.postJson('/api/v1/admin/retryStripePayout', { id, payoutId });
  }
  // ---- cash payouts (docs/payouts.md) ----
  setPayoutMethod(body: AdminSetPayoutMethodBody): Promise<PayoutMethodView> {
    return this.postJson('/api/v1/admin/setPayoutMethod', body);
  }
  createPayouts(id: string): Promise<CreatePayoutsAnswer> {
    return this.postJson('/api/v1/admin/createPayouts', { id });
  }
  approvePayouts(id: string, payoutIds: number[]): Promise<PayoutsAnswer> {
    return this.postJson('/api/v1/admin/approvePayouts', { id, payoutIds });
  }
  cancelPayouts(id: string, payoutIds: number[]): Promise<PayoutsAnswer> {
    return this.postJson('/api/v1/admin/cancelPayouts', { id, payoutIds });
  }
  listPayouts(id: string, query: Omit<ListPayoutsQuery, 'id'> = {}): Promise<CashPayout[]> {
    return this.listPayoutsPage(id, query).then((p) => p.items);
  }
  listPayoutsPage(id: string, query: Omit<ListPayoutsQuery, 'id'> = {}): Promise<Page<CashPayout>> {
    return this.getPage('/api/v1/admin/listPayouts', { id, ...query });
  }
  /** Lets in the first `count` of a campaign's waitlist, or the participants with `emails`. */
  grantAccess(body: GrantAccessBody): Promise<GrantAccessResult> {
    return this.postJson('/api/v1/admin/grantAccess', body);
  }
  /** The front of a campaign's waitlist (positions from 1) and its counts. */
  getWaitlist(id: string, limit?: number): Promise<WaitlistView> {
    return this.getJson('/api/v1/admin/getWaitlist', { id, ...(limit !== undefined && { limit }) });
  }
  /** Moves a test campaign's time forward, as if the time had passed (test mode). */
  advanceClock(body: AdvanceClockBody): Promise<CampaignClock> {
    return this.postJson('/api/v1/admin/advanceClock', body);
  }
  getCampaignClock(id: string): Promise<CampaignClock> {
    return this.getJson('/api/v1/admin/getCampaignClock', { id });
  }
  approveParticipant(id: string, email: string): Promise<Participant> {
    return this.postJson('/api/v1/admin/approveParticipant', { id, email });
  }
  getSigningSecret(id: string): Promise<{ secret: string }> {
    return this.postJson('/api/v1/admin/getSigningSecret', { id });
  }
  rotateSigningSecret(id: string): Promise<{ secret: string }> {
    return this.postJson('/api/v1/admin/rotateSigningSecret', { id });
  }
  revokeParticipantTokens(id: string, email: string): Promise<{ revoked: number }> {
    return this.postJson('/api/v1/admin/revokeParticipantTokens', { id, email });
  }
  /** Everything stored about an email across the account's campaigns (docs/privacy.md). */
  exportPerson(email: string): Promise<PersonExport> {
    return this.getJson('/api/v1/admin/exportPerson', { email });
  }
  /** Erases a person's data across the account's campaigns; their participants read as "Deleted participant". */
  erasePerson(email: string): Promise<ErasureResult> {
    return this.postJson('/api/v1/admin/erasePerson', { email });
  }
  /** `test`: a test key (sk_test_...), which sees test campaigns only (test mode). */
  createApiKey(name: string, test?: boolean): Promise<ApiKey & { key: string }> {
    return this.postJson('/api/v1/admin/createApiKey', { name, ...(test !== undefined && { test }) });
  }
  revokeApiKey(id: string): Promise<Ok> {
    return this.postJson('/api/v1/admin/revokeApiKey', { id });
  }
  listApiKeys(): Promise<ApiKey[]> {
    return this.getJson('/api/v1/admin/listApiKeys', {});
  }

  // ---- the team and the audit log (docs/team.md) ----

  listMembers(): Promise<Member[]> {
    return this.getJson('/api/v1/admin/listMembers', {});
  }
  listInvitations(): Promise<Invitation[]> {
    return this.getJson('/api/v1/admin/listInvitations', {});
  }
  inviteMember(email: string, role: RoleName): Promise<Invitation> {
    return this.postJson('/api/v1/admin/inviteMember', { email, role });
  }
  revokeInvitation(id: string): Promise<Invitation> {
    return this.postJson('/api/v1/admin/revokeInvitation', { id });
  }
  changeMemberRole(email: string, role: RoleName): Promise<Member> {
    return this.postJson('/api/v1/admin/changeMemberRole', { email, role });
  }
  /** Removes a member; answers the keys they made (revoked with `revokeKeys`). */
  removeMember(email: string, revokeKeys?: boolean): Promise<RemovedMember> {
    return this.postJson('/api/v1/admin/removeMember', { email, ...(revokeKeys !== undefined && { revokeKeys }) });
  }
  acceptInvitation(token: string, password: string): Promise<OwnerSession> {
    return this.postJson('/api/v1/auth/acceptInvitation', { token, password });
  }
  listAuditLogPage(filters: AuditFilters = {}, paging: Paging = {}): Promise<Page<AuditEntry>> {
    return this.getPage('/api/v1/admin/listAuditLog', { ...filters, ...paging });
  }
  /** The address of the audit log's CSV with these filters (the dashboard's download link). */
  exportAuditLogUrl(filters: AuditFilters = {}): string {
    const q = new URLSearchParams(Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
    return `${this.baseUrl}/api/v1/admin/exportAuditLog${q.size ? `?${q}` : ''}`;
  }
  createWebhookEndpoint(body: CreateWebhookEndpointBody): Promise<WebhookEndpoint & { secret: string }> {
    return this.postJson('/api/v1/admin/createWebhookEndpoint', body);
  }
  listWebhookEndpoints(): Promise<WebhookEndpoint[]> {
    return this.getJson('/api/v1/admin/listWebhookEndpoints', {});
  }
  deleteWebhookEndpoint(id: string): Promise<Ok> {
    return this.postJson('/api/v1/admin/deleteWebhookEndpoint', { id });
  }
  listWebhookDeliveries(query: ListWebhookDeliveriesQuery = {}): Promise<WebhookDelivery[]> {
    return this.getJson('/api/v1/admin/listWebhookDeliveries', { ...query });
  }
  redeliverWebhook(id: string): Promise<Ok> {
    return this.postJson('/api/v1/admin/redeliverWebhook', { id });
  }

  // ---- the account's settings ----

  getAccountSettings(): Promise<AccountSettings> {
    return this.getJson('/api/v1/admin/getAccountSettings', {});
  }
  updateAccountSettings(body: UpdateAccountSettingsBody): Promise<AccountSettings> {
    return this.postJson('/api/v1/admin/updateAccountSettings', body);
  }

  // ---- lifecycle emails ----

  getEmailSettings(id: string): Promise<EmailTextsView> {
    return this.getJson('/api/v1/admin/getEmailSettings', { id });
  }
  updateEmailSettings(body: UpdateEmailSettingsBody): Promise<EmailTextsView> {
    return this.postJson('/api/v1/admin/updateEmailSettings', body);
  }
  putEmailText(body: PutEmailTextBody): Promise<EmailTextsView> {
    return this.postJson('/api/v1/admin/putEmailText', body);
  }
  resetEmailText(key: EmailTextKey): Promise<EmailTextsView> {
    return this.postJson('/api/v1/admin/resetEmailText', key);
  }
  previewEmail(body: PreviewEmailBody): Promise<EmailPreview> {
    return this.postJson('/api/v1/admin/previewEmail', body);
  }
  sendTestEmail(body: TestEmailBody): Promise<Ok> {
    return this.postJson('/api/v1/admin/sendTestEmail', body);
  }
  listEmails(query: EmailLogQuery): Promise<EmailLogPage> {
    return this.getJson('/api/v1/admin/listEmails', { ...query });
  }
}

/** The request headers that carry a browser's proof of being a participant. */
function proofHeaders(proof: Pick<ParticipantProof, 'token' | 'emailSignature'>): Record<string, string> {
  const headers: Record<string, string> = {};
  if (proof.token) headers[PROOF_HEADERS.token] = proof.token;
  if (proof.emailSignature) headers[PROOF_HEADERS.emailSignature] = proof.emailSignature;
  return headers;
}

function signupAnswer({ body, headers }: { body: Participant; headers: Headers }): SignupAnswer {
  const outcome = headers.get(OUTCOME_HEADERS.signup);
  const token = headers.get(PROOF_HEADERS.token);
  const emailLink = headers.get(OUTCOME_HEADERS.emailLink);
  return {
    participant: body,
    outcome: outcome === 'existing' || outcome === 'pending' ? outcome : 'created',
    ...(token && { token }),
    ...((emailLink === 'sent' || emailLink === 'throttled') && { emailLink }),
  };
}

/** Reads the `cursor` of the `rel="next"` target of a `Link` header, if any. */
export function nextCursorFromLink(link: string | null): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = /<([^>]*)>\s*;\s*rel="?next"?/.exec(part);
    if (m?.[1]) return new URL(m[1], 'http://x').searchParams.get('cursor') ?? undefined;
  }
  return undefined;
}
