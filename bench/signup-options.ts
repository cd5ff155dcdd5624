/**
 * `npm run bench -- --signup-options`: what each of a campaign's sign-up options costs a new referred,
 * keyless sign-up. One service, one database: a campaign without options (the reference), and beside it
 * one campaign per option, each with the same rewards and 100 referrers of its own. Each option's
 * sign-ups and the reference's take turns in pairs of slices, as the routes and their baselines do
 * (./routes.ts), and the option's ratio is the median of the pairs'; the CPU a sign-up adds is the
 * service's CPU per sign-up on the option's campaign less that on the reference's.
 *
 * The outside services an option calls (a CAPTCHA's siteverify, Stripe's API for the friend's
 * promotion codes) are the test suite's loopback stand-ins, written from the providers' references and
 * running in this process: what is measured is Refkit's side of each call, not the provider's.
 * Writes the Sign-up options section (a run on every database kind without --quick).
 */
import { RefkitClient } from '../src/api/client.js';
import type { CreateCampaignBody } from '../src/api/schemas.js';
import type { DatabaseKind } from '../test/server/helpers/databases.js';
import { FAKE_SECRET, FAKE_SITE_KEY, startFakeCaptcha } from '../test/server/helpers/fake-captcha.js';
import { FakeStripe } from '../test/server/helpers/fake-stripe.js';
import type { Loader, LoadResult } from './loader.js';
import { KIND_TITLES, machine, ms, rps, table, writeSection } from './report.js';
import { PLAN, combined, inTurns, measureOn } from './routes.js';
import { seed } from './seed.js';
import { startService } from './servers.js';

export interface OptionsTiming {
  connections: number;
  warmupSeconds: number;
  pairs: number;
  sliceSeconds: number;
}

/** The restricted key the Stripe stand-in takes. */
const STRIPE_KEY = 'rk_test_refkitBenchOptions0123456789';
/** Tokens the CAPTCHA stand-in takes as solved challenges: one a sign-up, unique through `{n}`. */
const CAPTCHA_TOKENS = 'bench_captcha_';
const REFERRERS = 100;

/** Blocklist entries none of the sign-ups match (they come from 10.0.0.0/8 with @bench.example addresses). */
const blocklist = (n: number) => ({
  emails: Array.from({ length: n }, (_, i) => `blocked${i}@example.org`),
  domains: Array.from({ length: n }, (_, i) => `spam${i}.test`),
  ips: Array.from({ length: n }, (_, i) => `198.${18 + (i >> 8)}.${i & 255}.0/24`),
});

interface Option {
  name: string;
  /** What the campaign is created with, besides the reference's fields. */
  fields: Partial<CreateCampaignBody>;
  /** Fields each sign-up adds to its body. */
  body?: Record<string, string>;
}

/** The options, each alone on a campaign of its own. */
const OPTIONS: Option[] = [
  { name: 'blocklist (1,000 emails, 1,000 domains, 1,000 IP ranges)', fields: { blocklist: blocklist(1_000) } },
  {
    name: 'captcha (Turnstile; siteverify at a loopback stand-in)',
    fields: { captcha: { provider: 'turnstile', siteKey: FAKE_SITE_KEY, secretKey: FAKE_SECRET } },
    body: { captchaToken: `${CAPTCHA_TOKENS}{n}` },
  },
  { name: 'autoApprove (limits per day and per referrer)', fields: { autoApprove: { maxRewardsPerDay: 1_000_000, maxRewardsPerReferrer: 1_000_000 } } },
  {
    name: "refereeDiscount (the friend's promotion code at checkout; Stripe at a loopback stand-in)",
    fields: { stripeRewardKey: STRIPE_KEY, refereeDiscount: { percentOff: 10, duration: 'once' } },
  },
];

const REFERENCE: Option = { name: 'none (the reference)', fields: {} };

interface Row {
  option: Option;
  result: LoadResult;
  /** Against the reference's slices taken in turn with it; undefined for the reference itself. */
  ratio?: number;
  /** Its slices and the reference's beside them that had no answer at all. */
  stalled?: number;
}

/** A campaign with the seeded one's rewards and `option`, and the load of its referred keyless sign-ups. */
async function campaignFor(admin: RefkitClient, option: Option) {
  const { campaignId } = await admin.createCampaign({ campaignName: option.name.slice(0, 60), hostURL: 'https://shop.example/join', referrerRewardValue: 10, refereeRewardValue: 5, ...option.fields });
  const id = campaignId!;
  const codes: string[] = [];
  for (let i = 0; i < REFERRERS; i++) codes.push((await admin.addParticipant({ id, email: `referrer${i}@bench.example` })).referralCode!);
  return {
    distinctClients: true,
    method: 'POST' as const,
    paths: ['/api/v1/addParticipant'],
    bodyTemplates: codes.map((code) => JSON.stringify({ id, email: 'new{n}@bench.example', referredByCode: code, ...option.body })),
  };
}

