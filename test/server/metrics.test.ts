/**
 * Prometheus metrics (docs/operate.md#monitoring): off unless configured, the text only for the bearer
 * token (401 in the envelope otherwise), or on a listener of its own; requests by route pattern; database
 * time and SQLite's batches; outbox backlogs and scheduler lag read at scrape; deliveries by result; the
 * business counters by campaign, counted once committed; rate-limit refusals. On both databases.
 * prometheus.test.ts scrapes a real `refkit serve` with Prometheus itself.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { DEFAULT_RATE_LIMITS } from '../../src/server/http/rate-limit.js';
import { listenForMetrics } from '../../src/server/operations/routes/metrics-listener.js';
import { ServiceMetrics } from '../../src/server/operations/domain/service-metrics.js';
import { MonitoringStore } from '../../src/server/operations/store/monitoring-store.js';
import { databaseKinds } from './helpers/databases.js';
import { families, valueOf } from './helpers/prometheus-text.js';
import { freePort, waitFor } from './helpers/receiver.js';
import { startMailbox, type Mailbox } from './helpers/smtp.js';
import { ROOT } from './helpers/root.js';
import { startService, type ServiceOptions, type TestService } from './helpers/service.js';

const kinds = await databaseKinds();
const TOKEN = 'metrics-token-0123456789abcdefXYZ';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function scrape(s: TestService): Promise<string> {
  const res = await fetch(`${s.url}/metrics`, { headers: bearer(TOKEN) });
  assert.equal(res.status, 200, await res.clone().text());
  return res.text();
}

describe('metrics: configuration', () => {
  it('are off unless METRICS_TOKEN or METRICS_BIND is set', () => {
    assert.equal(loadConfig({}).metrics, undefined);
    assert.deepEqual(loadConfig({ METRICS_TOKEN: TOKEN }).metrics, { token: TOKEN });
    assert.deepEqual(loadConfig({ METRICS_BIND: '127.0.0.1:9464' }).metrics, { bind: { host: '127.0.0.1', port: 9464 } });
    assert.deepEqual(loadConfig({ METRICS_BIND: '[::1]:9464', METRICS_TOKEN: TOKEN }).metrics, { token: TOKEN, bind: { host: '::1', port: 9464 } });
    assert.deepEqual(loadConfig({ METRICS_BIND: 'metrics.internal:9464' }).metrics, { bind: { host: 'metrics.internal', port: 9464 } });
  });

  it('refuses a short token and an address that is no host:port', () => {
    assert.throws(() => loadConfig({ METRICS_TOKEN: 'short' }), (e: unknown) => e instanceof ConfigError && /METRICS_TOKEN must be at least 24/.test(e.message));
    assert.throws(() => loadConfig({ METRICS_TOKEN: `${TOKEN} with spaces` }), ConfigError);
    assert.throws(() => loadConfig({ METRICS_TOKEN: TOKEN, WORKERS: '2' }), (e: unknown) => e instanceof ConfigError && /need WORKERS=1/.test(e.message));
    assert.equal(loadConfig({ WORKERS: '2' }).metrics, undefined);
    for (const bad of ['9464', '127.0.0.1', '127.0.0.1:99999', ':9464', 'host:port', '[::1]9464']) {
      assert.throws(() => loadConfig({ METRICS_BIND: bad }), (e: unknown) => e instanceof ConfigError && /METRICS_BIND must be host:port/.test(e.message), bad);
    }
  });
});

describe('metrics: a scrape whose database reads fail', () => {
  it('leaves the database’s series out, answers the rest, and has them back once the database answers', async (t) => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    t.after(() => process.off('warning', onWarning));
    const metrics = new ServiceMetrics();
    let down = true;
    const empty = { pending: 3, oldestCreatedOn: 1_000, earliestDueOn: null };
    metrics.watch({
      monitoring: {
        backlogs: async () => {
          if (down) throw new Error('connection refused');
          return { webhooks: empty, emails: empty, stripe_payouts: empty };
        },
        earliestHeldReward: async () => null,
      } as unknown as MonitoringStore,
      waiting: () => 0,
      now: () => 61_000,
    });
    metrics.signedUp('cmp_a', false);
    let text = await metrics.text();
    assert.equal(valueOf(text, 'refkit_signups_total', { campaign: 'cmp_a' }), 1);
    assert.doesNotMatch(text, /^refkit_outbox_pending\{/m, 'no stale backlog');
    assert.doesNotMatch(text, /^refkit_scheduler_lag_seconds\{/m);
    await waitFor(() => warnings.some((w) => /could not read the outboxes: connection refused/.test(w)), 'the warning');
    down = false;
    text = await metrics.text();
    assert.equal(valueOf(text, 'refkit_outbox_pending', { outbox: 'webhooks' }), 3);
    assert.equal(valueOf(text, 'refkit_outbox_oldest_pending_age_seconds', { outbox: 'emails' }), 60);
  });
});

for (const kind of kinds) {
  describe(`metrics [${kind.name}]`, { skip: kind.skip }, () => {
    describe('off by default', () => {
      let s: TestService;
      before(async () => (s = await startService(kind)));
      after(() => s.close());

      it('GET /metrics is 404 in the envelope (and a bearer is a wrong secret key, as on any path)', async () => {
        const res = await fetch(`${s.url}/metrics`);
        assert.equal(res.status, 404);
        assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'not_found');
        assert.equal((await fetch(`${s.url}/metrics`, { headers: bearer(TOKEN) })).status, 401);
        assert.equal(s.ctx.metrics, undefined, 'the domain reports to no one');
      });
    });

    describe('with a token', () => {
      let s: TestService;
      let now = Date.now();
      const options: ServiceOptions = {
        metrics: { token: TOKEN },
        now: () => now,
        // Wrong keys refused past the first, so that a refusal can be counted.
        rateLimits: { ...DEFAULT_RATE_LIMITS, keyFailuresPerIp: 1, signupsPerIp: 0, redisUrl: undefined },
      };
      before(async () => (s = await startService(kind, options)));
      after(() => s.close());

      it('answers 401 in the envelope without the token, or with a wrong one (a secret key included), and changes nothing', async () => {
        for (const headers of [{}, bearer('wrong-token-0123456789abcdef'), bearer(s.secretKey), { authorization: TOKEN }]) {
          const res = await fetch(`${s.url}/metrics`, { headers });
          assert.equal(res.status, 401, JSON.stringify(headers));
          assert.deepEqual(await res.json(), { error: { code: 'unauthorized', message: 'A valid metrics token is required: Authorization: Bearer <METRICS_TOKEN>' } });
        }
        // The token is no secret key: the API refuses it.
        const api = await fetch(`${s.url}/api/v1/listApiKeys`, { headers: bearer(TOKEN) });
        assert.equal(api.status, 401);
      });

      it('answers the token with the Prometheus text format: every family declared, process metrics included', async () => {
        const res = await fetch(`${s.url}/metrics`, { headers: bearer(TOKEN) });
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4; charset=utf-8$/);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        const text = await res.text();
        const declared = families(text);
        for (const name of [
          'refkit_http_requests_total',
          'refkit_http_request_duration_seconds',
          'refkit_db_query_duration_seconds',
          'refkit_db_pool_wait_seconds',
          'refkit_db_pool_waiting',
          'refkit_sqlite_group_commit_batch_units',
          'refkit_outbox_pending',
          'refkit_outbox_oldest_pending_age_seconds',
          'refkit_outbox_attempts_total',
          'refkit_scheduler_lag_seconds',
          'refkit_signups_total',
          'refkit_qualifications_total',
          'refkit_reward_credits_total',
          'refkit_reward_reversals_total',
          'refkit_fraud_holds_total',
          'refkit_rate_limit_refusals_total',
          'process_cpu_seconds_total',
          'nodejs_eventloop_lag_seconds',
        ]) {
          assert.ok(declared.has(name.replace(/_total$/, '')) || declared.has(name), `${name} is declared`);
        }
        // Known label values are there from the start, at zero, so that alerts read 0 rather than nothing.
        assert.equal(valueOf(text, 'refkit_outbox_pending', { outbox: 'webhooks' }), 0);
        assert.match(text, /^refkit_outbox_attempts_total\{outbox="emails",result="failed"\} 0$/m);
        assert.match(text, /^refkit_scheduler_lag_seconds\{job="reward_release"\} 0$/m);
        // HEAD is answered too (Fastify's, from the GET route).
        assert.equal((await fetch(`${s.url}/metrics`, { method: 'HEAD', headers: bearer(TOKEN) })).status, 200);
      });

      it('labels requests by route pattern and status, never by the URL asked for', async () => {
        const id = await s.campaign();
        for (const q of ['a', 'b', 'c']) await fetch(`${s.url}/api/v1/getCampaign?id=${id}&x=${q}`);
        await fetch(`${s.url}/api/v1/getCampaign?id=cmp_nobody`);
        await fetch(`${s.url}/no/such/path/${Date.now()}`);
        const text = await scrape(s);
        assert.equal(valueOf(text, 'refkit_http_requests_total', { route: '/api/v1/getCampaign', method: 'GET', status: '200' }), 3);
        assert.equal(valueOf(text, 'refkit_http_requests_total', { route: '/api/v1/getCampaign', method: 'GET', status: '404' }), 1);
        assert.equal(valueOf(text, 'refkit_http_requests_total', { route: 'unmatched', status: '404' }), 1);
        assert.equal(valueOf(text, 'refkit_http_request_duration_seconds_count', { route: '/api/v1/getCampaign', method: 'GET' }), 4);
        assert.doesNotMatch(text, /cmp_nobody|no\/such\/path/, 'no URL is a label');
      });

      it('times the database statements and waits; on SQLite, counts the units of each group commit', async () => {
        await s.campaign();
        const text = await scrape(s);
        assert.ok(valueOf(text, 'refkit_db_query_duration_seconds_count') > 0);
        assert.ok(valueOf(text, 'refkit_db_query_duration_seconds_sum') > 0);
        assert.ok(valueOf(text, 'refkit_db_pool_wait_seconds_count') > 0);
        assert.equal(valueOf(text, 'refkit_db_pool_waiting'), 0);
        const batches = valueOf(text, 'refkit_sqlite_group_commit_batch_units_count');
        if (kind.dialect === 'sqlite') {
          assert.ok(batches > 0, 'batches committed');
          assert.ok(valueOf(text, 'refkit_sqlite_group_commit_batch_units_sum') >= batches, 'each batch has a unit or more');
        } else {
          assert.equal(batches, 0, 'PostgreSQL has no group commit');
        }
      });

      it('counts sign-ups, qualifications, credits, reversals and fraud holds by campaign, only once committed', async () => {
        const id = await s.campaign();
        const other = await s.campaign();
        const referrer = await s.admin.addParticipant({ id, email: 'ref@example.com' });
        await s.admin.addParticipant({ id, email: 'friend@example.com', referredByCode: referrer.referralCode! });
        await s.admin.addParticipant({ id: other, email: 'elsewhere@example.com' });
        // An existing email creates no one.
        await s.admin.addParticipant({ id, email: 'ref@example.com' });
        // A call that fails changes nothing: an unreferred participant cannot qualify.
        await assert.rejects(s.admin.qualifyParticipant({ id, email: 'ref@example.com' }));
        await s.admin.qualifyParticipant({ id, email: 'friend@example.com', amountPaid: '20.00' });
        // A second qualifying payment is no second qualification.
        await s.admin.qualifyParticipant({ id, email: 'friend@example.com', amountPaid: '5.00' });
        let text = await scrape(s);
        assert.equal(valueOf(text, 'refkit_signups_total', { campaign: id }), 2);
        assert.equal(valueOf(text, 'refkit_signups_total', { campaign: other }), 1);
        assert.equal(valueOf(text, 'refkit_qualifications_total', { campaign: id }), 1);
        assert.equal(valueOf(text, 'refkit_reward_credits_total', { campaign: id }), 2, 'the referrer’s and the referee’s');
        assert.equal(valueOf(text, 'refkit_reward_reversals_total', { campaign: id }), 0);
        assert.equal(valueOf(text, 'refkit_fraud_holds_total', { campaign: id }), 0);

        await s.admin.refundPayment({ id, email: 'friend@example.com', amount: '25.00' });
        const entries = [...(await s.admin.listRewardEntries(id, 'ref@example.com')), ...(await s.admin.listRewardEntries(id, 'friend@example.com'))];
        text = await scrape(s);
        assert.equal(valueOf(text, 'refkit_reward_reversals_total', { campaign: id }), entries.filter((e) => e.kind === 'reversal').length);
        assert.equal(valueOf(text, 'refkit_reward_credits_total', { campaign: id }), entries.filter((e) => e.amount > 0 && e.kind !== 'reversal').length);

        // Two browsers of one network, the second through the first's link: fraud scoring holds it.
        const held = await s.campaign();
        const first = await s.browser.signUp({ id: held, email: 'first@example.com' });
        await s.browser.signUp({ id: held, email: 'second@example.com', referredByCode: first.participant.referralCode! });
        text = await scrape(s);
        assert.equal(valueOf(text, 'refkit_signups_total', { campaign: held }), 2);
        assert.equal(valueOf(text, 'refkit_fraud_holds_total', { campaign: held }), 1);
      });

      it('reads each outbox’s backlog and the schedulers’ lag at the scrape, from the database', async () => {
        now = Date.now();
        const id = await s.campaign({ holdDays: 1 } as never);
        // No dispatcher runs in this service: deliveries wait.
        await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['referrer_added', 'referee_added'] });
        const referrer = await s.admin.addParticipant({ id, email: 'hold-ref@example.com' });
        await s.admin.addParticipant({ id, email: 'hold-friend@example.com', referredByCode: referrer.referralCode! });
        await s.admin.qualifyParticipant({ id, email: 'hold-friend@example.com' });
        let text = await scrape(s);
        const pending = valueOf(text, 'refkit_outbox_pending', { outbox: 'webhooks' });
        assert.ok(pending >= 2, `two events wait (${pending})`);
        assert.equal(valueOf(text, 'refkit_scheduler_lag_seconds', { job: 'reward_release' }), 0, 'the held credits are not due for a day');

        now += 2 * 86_400_000;
        text = await scrape(s);
        const day = 86_400;
        assert.ok(valueOf(text, 'refkit_outbox_oldest_pending_age_seconds', { outbox: 'webhooks' }) >= 2 * day);
        assert.ok(valueOf(text, 'refkit_scheduler_lag_seconds', { job: 'webhooks' }) >= 2 * day);
        const late = valueOf(text, 'refkit_scheduler_lag_seconds', { job: 'reward_release' });
        assert.ok(late >= day - 60 && late <= day + 60, `the hold ended a day ago (${late} s)`);
        assert.equal(valueOf(text, 'refkit_outbox_pending', { outbox: 'emails' }), 0);
        now = Date.now();
      });

      it('counts rate-limit refusals by limit', async () => {
        const refused = async () => valueOf(await scrape(s), 'refkit_rate_limit_refusals_total', { limit: 'key_failures_per_ip' });
        const wrong = { headers: bearer('sk_wrong_wrong_wrong_wrong') };
        // The one wrong key allowed may have been used by an earlier test; past it, each is refused.
        await fetch(`${s.url}/api/v1/listApiKeys`, wrong);
        const before = await refused();
        assert.equal((await fetch(`${s.url}/api/v1/listApiKeys`, wrong)).status, 429);
        assert.equal((await fetch(`${s.url}/api/v1/listApiKeys`, wrong)).status, 429);
        assert.equal(await refused(), before + 2);
        assert.equal(valueOf(await scrape(s), 'refkit_rate_limit_refusals_total', { limit: 'per_ip' }), 0);
      });

      it('serves a listener of its own (METRICS_BIND), with or without the token, and nothing else there', async () => {
        const open = await listenForMetrics(s.metrics!, { host: '127.0.0.1', port: 0 }, undefined);
        const guarded = await listenForMetrics(s.metrics!, { host: '127.0.0.1', port: await freePort() }, TOKEN);
        try {
          const res = await fetch(`${open.listeningOrigin}/metrics`);
          assert.equal(res.status, 200);
          assert.ok(families(await res.text()).has('refkit_signups_total'));
          const other = await fetch(`${open.listeningOrigin}/api/v1/getCampaign?id=x`);
          assert.equal(other.status, 404);
          assert.equal(((await other.json()) as { error: { code: string } }).error.code, 'not_found');
          assert.equal((await fetch(`${guarded.listeningOrigin}/metrics`)).status, 401);
          assert.equal((await fetch(`${guarded.listeningOrigin}/metrics`, { headers: bearer(TOKEN) })).status, 200);
        } finally {
          await open.close();
          await guarded.close();
        }
      });

      it('the Grafana dashboard queries only metrics the service exposes', async () => {
        const dashboard = JSON.parse(readFileSync(`${ROOT}/docs/ops/grafana-dashboard.json`, 'utf8')) as { panels: { targets: { expr: string }[] }[] };
        const exprs = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr));
        assert.ok(exprs.length >= 15);
        const declared = families(await scrape(s));
        const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\b((?:refkit|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!)));
        for (const name of used) {
          const family = name.replace(/_(bucket|sum|count)$/, '');
          assert.ok(declared.has(family) || declared.has(name) || declared.has(name.replace(/_total$/, '')), `${name} (dashboard) is exposed`);
        }
      });

      it('reads a large outbox from its index of unsent rows', async (t) => {
        const db = s.ctx.store.db;
        // 20,000 deliveries already sent and 2,000 waiting, each of an event of its own.
        const { id: endpoint } = await db.selectFrom('webhook_endpoints').select(['id']).executeTakeFirstOrThrow();
        const { id: campaign } = await db.selectFrom('campaigns').select(['id']).executeTakeFirstOrThrow();
        const bulk = async (status: 'pending' | 'delivered', from: number) => {
          const ids = Array.from({ length: 1000 }, (_, i) => `bulk_${from + i}`);
          await db.insertInto('webhook_events').values(ids.map((id) => ({ id: `whe_${id}`, account_id: 1, campaign_id: campaign, event_type: 'referrer_added', payload: '{}', created_on: now }))).execute();
          await db
            .insertInto('webhook_deliveries')
            .values(ids.map((id) => ({ id: `whd_${id}`, event_id: `whe_${id}`, endpoint_id: endpoint, status, next_attempt_on: status === 'pending' ? now : null, created_on: now, updated_on: now })))
            .execute();
        };
        for (let i = 0; i < 20; i++) await bulk('delivered', i * 1000);
        for (let i = 0; i < 2; i++) await bulk('pending', 100_000 + i * 1000);
        const monitoring = new MonitoringStore(db);
        const started = performance.now();
        const { webhooks } = await monitoring.backlogs();
        t.diagnostic(`backlogs() with 2,000 pending of 22,000 deliveries: ${(performance.now() - started).toFixed(1)} ms`);
        assert.ok(webhooks.pending >= 2000);
        const query = 'select count(*), min(created_on), min(next_attempt_on) from webhook_deliveries where status = \'pending\'';
        if (kind.dialect === 'sqlite') {
          const plan = await sql.raw<{ detail: string }>(`explain query plan ${query}`).execute(db);
          assert.match(plan.rows.map((r) => r.detail).join('\n'), /USING INDEX webhook_deliveries_due/);
        } else {
          await sql`analyze webhook_deliveries`.execute(db);
          const plan = await sql.raw<{ 'QUERY PLAN': string }>(`explain ${query}`).execute(db);
          assert.match(plan.rows.map((r) => r['QUERY PLAN']).join('\n'), /webhook_deliveries_due/);
        }
      });
    });

    describe('deliveries by result', () => {
      let s: TestService;
      let mailbox: Mailbox;
      before(async () => {
        mailbox = await startMailbox();
        s = await startService(kind, {
          metrics: { token: TOKEN },
          dispatcher: { pollMs: 20, retryDelaysMs: [10] },
          smtpUrl: mailbox.url,
          mail: { pollMs: 30, retryDelaysMs: [50, 50], leaseMs: 5_000 },
        });
      });
      after(async () => {
        await s.close();
        await mailbox.close();
      });

      it('counts each lifecycle email: sent, and a refused one retried before it is sent', async () => {
        const id = await s.campaign();
        const emails = (t: string, result: string) => valueOf(t, 'refkit_outbox_attempts_total', { outbox: 'emails', result });
        await s.admin.addParticipant({ id, email: 'welcome@example.com' });
        await mailbox.to('welcome@example.com', 1);
        await waitFor(async () => emails(await scrape(s), 'sent') === 1, 'the welcome email counted as sent');
        mailbox.refuse(1);
        await s.admin.addParticipant({ id, email: 'refused@example.com' });
        await mailbox.to('refused@example.com', 1);
        const text = await waitFor(async () => {
          const t = await scrape(s);
          return emails(t, 'sent') === 2 && valueOf(t, 'refkit_outbox_pending', { outbox: 'emails' }) === 0 && t;
        }, 'the refused email sent on its retry');
        assert.equal(emails(text, 'retry'), 1);
        assert.equal(emails(text, 'failed'), 0);
      });

      it('counts each webhook attempt: a retry, then failed for good', async () => {
        const id = await s.campaign();
        await s.admin.createWebhookEndpoint({ url: 'http://127.0.0.1:9/hooks', eventTypes: ['referrer_added'] });
        await s.admin.addParticipant({ id, email: 'one@example.com' });
        const text = await waitFor(async () => {
          const t = await scrape(s);
          // A scrape reads the backlog before it writes the counters out: an attempt may end between the two.
          return valueOf(t, 'refkit_outbox_attempts_total', { outbox: 'webhooks', result: 'failed' }) >= 1 && valueOf(t, 'refkit_outbox_pending', { outbox: 'webhooks' }) === 0 && t;
        }, 'the delivery to fail for good, and leave the backlog');
        assert.equal(valueOf(text, 'refkit_outbox_attempts_total', { outbox: 'webhooks', result: 'retry' }), 1);
        assert.equal(valueOf(text, 'refkit_outbox_attempts_total', { outbox: 'webhooks', result: 'failed' }), 1);
        assert.equal(valueOf(text, 'refkit_outbox_attempts_total', { outbox: 'webhooks', result: 'delivered' }), 0);
      });
    });
  });
}
