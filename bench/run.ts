/**
 * `npm run bench`: throughput of the service's hot routes, measured with autocannon against the real
 * service (in this process, loopback, rate limits off) on SQLite and, when reachable, PostgreSQL.
 * Figures are ratios against /healthz measured in the same run, so they compare across machines;
 * absolute requests/second are printed beside them for the record. Also prints the widget's size.
 */
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { databaseKinds } from '../test/server/helpers/databases.js';
import { startService } from '../test/server/helpers/service.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;

async function run(url: string, opts: Partial<autocannon.Options> = {}): Promise<number> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, ...opts });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

for (const kind of await databaseKinds()) {
  if (kind.skip) {
    console.log(`\n[${kind.name}] skipped: ${kind.skip}`);
    continue;
  }
  const s = await startService(kind, { rateLimits: { perIp: 0, signupsPerCampaign: 0, keyFailuresPerIp: 0, windowMs: 60_000, redisUrl: undefined } });
  try {
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    for (let i = 0; i < 200; i++) await s.admin.addParticipant({ id, email: `seed${i}@example.com`, referredByCode: ann.referralCode! });
    const auth = { authorization: `Bearer ${s.secretKey}` };
    let n = 0;
    const rows: [string, number][] = [
      ['GET /healthz (baseline)', await run(`${s.url}/healthz`)],
      ['GET getCampaign', await run(`${s.url}/api/v1/getCampaign?id=${id}`)],
      ['GET validateCode', await run(`${s.url}/api/v1/validateCode?campaignId=${id}&code=${ann.referralCode}`)],
      ['GET getAllParticipants (20)', await run(`${s.url}/api/v1/getAllParticipants?id=${id}`, { headers: auth })],
      ['GET getReferrals (100)', await run(`${s.url}/api/v1/getReferrals?id=${id}&email=ann@example.com&pageSize=100`, { headers: auth })],
      [
        'POST addParticipant (new, referred)',
        await run(`${s.url}/api/v1/addParticipant`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          requests: [
            {
              setupRequest: (req) => ({ ...req, body: JSON.stringify({ id, email: `bench-${n++}@example.com`, referredByCode: ann.referralCode }) }),
            },
          ],
        }),
      ],
    ];
    const base = rows[0]![1];
    console.log(`\n[${kind.name}] ${CONNECTIONS} connections, ${DURATION_S} s each`);
    for (const [name, rps] of rows) console.log(`  ${name.padEnd(38)} ${rps.toFixed(0).padStart(7)} req/s   ${(rps / base).toFixed(3)} x baseline`);
  } finally {
    await s.close();
  }
}

console.log('\n[widget]');
execFileSync('npx', ['vite', 'build', '--logLevel', 'error'], { stdio: 'inherit' });
execFileSync('node', ['scripts/size.js'], { stdio: 'inherit' });
