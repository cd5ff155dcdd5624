import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { cli } from './helpers/cli.js';
import { atTerminal, cliCommand } from './helpers/process.js';
import { setupAdvice } from '../../src/widget/setup-advice.js';
import { DEFAULT_ACCOUNT } from '../../src/server/kernel/context.js';
import { qualifyParticipant } from '../../src/server/rewards/domain/rewards.js';
import { addParticipant } from '../../src/server/referrals/domain/signups.js';
import { openRuntime } from '../../src/server/runtime.js';

const kinds = await databaseKinds();
const [sqlite] = kinds;

describe('refkit CLI', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    db = await sqlite!.createEmpty();
    env = { DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true' };
  });
  after(() => db.drop());

  const json = async (args: string[]) => {
    const r = await cli([...args, '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, unknown> & { campaignId?: string };
  };

  it('migrate, then campaign create/update/status through the admin routes', async () => {
    const m = await cli(['migrate'], env);
    assert.equal(m.code, 0, m.stderr);
    assert.match(m.stdout, /up to date/);
    const c = await json(['campaign', 'create', '--name', 'Spring', '--host-url', 'https://shop.example/join', '--referrer-reward', '10', '--allowed-origin', 'https://a.example', '--allowed-origin', 'https://b.example']);
    assert.equal(c.campaignName, 'Spring');
    assert.equal(c.referrerRewardValue, 10);
    const u = await json(['campaign', 'update', '--id', c.campaignId!, '--share-header', 'Share!']);
    assert.equal(u.shareHeader, 'Share!');
    assert.equal((await json(['campaign', 'status', '--id', c.campaignId!, '--status', 'End'])).status, 'End');
    const refused = await cli(['campaign', 'status', '--id', c.campaignId!, '--status', 'Active'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /invalid_transition/);
    const human = await cli(['campaign', 'update', '--id', c.campaignId!, '--reward-header', 'RH'], env);
    assert.match(human.stdout, /^campaignId: cmp_/m);
    assert.match(human.stdout, /^rewardHeader: RH$/m);
    const bad = await cli(['campaign', 'create', '--name', 'X', '--host-url', 'not-a-url'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invalid_request/);
    const badNumber = await cli(['campaign', 'create', '--name', 'X', '--host-url', 'https://x.example', '--referrer-reward', 'ten'], env);
    assert.notEqual(badNumber.code, 0);
    assert.match(badNumber.stderr, /Not an integer/);
  });

  it('reward rules by flag (and --no-milestones, --max-referral-reward none); participant refund and ledger; campaign liability', async () => {
    const c = await json([
      'campaign', 'create', '--name', 'R', '--host-url', 'https://r.example', '--referrer-reward', '10', '--referee-reward', '0',
      '--referrer-reward-percent', '12.5', '--commission-payments', '2', '--milestone', '2:50:Free month: two', '--milestone', '1:5:Start',
      '--max-referral-reward', '300', '--hold-days', '0',
    ]);
    const id = c.campaignId!;
    const rules = async () => {
      const r = await cli(['campaign', 'list', '--json'], env);
      const found = (JSON.parse(r.stdout) as Record<string, unknown>[]).find((x) => x.campaignId === id)!;
      return [found.referrerRewardPercent, found.commissionPayments, found.milestones, found.maxReferralReward, found.holdDays];
    };
    assert.deepEqual(await rules(), [12.5, 2, [{ referrals: 1, reward: 5, label: 'Start' }, { referrals: 2, reward: 50, label: 'Free month: two' }], 300, 0]);
    await json(['campaign', 'update', '--id', id, '--no-milestones', '--max-referral-reward', 'none', '--hold-days', '3']);
    assert.deepEqual(await rules(), [12.5, 2, [], null, 3]);
    const badMilestone = await cli(['campaign', 'update', '--id', id, '--milestone', '3:50'], env);
    assert.notEqual(badMilestone.code, 0);
    assert.match(badMilestone.stderr, /referrals:reward:label/);
    await json(['campaign', 'update', '--id', id, '--hold-days', '0']);
    const board = async () => {
      const found = (JSON.parse((await cli(['campaign', 'list', '--json'], env)).stdout) as Record<string, unknown>[]).find((x) => x.campaignId === id)!;
      return [found.leaderboard, found.timeZone];
    };
    await json(['campaign', 'update', '--id', id, '--leaderboard', 'month:5', '--time-zone', 'Europe/Berlin']);
    assert.deepEqual(await board(), [{ period: 'month', size: 5 }, 'Europe/Berlin']);
    await json(['campaign', 'update', '--id', id, '--leaderboard', 'off']);
    assert.deepEqual(await board(), [null, 'Europe/Berlin']);
    const badBoard = await cli(['campaign', 'update', '--id', id, '--leaderboard', 'week:5'], env);
    assert.notEqual(badBoard.code, 0);
    assert.match(badBoard.stderr, /all:<size>, month:<size> or off/);
    const waitlist = async () => (JSON.parse((await cli(['campaign', 'list', '--json'], env)).stdout) as Record<string, unknown>[]).find((x) => x.campaignId === id)!.waitlist;
    await json(['campaign', 'update', '--id', id, '--waitlist', '5:qualified']);
    assert.deepEqual(await waitlist(), { spotsPerReferral: 5, counts: 'qualified' });
    await json(['campaign', 'update', '--id', id, '--waitlist', 'off']);
    assert.equal(await waitlist(), null);
    const badWaitlist = await cli(['campaign', 'update', '--id', id, '--waitlist', '5:clicks'], env);
    assert.notEqual(badWaitlist.code, 0);
    assert.match(badWaitlist.stderr, /<spots>:qualified or off/);
    const discount = async () => {
      const found = (JSON.parse((await cli(['campaign', 'list', '--json'], env)).stdout) as Record<string, unknown>[]).find((x) => x.campaignId === id)!;
      return [found.refereeDiscount, found.promotionCodePrefix];
    };
    await json(['campaign', 'update', '--id', id, '--stripe-reward-key', 'rk_test_cliDiscount0123', '--referee-discount', '12.5%:repeating:3', '--promotion-code-prefix', 'cli-']);
    assert.deepEqual(await discount(), [{ percentOff: 12.5, duration: 'repeating', durationInMonths: 3 }, 'CLI-']);
    await json(['campaign', 'update', '--id', id, '--referee-discount', '10:forever', '--promotion-code-prefix', '']);
    assert.deepEqual(await discount(), [{ amountOff: 10, duration: 'forever' }, null]);
    await json(['campaign', 'update', '--id', id, '--referee-discount', 'off', '--stripe-reward-key', '']);
    assert.deepEqual(await discount(), [null, null]);
    const sources = await cli(['campaign', 'update', '--id', id, '--paddle-webhook-secret', 'pdl_ntfset_cli0123', '--chargebee-webhook-auth', 'refkit:s3cret'], env);
    assert.equal(sources.code, 0, sources.stderr);
    assert.match(sources.stderr, /Paddle webhook secret set\.\nChargebee webhook auth set\./);
    assert.ok(![sources.stdout, sources.stderr].some((t) => t.includes('s3cret') || t.includes('pdl_ntfset_cli0123')), 'never printed');
    const listed = (JSON.parse((await cli(['campaign', 'list', '--json'], env)).stdout) as Record<string, unknown>[]).find((x) => x.campaignId === id)!;
    assert.deepEqual(listed.paymentSourcesConfigured, ['paddle', 'chargebee']);
    const badDiscount = await cli(['campaign', 'update', '--id', id, '--referee-discount', '10:repeating'], env);
    assert.notEqual(badDiscount.code, 0);
    assert.match(badDiscount.stderr, /repeating:<months>/);
    const fraud = async () => {
      const found = (JSON.parse((await cli(['campaign', 'list', '--json'], env)).stdout) as Record<string, unknown>[]).find((x) => x.campaignId === id)!;
      return [found.blocklist, found.captcha, found.autoApprove];
    };
    await json(['campaign', 'update', '--id', id, '--block', 'email:Eve@Example.com', '--block', 'ip:203.0.113.0/24', '--block', 'country:kp', '--block', 'domain:spam.test',
      '--captcha', 'turnstile:0x4AAA-site:0x4AAA-secret:with-colon', '--max-rewards-per-day', '3', '--max-rewards-per-referrer', '20']);
    assert.deepEqual(await fraud(), [
      { emails: ['eve@example.com'], domains: ['spam.test'], ips: ['203.0.113.0/24'], countries: ['KP'] },
      { provider: 'turnstile', siteKey: '0x4AAA-site' },
      { maxRewardsPerDay: 3, maxRewardsPerReferrer: 20 },
    ]);
    await json(['campaign', 'update', '--id', id, '--block', 'off', '--captcha', 'off', '--max-rewards-per-day', 'none', '--max-rewards-per-referrer', 'none']);
    assert.deepEqual(await fraud(), [null, null, null]);
    for (const [flag, value, said] of [['--block', 'phone:123', /email:<address>, domain:<domain>/], ['--captcha', 'friendly:key:secret', /<provider>:<siteKey>:<secretKey>/]] as const) {
      const bad = await cli(['campaign', 'update', '--id', id, flag, value], env);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, said);
    }
    const badZone = await cli(['campaign', 'update', '--id', id, '--time-zone', 'Nowhere/Land'], env);
    assert.notEqual(badZone.code, 0);
    assert.match(badZone.stderr, /timeZone/);
    // The referral and its payment come from the product's backend (the API), here the same operations in process.
    const runtime = await openRuntime({ databaseUrl: db.url });
    try {
      const how = { source: 'api' as const, ip: null, actor: DEFAULT_ACCOUNT };
      const ann = await addParticipant(runtime.ctx, { id, email: 'ann@example.com' }, how);
      await addParticipant(runtime.ctx, { id, email: 'ben@example.com', referredByCode: ann.participant!.code }, how);
      await qualifyParticipant(runtime.ctx, DEFAULT_ACCOUNT, { id, email: 'ben@example.com', amountPaid: '80.00' });
    } finally {
      await runtime.close();
    }
    const refunded = await cli(['participant', 'refund', '--id', id, '--email', 'ben@example.com', '--amount', '40.00'], env);
    assert.equal(refunded.code, 0, refunded.stderr);
    const ledger = (await json(['participant', 'ledger', '--id', id, '--email', 'ann@example.com'])) as unknown as { kind: string; amount: number }[];
    assert.deepEqual(ledger.map((e) => [e.kind, e.amount]), [['reversal', -5], ['commission', 10], ['referral', 10]]);
    assert.deepEqual((await json(['campaign', 'liability', '--id', id])).referral, { pending: 0, available: 15, redeemed: 0, owed: 0 });
    const over = await cli(['participant', 'refund', '--id', id, '--email', 'ben@example.com', '--amount', '41.00'], env);
    assert.equal(over.code, 1);
    assert.match(over.stderr, /refund_exceeds_payments/);
  });

  it('rewards codes add (a file: one per line or a code column; duplicates counted; a bad line adds nothing) and list; --reward-codes-low-threshold', async () => {
    const c = await json(['campaign', 'create', '--name', 'Codes', '--host-url', 'https://codes.example', '--referee-reward', '5', '--reward-codes-low-threshold', '2']);
    const id = c.campaignId!;
    const listed = JSON.parse((await cli(['campaign', 'list', '--json'], env)).stdout) as { campaignId: string; rewardCodesLowThreshold: number }[];
    assert.equal(listed.find((x) => x.campaignId === id)?.rewardCodesLowThreshold, 2);
    const dir = await mkdtemp(join(tmpdir(), 'refkit-codes-'));
    try {
      await writeFile(join(dir, 'codes.txt'), 'GIFT-1\nGIFT-2\nGIFT-1\n');
      const added = await json(['rewards', 'codes', 'add', '--id', id, '--kind', 'referee', '--file', join(dir, 'codes.txt')]);
      assert.deepEqual(added, { added: 2, duplicates: 1, served: 0, pool: { kind: 'referee', available: 2, used: 0, waiting: 0 } });
      await writeFile(join(dir, 'codes.csv'), 'note,code\nfirst,GIFT-2\nsecond,GIFT-3\n');
      const human = await cli(['rewards', 'codes', 'add', '--id', id, '--kind', 'referee', '--file', join(dir, 'codes.csv')], env);
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /^added: 1\nduplicates: 1\nserved: 0\n/);
      await writeFile(join(dir, 'bad.txt'), 'GIFT-4\n\u0001BAD\n');
      const bad = await cli(['rewards', 'codes', 'add', '--id', id, '--kind', 'referee', '--file', join(dir, 'bad.txt')], env);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /1 of 2 codes cannot be added/);
      assert.match(bad.stderr, /line 2, code: code must be one line/);
      const wrongKind = await cli(['rewards', 'codes', 'add', '--id', id, '--kind', 'commission', '--file', join(dir, 'codes.txt')], env);
      assert.notEqual(wrongKind.code, 0);
      assert.match(wrongKind.stderr, /referral, referee, milestone/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    assert.deepEqual(await json(['rewards', 'codes', 'list', '--id', id]), [{ kind: 'referee', available: 3, used: 0, waiting: 0 }] as unknown);
    const none = await cli(['rewards', 'codes', 'list', '--id', (await json(['campaign', 'create', '--name', 'None', '--host-url', 'https://none.example'])).campaignId!], env);
    assert.equal(none.stdout, 'no reward code pools\n');
  });

  it('campaign secret (and --rotate), participant sign-out, --require-email-confirmation needs SMTP_URL', async () => {
    const c = await json(['campaign', 'create', '--name', 'S', '--host-url', 'https://s.example']);
    const first = await json(['campaign', 'secret', '--id', c.campaignId!]);
    assert.match(String(first.secret), /^cs_/);
    assert.deepEqual(await json(['campaign', 'secret', '--id', c.campaignId!]), first);
    const rotated = await json(['campaign', 'secret', '--id', c.campaignId!, '--rotate']);
    assert.notEqual(rotated.secret, first.secret);
    const noSmtp = await cli(['campaign', 'update', '--id', c.campaignId!, '--require-email-confirmation', 'true'], env);
    assert.equal(noSmtp.code, 1);
    assert.match(noSmtp.stderr, /SMTP_URL.*requireEmailConfirmation/);
    const withSmtp = await cli(['campaign', 'update', '--id', c.campaignId!, '--require-email-confirmation', 'true', '--json'], { ...env, SMTP_URL: 'smtp://127.0.0.1:2525' });
    assert.equal(withSmtp.code, 0, withSmtp.stderr);
    const missing = await cli(['participant', 'sign-out', '--id', c.campaignId!, '--email', 'nobody@example.com'], env);
    assert.match(missing.stderr, /participant_not_found/);
  });

  it('keys: create (shown once), list (never shown), revoke', async () => {
    const k = await json(['key', 'create', '--name', 'backend']);
    assert.match(String(k.key), /^sk_/);
    const list = (await json(['key', 'list'])) as unknown as { id: string; key?: string }[];
    assert.ok(list.some((x) => x.id === k.id && x.key === undefined));
    assert.deepEqual(await json(['key', 'revoke', '--id', String(k.id)]), { ok: true });
    assert.equal((await cli(['key', 'revoke', '--id', String(k.id)], env)).code, 1);
  });

  it('participants: redeem and approve; webhooks: add, list, deliveries, redeliver, remove', async () => {
    const { openRuntime } = await import('../../src/server/runtime.js');
    const { addParticipant } = await import('../../src/server/referrals/domain/signups.js');
    const { qualifyParticipant } = await import('../../src/server/rewards/domain/rewards.js');
    const { DEFAULT_ACCOUNT } = await import('../../src/server/kernel/context.js');
    const hook = await json(['webhook', 'add', '--url', 'http://127.0.0.1:9/hooks', '--events', 'referrer_added,referee_added']);
    assert.match(String(hook.secret), /^whsec_/);
    const c = await json(['campaign', 'create', '--name', 'P', '--host-url', 'https://p.example', '--referrer-reward', '10']);
    const rt = await openRuntime({ databaseUrl: db.url });
    try {
      const ann = await addParticipant(rt.ctx, { id: c.campaignId!, email: 'ann@example.com' }, { source: 'api', ip: null });
      await addParticipant(rt.ctx, { id: c.campaignId!, email: 'ben@example.com', referredByCode: ann.participant!.code }, { source: 'api', ip: null });
      await qualifyParticipant(rt.ctx, DEFAULT_ACCOUNT, { id: c.campaignId!, email: 'ben@example.com' });
    } finally {
      await rt.close();
    }
    const redeemed = await json(['participant', 'redeem', '--id', c.campaignId!, '--email', 'ann@example.com', '--kind', 'referral', '--amount', '4']);
    assert.equal(redeemed.referralRewardBalance, 6);
    const over = await cli(['participant', 'redeem', '--id', c.campaignId!, '--email', 'ann@example.com', '--kind', 'referral', '--amount', '7'], env);
    assert.equal(over.code, 1);
    assert.match(over.stderr, /insufficient_balance/);
    assert.equal((await json(['participant', 'approve', '--id', c.campaignId!, '--email', 'ben@example.com'])).email, 'ben@example.com');

    const endpoints = (await json(['webhook', 'list'])) as unknown as { id: string; secret?: string }[];
    assert.deepEqual(endpoints.map((e) => [e.id, e.secret]), [[hook.id, undefined]]);
    const deliveries = (await json(['webhook', 'deliveries', '--status', 'pending'])) as unknown as { id: string; eventType: string }[];
    assert.deepEqual(deliveries.map((d) => d.eventType).sort(), ['referee_added', 'referrer_added']);
    assert.deepEqual(await json(['webhook', 'redeliver', '--id', deliveries[0]!.id]), { ok: true });
    assert.deepEqual(await json(['webhook', 'remove', '--id', String(hook.id)]), { ok: true });
    assert.deepEqual(await json(['webhook', 'list']), [] as never);
  });

  it('person export (to standard output, or --output) and person erase; an unknown or bad address', async () => {
    const c = await json(['campaign', 'create', '--name', 'People', '--host-url', 'https://people.example']);
    const rt = await openRuntime({ databaseUrl: db.url });
    try {
      await addParticipant(rt.ctx, { id: c.campaignId!, email: 'dora@example.com', firstName: 'Dorothea' }, { source: 'api', ip: null });
    } finally {
      await rt.close();
    }
    const exported = await cli(['person', 'export', '--email', 'Dora@example.com'], env);
    assert.equal(exported.code, 0, exported.stderr);
    const x = JSON.parse(exported.stdout) as { email: string; participants: { campaignId: string; participant: { firstName: string } }[] };
    assert.equal(x.email, 'dora@example.com');
    assert.deepEqual(x.participants.map((p) => [p.campaignId, p.participant.firstName]), [[c.campaignId, 'Dorothea']]);
    const dir = await mkdtemp(join(tmpdir(), 'refkit-person-'));
    try {
      const file = join(dir, 'dora.json');
      const written = await cli(['person', 'export', '--email', 'dora@example.com', '--output', file], env);
      assert.equal(written.code, 0, written.stderr);
      assert.equal(written.stdout, '');
      assert.deepEqual((JSON.parse(await readFile(file, 'utf8')) as typeof x).participants, x.participants);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const erased = await json(['person', 'erase', '--email', 'dora@example.com']);
    assert.deepEqual((erased.participants as { campaignId: string }[]).map((p) => p.campaignId), [c.campaignId]);
    assert.deepEqual((JSON.parse((await cli(['person', 'export', '--email', 'dora@example.com'], env)).stdout) as typeof x).participants, []);
    assert.deepEqual((await json(['person', 'erase', '--email', 'dora@example.com'])).participants, []);
    const bad = await cli(['person', 'erase', '--email', 'not an address'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invalid_request, email/);
  });

  it('campaign create/update --share-message-* set the per-channel share messages', async () => {
    const c = await json(['campaign', 'create', '--name', 'M', '--host-url', 'https://m.example', '--share-message-x', 'Try {link}', '--share-message-email-subject', 'Hi']);
    await json(['campaign', 'update', '--id', c.campaignId!, '--share-message-whatsapp', 'Psst {link}', '--share-message-x', '']);
    const { openRuntime } = await import('../../src/server/runtime.js');
    const { widgetSettings } = await import('../../src/server/campaigns/domain/widget-settings.js');
    const rt = await openRuntime({ databaseUrl: db.url });
    try {
      assert.deepEqual((await widgetSettings(rt.ctx, c.campaignId!)).shareMessages, { emailSubject: 'Hi', whatsapp: 'Psst {link}' });
    } finally {
      await rt.close();
    }
  });
});

describe('refkit CLI on a database with nothing in it', () => {
  it('list commands say there is nothing yet, and --json prints []', async () => {
    const db = await sqlite!.createEmpty();
    const env = { DATABASE_URL: db.url };
    try {
      const said = async (args: string[]) => {
        const r = await cli(args, env);
        assert.equal(r.code, 0, r.stderr);
        return r.stdout;
      };
      assert.equal(await said(['key', 'list']), 'No keys yet.\n');
      assert.equal(await said(['webhook', 'list']), 'No webhook endpoints yet.\n');
      assert.equal(await said(['webhook', 'deliveries']), 'No deliveries yet.\n');
      assert.equal(await said(['webhook', 'deliveries', '--status', 'failed']), 'No deliveries match.\n');
      assert.equal(await said(['user', 'list']), 'No owners yet.\n');
      assert.deepEqual(JSON.parse(await said(['user', 'list', '--json'])), []);
    } finally {
      await db.drop();
    }
  });
});

for (const kind of kinds) {
  describe(`refkit user [${kind.name}]`, { skip: kind.skip }, () => {
    let db: TestDatabase;
    let env: Record<string, string>;
    before(async () => {
      db = await kind.create();
      env = { DATABASE_URL: db.url };
    });
    after(() => db.drop());

    it('create --password-stdin, list, remove (which ends their sessions); an unknown owner is owner_not_found', async () => {
      const { openRuntime } = await import('../../src/server/runtime.js');
      const { checkCredentials } = await import('../../src/server/accounts/domain/owners.js');
      const { openSession, findSession } = await import('../../src/server/accounts/domain/sessions.js');
      const made = await cli(['user', 'create', '--email', 'Ops@Example.com', '--password-stdin', '--json'], env, 'a long passphrase\nignored second line\n');
      assert.equal(made.code, 0, made.stderr);
      assert.equal(JSON.parse(made.stdout).email, 'ops@example.com');
      // The email as an argument works too.
      assert.equal((await cli(['user', 'create', 'two@example.com', '--password-stdin'], env, 'another long one')).code, 0);
      const twoEmails = await cli(['user', 'create', 'x@example.com', '--email', 'y@example.com', '--password-stdin'], env, 'another long one');
      assert.equal(twoEmails.code, 1);
      assert.match(twoEmails.stderr, /two emails given/);
      const noEmail = await cli(['user', 'create', '--password-stdin'], env, 'another long one');
      assert.equal(noEmail.code, 1);
      assert.match(noEmail.stderr, /give the owner's email/);
      const listed = await cli(['user', 'list'], env);
      assert.match(listed.stdout, /^email: ops@example.com$/m);
      assert.match(listed.stdout, /^email: two@example.com$/m);
      assert.doesNotMatch(listed.stdout, /password|scrypt/);

      const rt = await openRuntime({ databaseUrl: db.url });
      try {
        const owner = await checkCredentials(rt.ctx, 'ops@example.com', 'a long passphrase', '127.0.0.1');
        const { token } = await openSession(rt.ctx, owner);
        assert.ok(await findSession(rt.ctx, token));
        const removed = await cli(['user', 'remove', '--email', 'OPS@example.com'], env);
        assert.equal(removed.code, 0, removed.stderr);
        // The keys they made, as removeMember answers them (none here).
        assert.equal(removed.stdout, 'email: ops@example.com\nkeys: []\n');
        assert.equal(await findSession(rt.ctx, token), undefined);
      } finally {
        await rt.close();
      }
      const left = JSON.parse((await cli(['user', 'list', '--json'], env)).stdout) as { email: string }[];
      assert.deepEqual(left.map((o) => o.email), ['two@example.com']);
      const again = await cli(['user', 'remove', '--email', 'ops@example.com'], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /No owner has this email \(owner_not_found, email\)/);
    });

    it('create without a terminal and without --password-stdin asks for the pipe, and creates nothing; --password still works, warned', async () => {
      const r = await cli(['user', 'create', '--email', 'nopass@example.com'], env);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /--password-stdin/);
      const both = await cli(['user', 'create', '--email', 'nopass@example.com', '--password', 'a long passphrase', '--password-stdin'], env, 'a long passphrase');
      assert.equal(both.code, 1);
      assert.match(both.stderr, /give one of them/);
      const listed = JSON.parse((await cli(['user', 'list', '--json'], env)).stdout) as { email: string }[];
      assert.ok(!listed.some((o) => o.email === 'nopass@example.com'));
      const argv = await cli(['user', 'create', '--email', 'argv@example.com', '--password', 'a long passphrase'], env);
      assert.equal(argv.code, 0, argv.stderr);
      assert.match(argv.stderr, /^warning: a password given with --password stays in the shell history/);
    });

    it('create at a terminal asks for the password twice without showing it; two different ones create nothing', async () => {
      const password = 'typed at the terminal';
      const asked = [
        { prompt: /Password \(at least 10 characters\): /, text: password },
        { prompt: /The same password again: /, text: password },
      ];
      const ok = await atTerminal(cliCommand(['user', 'create', '--email', 'tty@example.com']), env, asked);
      assert.equal(ok.code, 0, ok.output);
      assert.match(ok.output, /email: tty@example\.com/);
      assert.ok(!ok.output.includes(password), ok.output);
      const { openRuntime } = await import('../../src/server/runtime.js');
      const { checkCredentials } = await import('../../src/server/accounts/domain/owners.js');
      const rt = await openRuntime({ databaseUrl: db.url });
      try {
        assert.equal((await checkCredentials(rt.ctx, 'tty@example.com', password, '127.0.0.1')).email, 'tty@example.com');
      } finally {
        await rt.close();
      }
      const differ = await atTerminal(cliCommand(['user', 'create', '--email', 'typo@example.com']), env, [asked[0]!, { ...asked[1]!, text: 'something else' }]);
      assert.equal(differ.code, 1);
      assert.match(differ.output, /the two passwords differ; nothing was changed/);
      assert.doesNotMatch((await cli(['user', 'list'], env)).stdout, /typo@example\.com/);
    });
  });
}

describe("campaign update --add-allowed-origin (the widget's console advice)", () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    db = await sqlite!.create();
    env = { DATABASE_URL: db.url };
  });
  after(() => db.drop());

  /** The command the widget prints for a refused origin, run as printed (less `npx refkit`). */
  const runAdvice = async (campaignId: string, origin: string) => {
    const advice = setupAdvice('forbidden_origin', campaignId, origin)!;
    const command = /: npx refkit (.+)$/.exec(advice)![1]!;
    const r = await cli(command.split(' '), env);
    assert.equal(r.code, 0, r.stderr);
  };
  const origins = async (campaignId: string) => {
    const { openRuntime } = await import('../../src/server/runtime.js');
    const { allowedOrigins, lookupCampaign } = await import('../../src/server/campaigns/domain/campaigns.js');
    const rt = await openRuntime({ databaseUrl: db.url });
    try {
      return allowedOrigins((await lookupCampaign(rt.ctx, campaignId))!);
    } finally {
      await rt.close();
    }
  };

  it("keeps the landing page's origin when the campaign had no list, and the list when it had one", async () => {
    const made = await cli(['campaign', 'create', '--name', 'O', '--host-url', 'https://shop.example/join', '--json'], env);
    const id = (JSON.parse(made.stdout) as { campaignId: string }).campaignId;
    assert.deepEqual(await origins(id), ['https://shop.example']);
    await runAdvice(id, 'https://www.shop.example');
    assert.deepEqual(await origins(id), ['https://shop.example', 'https://www.shop.example']);
    await runAdvice(id, 'http://localhost:5173');
    await runAdvice(id, 'http://localhost:5173');
    assert.deepEqual(await origins(id), ['https://shop.example', 'https://www.shop.example', 'http://localhost:5173']);
  });

  it('refuses with --allowed-origin, and a bad origin or an unknown campaign changes nothing', async () => {
    const made = await cli(['campaign', 'create', '--name', 'P', '--host-url', 'https://p.example', '--allowed-origin', 'https://a.example', '--json'], env);
    const id = (JSON.parse(made.stdout) as { campaignId: string }).campaignId;
    const both = await cli(['campaign', 'update', '--id', id, '--allowed-origin', 'https://b.example', '--add-allowed-origin', 'https://c.example'], env);
    assert.equal(both.code, 1);
    assert.match(both.stderr, /give one of them/);
    const bad = await cli(['campaign', 'update', '--id', id, '--add-allowed-origin', 'https://c.example/path'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invalid_request/);
    // The landing page's origin is always allowed, before those of the list.
    assert.deepEqual(await origins(id), ['https://p.example', 'https://a.example']);
    const unknown = await cli(['campaign', 'update', '--id', 'cmp_nope', '--add-allowed-origin', 'https://c.example'], env);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /campaign_not_found/);
  });
});

