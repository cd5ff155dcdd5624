/**
 * Campaigns as code (`refkit export` and `refkit apply`) on both databases, the built CLI run as a
 * process: an export applied to a new database exports the very same files; applying twice changes
 * nothing (no updated_on moves, no webhook event); an edited file's dry run shows the change and changes
 * nothing, and applying changes exactly that; a bad file (unknown field, wrong type, not YAML, a change
 * the rules refuse) changes nothing and is named by file and line; no secret is ever written.
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCampaign } from '../../src/server/campaigns/domain/campaigns.js';
import { DEFAULT_ACCOUNT } from '../../src/server/kernel/context.js';
import { putEmailText, updateEmailSettings } from '../../src/server/emails/domain/email-admin.js';
import { createEndpoint } from '../../src/server/webhooks/domain/webhook-endpoints.js';
import { openRuntime, type Runtime } from '../../src/server/runtime.js';
import { cli as cliInProcess } from './helpers/cli.js';
import { databaseKinds, type TestDatabase } from './helpers/databases.js';
import { cli } from './helpers/process.js';

// Not through PgBouncer: its CLI processes, one after another, are the file's time (it alone took a third of
// the pgbouncer kind's), and what they do to the database is one transaction, as every other file's calls.
const kinds = await databaseKinds({ pgbouncer: false });

/** Every file under `dir`, by path relative to it, with its text. */
async function tree(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path.slice(dir.length + 1)] = await readFile(path, 'utf8');
  }
  return files;
}

