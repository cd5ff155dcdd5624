/**
 * Statements sent to PostgreSQL per call, for the loads bench/processes.ts measures: the service in this
 * process (the test harness's, so that pg's client can be watched: test/server/helpers/pg-statements.ts),
 * each call made the way the load generator makes it, counted over many calls (the first call of a kind,
 * which reads what later ones find cached, is made before counting).
 */
import { DEFAULT_RATE_LIMITS } from '../src/server/http/rate-limit.js';
import { browserAt } from '../test/server/helpers/addresses.js';
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import { statementsSent } from '../test/server/helpers/pg-statements.js';
import { startService } from '../test/server/helpers/service.js';
import { BENCH_REWARDS } from './seed.js';

export interface RoundTrips {
  /** Mean statements per call, by load name (bench/processes.ts ROUTES). */
  [load: string]: number;
}

const CALLS = 40;
const REFERRERS = 10;

export async function countRoundTrips(kind: DatabaseKind): Promise<RoundTrips> {
  // As the benchmark's service runs: no rate limits, each visitor's address its own (here: its own loopback address).
  const s = await startService(kind, { rateLimits: { ...DEFAULT_RATE_LIMITS, perIp: 0, keyFailuresPerIp: 0, signupsPerIp: 0, signupsPerCampaign: 0, redisUrl: undefined } });
  try {
    // The loads' campaign's rules (./seed.ts): with a commission, a repeated payment takes the crediting transaction.
    const id = await s.campaign({ ...BENCH_REWARDS });
    const codes: string[] = [];
    for (let r = 0; r < REFERRERS; r++) codes.push((await s.admin.addParticipant({ id, email: `referrer${r}@bench.example` })).referralCode!);
    let visitor = 0;
    const signUp = (email: string, code: string) => browserAt(s.url, `127.0.${10 + Math.floor(visitor / 250)}.${1 + (visitor++ % 250)}`).addParticipant({ id, email, referredByCode: code });
    // Each link once, so this process knows every code, as a running service soon does.
    for (const [r, code] of codes.entries()) await signUp(`warm${r}@bench.example`, code);
    const mean = async (call: (i: number) => Promise<unknown>) => {
      let sent = 0;
      for (let i = 0; i < CALLS; i++) sent += (await statementsSent(() => call(i))).length;
      return sent / CALLS;
    };
    const spread = await mean((i) => signUp(`spread${i}@bench.example`, codes[i % REFERRERS]!));
    const hot = await mean((i) => signUp(`hot${i}@bench.example`, codes[0]!));
    const referees = Array.from({ length: CALLS }, (_, i) => `spread${i}@bench.example`);
    for (const email of referees) await s.admin.qualifyParticipant({ id, email, amountPaid: '9.99' });
    const qualify = await mean((i) => s.admin.qualifyParticipant({ id, email: referees[i]!, amountPaid: '9.99' }));
    return { 'addParticipant (new, referred, keyless)': spread, 'addParticipant (new, all referred by one)': hot, 'qualifyParticipant (repeated, amountPaid)': qualify };
  } finally {
    await s.close();
  }
}
