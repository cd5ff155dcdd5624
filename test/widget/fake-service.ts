/**
 * A stand-in for the service in widget unit tests: window.fetch is replaced by a router over the
 * interface's paths, each answered by a handler the test sets; every call is recorded.
 */
import type { Campaign, Participant, WidgetSettings } from '../../src/api/client.js';
import type { RewardRules } from '../../src/api/schemas.js';
import type { MyRewards } from '../../src/api/widget-schemas.js';
import { setLocale } from '../../src/widget/i18n.js';

export type Handler = (url: URL, body: unknown) => Response | Promise<Response>;

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
export const apiError = (status: number, code: string, message = code, field?: string, headers: Record<string, string> = {}) =>
  json({ error: field ? { code, message, field } : { code, message } }, status, headers);
/** What fetch does when no answer arrives (server down, connection lost, CORS refused). */
export const noAnswer = (): never => {
  throw new TypeError('Failed to fetch');
};

export const campaign: Campaign = {
  campaignId: 'cmp_1',
  campaignName: 'Acme launch',
  status: 'Active',
  paused: false,
  ended: false,
  hostURL: 'https://acme.example/join',
  rewardHeader: 'Give $5, get $10',
  rewardDescription: 'Friends get $5 when they start a plan.',
  shareHeader: 'Share your link',
  shareDescription: 'Send it to a friend.',
  referrerRewardValue: 10,
  refereeRewardValue: 5,
  rewardType: 'credit',
  participants: 3,
};

export const settings: WidgetSettings = { campaignId: 'cmp_1', rewardCurrency: 'USD', shareMessages: {} };

/** A campaign's reward rules with none in effect (what a service with the reward engine answers by default). */
export const noRules: RewardRules = { referrerRewardPercent: 0, commissionPayments: 0, milestones: [], maxReferralReward: null, holdDays: 0 };

/** Widget settings with reward rules: `rules` replaces the ones given of noRules. */
export const settingsWithRules = (rules: Partial<RewardRules>): WidgetSettings => ({ ...settings, rules: { ...noRules, ...rules } });

/** getMyReferrals' `rewards` of a participant with nothing pending, owed or reached (and no milestones). */
export const noRewards: MyRewards = { pending: [], owed: { referral: 0, referee: 0 }, milestones: { qualifiedReferrals: 0, reached: [], next: null } };

/** A participant's `rewards`, each part given replacing noRewards' own. */
export const myRewards = (extra: Partial<MyRewards>): MyRewards => ({ ...noRewards, ...extra });

export function participant(email: string, extra: Partial<Participant> = {}): Participant {
  return {
    email,
    referralCode: 'MYCODE23',
    campaignId: 'cmp_1',
    shareLink: 'https://acme.example/join?id=cmp_1&referralCode=MYCODE23',
    totalReferrals: 2,
    referralReward: 20,
    referralRewardRedeemed: 0,
    referralRewardBalance: 20,
    refereeReward: 5,
    refereeRewardRedeemed: 0,
    refereeRewardBalance: 5,
    rewardEventCompleted: false,
    fraudScore: 'low',
    ...extra,
  };
}

export interface FakeService {
  routes: Record<string, Handler>;
  calls: { path: string; url: URL; body: unknown; headers: Headers }[];
  restore(): void;
}

export function fakeService(routes: Record<string, Handler> = {}): FakeService {
  const original = window.fetch;
  const service: FakeService = {
    routes: {
      '/api/v1/getCampaign': () => json(campaign),
      '/api/v1/getWidgetSettings': () => json(settings),
      // Without a route set by the test, no proof is good enough (as the service answers without one).
      '/api/v1/getMyReferrals': () => apiError(401, 'unauthorized'),
      '/api/v1/validateCode': () => json(true),
      '/api/v1/addParticipant': (_url, body) => json(participant((body as { email: string }).email)),
      ...routes,
    },
    calls: [],
    restore: () => {
      window.fetch = original;
    },
  };
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const body: unknown = init?.body ? JSON.parse(String(init.body)) : undefined;
    service.calls.push({ path: url.pathname, url, body, headers: new Headers(init?.headers) });
    const handler = service.routes[url.pathname];
    if (!handler) return apiError(404, 'not_found');
    return handler(url, body);
  };
  return service;
}

/** A promise the test resolves later: to hold the widget in a state. */
export function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * The fake service of a test file, fresh for each test (with empty storage) and restored after it, the
 * widget's language back to English: `const service = fakeServicePerTest()`, then `service().routes`.
 */
export function fakeServicePerTest(): () => FakeService {
  let current: FakeService | undefined;
  beforeEach(() => {
    localStorage.clear();
    current = fakeService();
  });
  afterEach(async () => {
    current?.restore();
    await setLocale('en');
  });
  return () => current!;
}