async function optionsOn(kind: DatabaseKind, loader: Loader, timing: OptionsTiming, log: (line: string) => void): Promise<Row[]> {
  const db = await kind.create();
  const captcha = await startFakeCaptcha({ acceptPrefix: CAPTCHA_TOKENS });
  const stripe = await new FakeStripe().allowKey(STRIPE_KEY).start();
  try {
    const seeded = await seed(db.url, PLAN);
    const service = await startService(db.url, [], undefined, { CAPTCHA_VERIFY_URL: captcha.verifyUrl, STRIPE_API_URL: `http://127.0.0.1:${stripe.port}` });
    try {
      const admin = new RefkitClient({ baseUrl: service.url, secretKey: seeded.key });
      const reference = await campaignFor(admin, REFERENCE);
      const loads = await Promise.all(OPTIONS.map((o) => campaignFor(admin, o)));
      const run = (load: typeof reference, seconds: number) => measureOn(loader, service, load, seconds, timing.connections);
      const theirs: LoadResult[] = [];
      const rows: Row[] = [];
      for (const [i, option] of OPTIONS.entries()) {
        await run(reference, timing.warmupSeconds);
        await run(loads[i]!, timing.warmupSeconds);
        const { mine, theirs: pairs, ratio } = await inTurns(
          timing.pairs,
          () => run(reference, timing.sliceSeconds),
          () => run(loads[i]!, timing.sliceSeconds),
        );
        theirs.push(...pairs);
        // A slice with no answer at all is a stall, not a speed: the run fails (discount campaigns once stalled PostgreSQL's sign-ups so).
        const stalled = [...mine, ...pairs].filter((r) => r.requests === 0).length;
        if (stalled > 0) log(`  FAILED: ${stalled} slices of ${option.name} and the reference had no answer at all`);
        const row = { option, result: combined(mine), ratio, stalled };
        log(`  ${option.name.slice(0, 60).padEnd(60)} ${rps(row.result.rps).padStart(7)} req/s  p99 ${ms(row.result.p99)} ms  CPU ${row.result.cpuMicrosPerRequest?.toFixed(0)} µs/req  ratio ${row.ratio.toFixed(2)}x`);
        rows.push(row);
      }
      const failedCaptchas = captcha.verifications.filter((v) => !v.success).length;
      if (failedCaptchas > 0) throw new Error(`the CAPTCHA stand-in refused ${failedCaptchas} tokens: the captcha option's sign-ups did not all pass`);
      return [{ option: REFERENCE, result: combined(theirs) }, ...rows];
    } finally {
      await service.stop();
    }
  } finally {
    await captcha.close();
    await stripe.stop();
    await db.drop();
  }
}

function optionsTable(rows: Row[]): string {
  const reference = rows[0]!.result.cpuMicrosPerRequest ?? 0;
  return table(
    ['option', 'req/s', 'p50 ms', 'p99 ms', 'ratio to none', 'server CPU µs/sign-up', 'CPU added µs'],
    rows.map(({ option, result, ratio }) => {
      const cpu = result.cpuMicrosPerRequest ?? 0;
      return [option.name, rps(result.rps), ms(result.p50), ms(result.p99), ratio === undefined ? '' : `${ratio.toFixed(2)}x`, cpu.toFixed(0), ratio === undefined ? '' : `${cpu - reference >= 0 ? '+' : ''}${(cpu - reference).toFixed(0)}`];
    }),
  );
}

/** Returns the number of requests that did not succeed and of slices with no answer at all (a run with any fails). */
export async function runSignupOptions(kinds: DatabaseKind[], loader: Loader, timing: OptionsTiming, command: string, log: (line: string) => void, write: boolean): Promise<number> {
  const header = machine(command);
  log(header);
  const sections: string[] = [];
  let failed = 0;
  for (const kind of kinds) {
    log(`\n[${kind.name}]`);
    const rows = await optionsOn(kind, loader, timing, log);
    failed += rows.reduce((n, r) => n + r.result.non2xx + r.result.errors + (r.stalled ?? 0), 0);
    sections.push(`\n### ${KIND_TITLES[kind.name]}\n\n${optionsTable(rows)}`);
  }
  const body = [
    header,
    `- New referred keyless sign-ups (unique emails, each from an address of its own, through 100 referrers in turn), ${timing.connections} connections, on campaigns of one service: one without options (the reference) and one per option. Per option, a ${timing.warmupSeconds} s warm-up of it and of the reference, then ${timing.pairs} pairs of ${timing.sliceSeconds} s slices in turns; its ratio is the median of the pairs'. The reference's row gathers all of its slices. CPU is the service's process over the slices, per sign-up; "CPU added" is the option's less the reference's.`,
    '- The CAPTCHA\'s siteverify and Stripe\'s API are loopback stand-ins in the load generator\'s parent process (the test suite\'s): the figures are Refkit\'s side of each call.',
    ...sections,
  ].join('\n');
  log(`\n${body}`);
  if (write) writeSection('Sign-up options', body);
  return failed;
}