/** What apply may change, as rows: campaigns, endpoints, email texts, and how many webhook events there are. */
async function snapshot(rt: Runtime): Promise<string> {
  const db = rt.ctx.store.db;
  return JSON.stringify({
    campaigns: await db.selectFrom('campaigns').selectAll().orderBy('id').execute(),
    endpoints: await db.selectFrom('webhook_endpoints').selectAll().orderBy('id').execute(),
    texts: await db.selectFrom('email_texts').selectAll().orderBy('campaign_id').orderBy('kind').orderBy('locale').execute(),
    events: (await db.selectFrom('webhook_events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n,
    audit: await db.selectFrom('audit_log').select(['action', 'actor_kind', 'campaign_id', 'target', 'before', 'after']).orderBy('id').execute(),
  });
}

/** The 1-based line of `file` that is `text`. */
const lineOf = (file: string, text: string) => file.split('\n').indexOf(text) + 1;

for (const kind of kinds) {
  describe(`refkit export / apply [${kind.name}]`, { skip: kind.skip, concurrency: 1 }, () => {
    let source: TestDatabase;
    let target: TestDatabase;
    let rtSource: Runtime;
    let rtTarget: Runtime;
    let work: string;
    let secrets: string[];
    const env = (db: TestDatabase) => ({ DATABASE_URL: db.url, WEBHOOK_ALLOW_PRIVATE: 'true' });
    const spring = 'spring';

    before(async () => {
      [source, target] = await Promise.all([kind.create(), kind.create()]);
      [rtSource, rtTarget] = await Promise.all([openRuntime({ databaseUrl: source.url }), openRuntime({ databaseUrl: target.url })]);
      work = await mkdtemp(join(tmpdir(), 'refkit-config-'));
      const ctx = rtSource.ctx;
      const a = await createCampaign(
        ctx,
        DEFAULT_ACCOUNT,
        {
          campaignName: 'Spring: "sale"',
          hostURL: 'https://shop.example/join',
          referrerRewardValue: 10,
          refereeRewardValue: 5,
          rewardType: 'credit',
          rewardCurrency: 'EUR',
          rewardHeader: 'Give 5, get 10',
          rewardDescription: 'Line one\nLine two: with a colon\n\n# not a comment',
          shareHeader: 'Share',
          shareDescription: 'Tell friends',
          end: '2030-01-31T12:00:00.000Z',
          allowedOrigins: ['https://www.shop.example', 'http://localhost:5173'],
          shareMessages: { x: 'Join me {link}', emailSubject: 'A gift', email: 'Hi,\n\nhere: {link}' },
          widgetStyle: { radius: 4, accent: '#112233' },
          referrerRewardPercent: 12.5,
          commissionPayments: 2,
          milestones: [{ referrals: 5, reward: 50, label: 'Five' }, { referrals: 1, reward: 1, label: 'First: yes' }],
          maxReferralReward: 300,
          holdDays: 14,
          stripeWebhookSecret: 'whsec_configtestsecret1',
          stripeRewardKey: 'rk_test_configtestkey12',
          stripeRewardMode: 'off',
          rewardCodesLowThreshold: 3,
          leaderboard: { period: 'month', size: 5 },
          timeZone: 'Europe/Berlin',
        },
        spring,
      );
      const b = await createCampaign(ctx, DEFAULT_ACCOUNT, { campaignName: 'Waitlist', hostURL: 'https://soon.example/', waitlist: { spotsPerReferral: 3, counts: 'qualified' } });
      await updateEmailSettings(ctx, DEFAULT_ACCOUNT, { id: spring, reminder: true, reminderDays: 3, welcome: false, postalAddress: '1 Main St, Springfield' });
      await putEmailText(ctx, DEFAULT_ACCOUNT, { id: spring, kind: 'welcome', locale: 'de', subject: 'Willkommen, {firstName}', body: 'Hallo {firstName},\n\ndein Link: {shareLink}\n' });
      await putEmailText(ctx, DEFAULT_ACCOUNT, { id: spring, kind: 'reminder', locale: 'en', subject: 'Still there?', body: 'Share {shareLink}' });
      const hook = await createEndpoint(ctx, DEFAULT_ACCOUNT, { url: 'http://127.0.0.1:9/refkit?x=1', eventTypes: ['reward_unlocked', 'referee_added'] }, true);
      secrets = ['whsec_configtestsecret1', 'rk_test_configtestkey12', a.signing_secret!, a.email_secret!, b.signing_secret!, b.email_secret!, hook.secret];
    });
    after(async () => {
      await Promise.all([rtSource.close(), rtTarget.close()]);
      await Promise.all([source.drop(), target.drop(), rm(work, { recursive: true, force: true })]);
    });

    async function run(args: string[], db: TestDatabase): Promise<string> {
      const r = await cli(args, env(db));
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    }

    it('export writes a commented file per campaign and endpoint with no secret; applied to a new database it exports the same files; applying again changes nothing', async () => {
      const exported = join(work, 'exported');
      const out = await run(['export', '--dir', exported], source);
      assert.match(out, /Exported 2 campaigns and 1 webhook endpoint\./);
      const files = await tree(exported);
      assert.deepEqual(Object.keys(files).sort().filter((f) => f.startsWith('campaigns/spring') || f.startsWith('webhooks/')), [
        'campaigns/spring.yaml',
        'webhooks/127-0-0-1-9-refkit-x-1.yaml',
      ]);
      const all = Object.values(files).join('\n');
      for (const secret of secrets) assert.ok(!all.includes(secret), `the export holds the secret ${secret}`);
      assert.doesNotMatch(all, /whsec_|rk_test_|stripeWebhookSecret|stripeRewardKey/);
      const springFile = files['campaigns/spring.yaml']!;
      assert.match(springFile, /^# Campaign spring: /);
      assert.match(springFile, /kept as they are on apply/);
      assert.match(files['webhooks/127-0-0-1-9-refkit-x-1.yaml']!, /^# A webhook endpoint/);
      // Keys in the API's order; the texts the owner wrote (and only those); the event types in the API's order.
      assert.ok(springFile.indexOf('\ncampaignName:') < springFile.indexOf('\nhostURL:') && springFile.indexOf('\nhostURL:') < springFile.indexOf('\nwaitlist:'));
      assert.match(springFile, /^ {4}- kind: reminder\n {6}locale: en\n/m);
      assert.equal(springFile.match(/- kind:/g)!.length, 2);
      assert.match(files['webhooks/127-0-0-1-9-refkit-x-1.yaml']!, /eventTypes:\n {2}- referee_added\n {2}- reward_unlocked\n/);

      // The same files, applied where they came from: nothing to do, nothing written.
      const before = await snapshot(rtSource);
      assert.match(await run(['apply', '--dir', exported], source), /No changes\./);
      assert.equal(await snapshot(rtSource), before);

      // To a new database: everything created, each field listed; the new endpoint's secret printed once.
      const applied = await run(['apply', '--dir', exported], target);
      assert.match(applied, /^\+ campaign spring \(Spring: "sale"\): create/m);
      assert.match(applied, /^ {4}\+ milestones: \[\{"referrals":1,"reward":1,"label":"First: yes"\},\{"referrals":5/m);
      assert.match(applied, /^ {4}\+ emails\.texts welcome\/de: /m);
      assert.match(applied, /^\+ webhook http:\/\/127\.0\.0\.1:9\/refkit\?x=1: create/m);
      assert.match(applied, /Applied: 3 created, 0 changed\./);
      assert.match(applied, /Signing secret of http:\/\/127\.0\.0\.1:9\/refkit\?x=1 \(shown once.*\): whsec_/);
      const again = join(work, 'again');
      await run(['export', '--dir', again], target);
      assert.deepEqual(await tree(again), files);

      // Applying twice: the second run changes nothing (no updated_on moves, no event, no text rewritten).
      const applied1 = await snapshot(rtTarget);
      const second = await run(['apply', '--dir', exported], target);
      assert.match(second, /No changes\./);
      assert.doesNotMatch(second, /^[+~-] /m);
      assert.equal(await snapshot(rtTarget), applied1);
    });

    it('an edited file: the dry run shows each change (old -> new) and changes nothing; apply changes exactly that, and a campaign not in the folder is left alone', async () => {
      const dir = join(work, 'edited');
      await run(['export', '--dir', dir], target);
      const file = join(dir, 'campaigns', 'spring.yaml');
      let text = await readFile(file, 'utf8');
      text = text.replace('shareHeader: Share\n', 'shareHeader: Share and earn\n').replace('    reminderDays: 3\n', '    reminderDays: 10\n');
      // Texts: one changed, one taken out (back to its default).
      text = text.replace('subject: Still there?', 'subject: Still here?').replace(/ {4}- kind: welcome\n(?:(?: {6}.*)?\n)+?(?= {4}- )/, '');
      await writeFile(file, text);
      const hookFile = join(dir, 'webhooks', '127-0-0-1-9-refkit-x-1.yaml');
      await writeFile(hookFile, (await readFile(hookFile, 'utf8')).replace('  - referee_added\n', '  - referrer_added\n'));
      // The other campaign's file goes: that campaign is "not in config", left as it is.
      const other = (await readdir(join(dir, 'campaigns'))).find((f) => f !== 'spring.yaml')!;
      await rm(join(dir, 'campaigns', other));

      const before = await snapshot(rtTarget);
      const dry = await run(['apply', '--dir', dir, '--dry-run'], target);
      assert.match(dry, /^~ campaign spring \(Spring: "sale"\): change/m);
      assert.match(dry, /^ {4}~ shareHeader: "Share" -> "Share and earn"$/m);
      assert.match(dry, /^ {4}~ emails\.settings\.reminderDays: 3 -> 10$/m);
      assert.match(dry, /^ {4}~ emails\.texts reminder\/en: \{"subject":"Still there\?".*-> \{"subject":"Still here\?"/m);
      assert.match(dry, /^ {4}- emails\.texts welcome\/de: .* -> the default text$/m);
      assert.match(dry, /^ {4}~ eventTypes: \["referee_added","reward_unlocked"\] -> \["referrer_added","reward_unlocked"\]$/m);
      assert.match(dry, new RegExp(`^\\? campaign ${other.replace('.yaml', '')} \\(Waitlist\\): not in config$`, 'm'));
      assert.match(dry, /Dry run: 0 to create, 2 to change\. Nothing was changed\./);
      assert.equal((dry.match(/^ {4}[+~-] /gm) ?? []).length, 5);
      assert.equal(await snapshot(rtTarget), before);

      const applied = await run(['apply', '--dir', dir], target);
      assert.match(applied, /Applied: 0 created, 2 changed\./);
      assert.doesNotMatch(applied, /Signing secret/);
      const after = JSON.parse(await snapshot(rtTarget)) as Record<string, Record<string, unknown>[]>;
      const was = JSON.parse(before) as typeof after;
      const changedColumns = (a: Record<string, unknown>, b: Record<string, unknown>) => Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
      const spring = (rows: Record<string, unknown>[]) => rows.find((c) => c.id === 'spring')!;
      assert.deepEqual(changedColumns(spring(after.campaigns!), spring(was.campaigns!)), ['email_settings', 'share_header', 'updated_on']);
      assert.deepEqual(changedColumns(after.campaigns!.find((c) => c.id !== 'spring')!, was.campaigns!.find((c) => c.id !== 'spring')!), []);
      assert.deepEqual(changedColumns(after.endpoints![0]!, was.endpoints![0]!), ['event_types']);
      assert.deepEqual(after.texts!.map((t) => [t.kind, t.locale, t.subject]), [['reminder', 'en', 'Still here?']]);
      // One audit entry for each campaign and endpoint the apply changed, as the CLI, with what changed.
      const entries = after.audit!.slice(was.audit!.length);
      assert.deepEqual(
        entries.map((e) => [e.action, e.actor_kind, e.campaign_id, e.target]),
        [
          ['apply', 'cli', 'spring', 'campaign spring (Spring: "sale")'],
          ['apply', 'cli', null, 'webhook http://127.0.0.1:9/refkit?x=1'],
        ],
      );
      assert.deepEqual(JSON.parse(String(entries[0]!.before)).shareHeader, 'Share');
      assert.deepEqual(JSON.parse(String(entries[0]!.after)).shareHeader, 'Share and earn');
      assert.equal(after.events, was.events);
      // The folder now says what the database holds.
      const check = join(work, 'check');
      await run(['export', '--dir', check], target);
      assert.equal(await readFile(join(check, 'campaigns', 'spring.yaml'), 'utf8'), text);
      assert.match(await run(['apply', '--dir', dir], target), /No changes\./);
    });

    it('a bad file changes nothing, even with good changes beside it, and names its file, line and column', async () => {
      const good = join(work, 'good');
      await run(['export', '--dir', good], target);
      const before = await snapshot(rtTarget);
      const cases: { name: string; edit: (text: string) => string; at: string; column?: number; message: RegExp }[] = [
        { name: 'an unknown field', edit: (t) => t.replace('holdDays: 14\n', 'holdDays: 14\nholdDay: 3\n'), at: 'holdDay: 3', message: /Unknown field holdDay/ },
        { name: 'a secret, which a file never holds', edit: (t) => t.replace('holdDays: 14\n', 'holdDays: 14\nstripeRewardKey: rk_test_abcdefghijkl\n'), at: 'stripeRewardKey: rk_test_abcdefghijkl', message: /Unknown field stripeRewardKey/ },
        { name: 'a wrong type', edit: (t) => t.replace('referrerRewardValue: 10\n', 'referrerRewardValue: ten\n'), at: 'referrerRewardValue: ten', message: /referrerRewardValue must be integer/ },
        { name: 'a value out of bounds, deep in a union', edit: (t) => t.replace(/leaderboard:\n {2}period: month\n {2}size: 5\n/, 'leaderboard:\n  period: month\n  size: 500\n'), at: '  size: 500', message: /leaderboard\.size must be <= 100/ },
        { name: 'not YAML', edit: (t) => t.replace('rewardType: credit\n', 'rewardType: credit: yes\n'), at: 'rewardType: credit: yes', column: 13, message: /not YAML: Nested mappings/ },
        { name: 'a rule of the API (a bad time zone)', edit: (t) => t.replace('timeZone: Europe/Berlin\n', 'timeZone: Mars/Olympus\n'), at: 'timeZone: Mars/Olympus', message: /Unknown time zone "Mars\/Olympus".*\(invalid_request\)/ },
      ];
      for (const c of cases) {
        const dir = join(work, `bad-${cases.indexOf(c)}`);
        await cp(good, dir, { recursive: true });
        // A good change in another file, refused with the bad one.
        const hookFile = join(dir, 'webhooks', '127-0-0-1-9-refkit-x-1.yaml');
        await writeFile(hookFile, (await readFile(hookFile, 'utf8')).replace('  - reward_unlocked\n', '  - reward_unlocked\n  - access_granted\n'));
        const file = join(dir, 'campaigns', 'spring.yaml');
        const text = c.edit(await readFile(file, 'utf8'));
        assert.ok(lineOf(text, c.at) > 0, `${c.name}: the edit was made`);
        await writeFile(file, text);
        for (const dryRun of [[], ['--dry-run']]) {
          const r = await cliInProcess(['apply', '--dir', dir, ...dryRun], env(target));
          assert.equal(r.code, 1, `${c.name}: ${r.stdout}`);
          assert.equal(r.stdout, '', c.name);
          const column = c.column ?? text.split('\n')[lineOf(text, c.at) - 1]!.search(/\S/) + 1;
          // First, or after the line naming the database when the API's rules refused it (a YAML problem is found before it is opened).
          assert.match(r.stderr, new RegExp(`^(Database: .*\n)?${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${lineOf(text, c.at)}:${column}: `), `${c.name}: ${r.stderr}`);
          assert.match(r.stderr, c.message, c.name);
          assert.match(r.stderr, /Nothing was changed\.\n$/);
        }
        assert.equal(await snapshot(rtTarget), before, c.name);
      }
      // A change the rules refuse: a waitlist's settings while it is on.
      const dir = join(work, 'refused');
      await cp(good, dir, { recursive: true });
      const other = join(dir, 'campaigns', (await readdir(join(dir, 'campaigns'))).find((f) => f !== 'spring.yaml')!);
      const waitlistText = await readFile(other, 'utf8');
      await writeFile(other, waitlistText.replace('  spotsPerReferral: 3\n', '  spotsPerReferral: 4\n'));
      const waitlist = await cliInProcess(['apply', '--dir', dir], env(target));
      assert.equal(waitlist.code, 1);
      assert.match(waitlist.stderr, new RegExp(`:${lineOf(waitlistText, 'waitlist:')}:1: A waitlist's settings cannot change while it is on`));
      assert.equal(await snapshot(rtTarget), before);
      await writeFile(other, waitlistText);
      // A refusal once applying has begun (campaigns go first, then endpoints) rolls back the changes made before it.
      const spring = join(dir, 'campaigns', 'spring.yaml');
      await writeFile(spring, (await readFile(spring, 'utf8')).replace('shareHeader: Share and earn\n', 'shareHeader: Changed first\n'));
      await writeFile(join(dir, 'webhooks', 'new.yaml'), 'url: http://127.0.0.1:8/new\neventTypes: [referee_added]\n');
      const refused = await cliInProcess(['apply', '--dir', dir], { ...env(target), WEBHOOK_ALLOW_PRIVATE: 'false' });
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /webhooks\/new\.yaml:1:1: .*\(invalid_request\)\nNothing was changed\.\n$/);
      assert.equal(await snapshot(rtTarget), before);
      await rm(join(dir, 'webhooks', 'new.yaml'));
      // Two files naming one campaign: the second is refused at its id.
      await cp(join(dir, 'campaigns', 'spring.yaml'), join(dir, 'campaigns', 'spring-copy.yaml'));
      await rm(other);
      const twice = await cliInProcess(['apply', '--dir', dir], env(target));
      assert.equal(twice.code, 1);
      assert.match(twice.stderr, /spring\.yaml:\d+:1: .*spring-copy\.yaml names spring too|spring-copy\.yaml:\d+:1: .*spring\.yaml names spring too/);
      assert.equal(await snapshot(rtTarget), before);
      // A folder that is not there.
      const missing = await cliInProcess(['apply', '--dir', join(work, 'nowhere')], env(target));
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /is not a folder/);
    });

    it('export owns campaigns/ and webhooks/: a file naming nothing exported goes; two endpoints at one URL (which no file could name apart) are refused, with nothing written or changed', async () => {
      const dir = join(work, 'owned');
      await run(['export', '--dir', dir], source);
      await writeFile(join(dir, 'webhooks', 'gone.yaml'), 'url: https://gone.example/\neventTypes: [referee_added]\n');
      await writeFile(join(dir, 'notes.md'), 'kept');
      const again = await run(['export', '--dir', dir], source);
      assert.match(again, /^removed .*webhooks\/gone\.yaml \(names nothing exported\)$/m);
      assert.deepEqual(Object.keys(await tree(dir)).filter((f) => !f.startsWith('campaigns/')), ['notes.md', 'webhooks/127-0-0-1-9-refkit-x-1.yaml']);

      await createEndpoint(rtSource.ctx, DEFAULT_ACCOUNT, { url: 'http://127.0.0.1:9/refkit?x=1', eventTypes: ['referee_added'] }, true);
      const files = await tree(dir);
      const refused = await cli(['export', '--dir', dir], env(source));
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /2 webhook endpoints send to http:\/\/127\.0\.0\.1:9\/refkit\?x=1.*refkit webhook remove/);
      assert.deepEqual(await tree(dir), files);
      const before = await snapshot(rtSource);
      const apply = await cliInProcess(['apply', '--dir', dir], env(source));
      assert.equal(apply.code, 1);
      assert.match(apply.stderr, /webhooks\/127-0-0-1-9-refkit-x-1\.yaml:\d+:1: 2 webhook endpoints send to/);
      assert.equal(await snapshot(rtSource), before);
    });
  });
}
