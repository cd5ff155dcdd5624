/**
 * Prometheus itself against `refkit serve` (docs/operate.md#monitoring): Debian's `prometheus` scrapes the
 * service every second with the bearer token, and what the service did is read back through Prometheus's
 * own query API. `promtool` checks docs/ops/alerts.yml. Needs prometheus and promtool (test/requirements.ts).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RefkitClient } from '../../src/api/client.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { startProcess, type ServiceProcess } from './helpers/process.js';
import { freePort, waitFor } from './helpers/receiver.js';
import { ROOT } from './helpers/root.js';

const kinds = await databaseKinds();
const KEY = 'sk_prometheus_test_key_0123456789abcdefghij';
const TOKEN = 'prometheus-scrape-token-0123456789';

it('promtool accepts the shipped alert rules', () => {
  const run = spawnSync('promtool', ['check', 'rules', join(ROOT, 'docs/ops/alerts.yml')], { encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /SUCCESS: 4 rules found/);
});

/** Prometheus scraping `target` (host:port) every second with the token, listening on a port of its own. */
async function startPrometheus(target: string, dir: string): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const config = join(dir, 'prometheus.yml');
  writeFileSync(
    config,
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: refkit',
      '    metrics_path: /metrics',
      '    authorization:',
      `      credentials: ${TOKEN}`,
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const child = spawn('prometheus', [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/-/ready`).catch(() => undefined))?.ok, `Prometheus to be ready:\n${out}`, 30_000);
  return { url, child, output: () => out };
}

/** The value of an instant query that yields one sample, or undefined while it yields none. */
async function query(prometheus: string, expr: string): Promise<number | undefined> {
  const res = await fetch(`${prometheus}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { status: string; data: { result: { value: [number, string] }[] } };
  assert.equal(body.status, 'success', expr);
  const [first] = body.data.result;
  return first === undefined ? undefined : Number(first.value[1]);
}

describe('refkit serve with METRICS_BIND', () => {
  let db: TestDatabase;
  let service: ServiceProcess;
  let metricsUrl: string;
  before(async () => {
    db = await kinds[0]!.create();
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    service = await startProcess({ DATABASE_URL: db.url, METRICS_BIND: `127.0.0.1:${port}` });
  });
  after(async () => {
    await service?.stop();
    await db?.drop();
  });

  it('serves the metrics on that address, to anyone who reaches it, and not on the service’s port', async () => {
    const res = await waitFor(() => fetch(metricsUrl).catch(() => undefined), 'the metrics listener');
    assert.equal(res.status, 200);
    assert.match(await res.text(), /^# TYPE refkit_signups_total counter$/m);
    const main = await fetch(`${service.url}/metrics`);
    assert.equal(main.status, 404);
    assert.equal(((await main.json()) as { error: { code: string } }).error.code, 'not_found');
  });

  it('stops listening when the service shuts down', async () => {
    assert.equal(await service.stop(), 0);
    await assert.rejects(fetch(metricsUrl));
  });
});

for (const kind of kinds) {
  describe(`Prometheus scrapes refkit serve [${kind.name}]`, { skip: kind.skip }, () => {
    let db: TestDatabase;
    let service: ServiceProcess;
    let prometheus: Awaited<ReturnType<typeof startPrometheus>>;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'refkit-prometheus-'));
      db = await kind.create();
      service = await startProcess({
        DATABASE_URL: db.url,
        REFKIT_SECRET_KEY: KEY,
        METRICS_TOKEN: TOKEN,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        // Wrong keys refused from the second, to count a refusal.
        RATE_LIMIT_KEY_FAILURES_PER_IP: '1',
      });
      prometheus = await startPrometheus(new URL(service.url).host, dir);
    });
    after(async () => {
      prometheus?.child.kill('SIGTERM');
      await service?.stop();
      await db?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('reads back, through its query API, what the service did', async () => {
      const admin = new RefkitClient({ baseUrl: service.url, secretKey: KEY });
      const { campaignId } = await admin.createCampaign({ campaignName: 'Scraped', hostURL: 'https://shop.example/join', referrerRewardValue: 10, refereeRewardValue: 5 });
      const id = campaignId!;
      // A webhook endpoint where nothing listens: its deliveries stay pending, the backlog grows.
      await admin.createWebhookEndpoint({ url: `http://127.0.0.1:${await freePort()}/hooks`, eventTypes: ['referrer_added', 'referee_added'] });
      const ref = await admin.addParticipant({ id, email: 'ref@example.com' });
      await admin.addParticipant({ id, email: 'a@example.com', referredByCode: ref.referralCode! });
      await admin.addParticipant({ id, email: 'b@example.com', referredByCode: ref.referralCode! });
      await admin.qualifyParticipant({ id, email: 'a@example.com', amountPaid: '30.00' });
      // The first wrong key is 401, the next refused by the limit.
      const wrong = { headers: { authorization: 'Bearer sk_wrong_wrong_wrong_wrong_wrong' } };
      assert.equal((await fetch(`${service.url}/api/v1/listApiKeys`, wrong)).status, 401);
      assert.equal((await fetch(`${service.url}/api/v1/listApiKeys`, wrong)).status, 429);

      const expect = async (expr: string, ok: (v: number) => boolean, what: string) =>
        waitFor(async () => {
          const v = await query(prometheus.url, expr);
          return v !== undefined && ok(v) ? { v } : undefined;
        }, `${what} (${expr}); Prometheus said:\n${prometheus.output().slice(-2000)}`, 30_000);

      await expect('up{job="refkit"}', (v) => v === 1, 'the target to be up');
      await expect(`sum(refkit_signups_total{campaign="${id}"})`, (v) => v === 3, 'three sign-ups');
      await expect(`sum(refkit_qualifications_total{campaign="${id}"})`, (v) => v === 1, 'one qualification');
      await expect(`sum(refkit_reward_credits_total{campaign="${id}"})`, (v) => v === 2, 'two credits');
      await expect('sum(refkit_rate_limit_refusals_total{limit="key_failures_per_ip"})', (v) => v === 1, 'one refusal');
      await expect('max(refkit_outbox_pending{outbox="webhooks"})', (v) => v >= 1, 'a webhook backlog');
      await expect('sum(refkit_outbox_attempts_total{outbox="webhooks",result="retry"})', (v) => v >= 1, 'a failed attempt, to be retried');
      await expect('sum(refkit_http_requests_total{route="/api/v1/addParticipant",method="POST",status="200"})', (v) => v === 3, 'the sign-ups’ requests by route');
      await expect('sum(refkit_db_query_duration_seconds_count)', (v) => v > 0, 'database time');
      await expect('max(process_resident_memory_bytes)', (v) => v > 0, 'process metrics');
      // The alert expressions evaluate (and the 5xx one finds none).
      await expect('sum(rate(refkit_http_requests_total{status=~"5.."}[1m])) or vector(0)', (v) => v === 0, 'no 5xx');
    });
  });
}