describe('test mode from the CLI: campaign create --test, key create --test, clock show and advance', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    db = await sqlite!.createEmpty();
    env = { DATABASE_URL: db.url };
  });
  after(() => db.drop());

  const json = async (args: string[]) => {
    const r = await cli([...args, '--json'], env);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  it("makes a test campaign and key, moves the campaign's clock forward, and refuses a live campaign or a step back", async () => {
    const live = await json(['campaign', 'create', '--name', 'Live', '--host-url', 'https://shop.example/join']);
    const test = await json(['campaign', 'create', '--name', 'Test', '--host-url', 'https://shop.example/join', '--test']);
    const listed = (await cli(['campaign', 'list', '--json'], env)).stdout;
    const modes = Object.fromEntries((JSON.parse(listed) as { campaignId: string; test: boolean }[]).map((c) => [c.campaignId, c.test]));
    assert.deepEqual(modes, { [String(live.campaignId)]: false, [String(test.campaignId)]: true });
    const key = await json(['key', 'create', '--name', 'ci', '--test']);
    assert.match(String(key.key), /^sk_test_/);
    assert.equal(key.test, true);

    const to = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const moved = await json(['clock', 'advance', '--campaign', String(test.campaignId), '--to', to]);
    assert.equal(moved.now, to);
    assert.equal((await json(['clock', 'show', '--campaign', String(test.campaignId)])).now !== undefined, true);
    const human = await cli(['clock', 'show', '--campaign', String(test.campaignId)], env);
    assert.match(human.stdout, /^offsetMs: \d+$/m);

    // --days: that many days after the campaign's time now; --to or --days, one of them.
    // (The clock runs on meanwhile: its offset grows by 2 days less the moments between reading and moving it.)
    const later = await json(['clock', 'advance', '--campaign', String(test.campaignId), '--days', '2']);
    const grown = Number(later.offsetMs) - Number(moved.offsetMs);
    assert.ok(grown <= 2 * 86_400_000 && grown > 86_400_000, `offset grew by ${grown} ms`);
    for (const args of [['--days', '1', '--to', to], []]) {
      const neither = await cli(['clock', 'advance', '--campaign', String(test.campaignId), ...args], env);
      assert.equal(neither.code, 1);
      assert.match(neither.stderr, /^refkit: give the new time with --to <date-time> or --days <n>, one of them\n$/);
    }
    const back = await cli(['clock', 'advance', '--campaign', String(test.campaignId), '--to', new Date().toISOString()], env);
    assert.equal(back.code, 1);
    assert.match(back.stderr, /forward only.*invalid_request/s);
    const liveMove = await cli(['clock', 'advance', '--campaign', String(live.campaignId), '--to', to], env);
    assert.equal(liveMove.code, 1);
    assert.match(liveMove.stderr, /invalid_request/);
  });
});
