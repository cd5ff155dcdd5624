/**
 * `refkit webhook listen`: a local receiver that registers itself, prints each event with its
 * signature checked, forwards it to the developer's app, and removes its endpoint when stopped.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../src/api/schemas.js';
import { Webhook } from 'standardwebhooks';
import { listen } from '../../src/server/webhooks/domain/listen.js';
import { databaseKinds } from './helpers/databases.js';
import { readDoc } from './helpers/docs.js';
import { runCli } from './helpers/process.js';
import { freePort, startReceiver, waitFor } from './helpers/receiver.js';
import { startService, type TestService } from './helpers/service.js';

const kinds = await databaseKinds();
const [sqlite] = kinds;

/** listen() registered through the service's admin API, printing into an array. */
async function listenOn(s: TestService, forwardTo?: string) {
  const lines: string[] = [];
  const listener = await listen({
    host: '127.0.0.1',
    port: 0,
    events: ['referrer_added', 'referee_added'] as WebhookEventType[],
    ...(forwardTo && { forwardTo }),
    register: (url, eventTypes) => s.admin.createWebhookEndpoint({ url, eventTypes }),
    unregister: (id) => s.admin.deleteWebhookEndpoint(id).then(() => undefined),
    print: (line) => lines.push(line),
  });
  return { listener, lines };
}

describe('refkit webhook listen', () => {
  it('prints each event verified, forwards it with its signature headers, and answers with the app\'s status', async () => {
    const s = await startService(sqlite!, { dispatcher: { pollMs: 50, retryDelaysMs: [60_000] } });
    const app = await startReceiver();
    try {
      const { listener, lines } = await listenOn(s, app.url);
      assert.match(listener.secret, /^whsec_/);
      const id = await s.campaign();
      await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await waitFor(() => lines.find((l) => l.includes('referrer_added')), 'the event printed');
      const line = lines.find((l) => l.includes('referrer_added'))!;
      assert.match(line, /ann@example\.com \([2-9A-Z]{8}\)\s+msg_\S+\s+signature verified/);
      await waitFor(() => app.received.length === 1, 'the event forwarded');
      const forwarded = app.received[0]!;
      assert.equal(forwarded.path, '/hooks');
      assert.equal(JSON.parse(forwarded.body).eventType, 'referrer_added');
      assert.match(String(forwarded.headers['webhook-signature']), /^v1,/);
      // The app records the request before it answers; the line is printed once the answer is back.
      await waitFor(() => lines.some((l) => l === `  -> POST ${app.url} [200]`), 'the forward printed with the app\'s status');

      // The app fails: the service hears the app's 500 and will retry, as in production.
      app.respond = () => ({ status: 500 });
      await s.admin.addParticipant({ id, email: 'ben@example.com' });
      await waitFor(async () => (await s.admin.listWebhookDeliveries({ status: 'pending' })).find((d) => d.attempts[0]?.statusCode === 500), 'a 500 recorded');

      // Anything not signed by the service is flagged and refused.
      const forged = await fetch(listener.url, { method: 'POST', body: '{"eventType":"reward_unlocked"}', headers: { 'webhook-id': 'msg_x', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAAA' } });
      assert.equal(forged.status, 400);
      assert.ok(lines.some((l) => l.includes('reward_unlocked') && l.includes('SIGNATURE INVALID')));

      await listener.stop();
      assert.deepEqual(await s.admin.listWebhookEndpoints(), [], 'stopping removes the endpoint');
    } finally {
      await app.close();
      await s.close();
    }
  });

  it('the CLI command registers on the database of DATABASE_URL, prints the secret and events, and cleans up on Ctrl+C', async () => {
    const s = await startService(sqlite!, { dispatcher: { pollMs: 50 } });
    try {
      const child = runCli(['webhook', 'listen'], { DATABASE_URL: s.database.url });
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
      await waitFor(() => /Signing secret \(verify with it in your app\): whsec_/.test(out), `the ready banner, got: ${out}`);
      assert.match(out, new RegExp(`Ready: webhooks of ${WEBHOOK_EVENT_TYPES.join(', ')} go to http://127\\.0\\.0\\.1:\\d+/`));
      const id = await s.campaign();
      await s.admin.addParticipant({ id, email: 'cli@example.com' });
      await waitFor(() => /referrer_added\s+cli@example\.com .* signature verified/.test(out), `the event line, got: ${out}`);
      // An erasure's event names no one: the line says which participant.
      const [erased] = (await s.admin.erasePerson('cli@example.com')).participants;
      await waitFor(() => new RegExp(`participant_erased\\s+participant ${erased!.participantId} erased .* signature verified`).test(out), `the erasure's line, got: ${out}`);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      assert.equal(await exited, 0);
      // Removed by another process: this one's endpoint cache follows within its refresh (0.5 s, docs/architecture.md, "Caches").
      await waitFor(async () => (await s.admin.listWebhookEndpoints()).length === 0, 'the endpoint removed', 3000);
    } finally {
      await s.close();
    }
  });

  it("docs/webhooks.md's receiver.mjs, run as written behind `webhook listen --forward-to`, verifies and prints the events", async () => {
    const code = /A complete receiver, `receiver\.mjs`:\n\n```js\n([\s\S]*?)```/.exec(readDoc('docs/webhooks.md'))?.[1];
    assert.ok(code, 'docs/webhooks.md has the receiver');
    // Inside the project, so that `standardwebhooks` resolves from its node_modules as it would for a user.
    const dir = new URL('../../node_modules/.cache/readme/', import.meta.url);
    mkdirSync(dir, { recursive: true });
    writeFileSync(new URL('receiver.mjs', dir), code);
    const s = await startService(sqlite!, { dispatcher: { pollMs: 50 } });
    const port = await freePort();
    const { listener, lines } = await listenOn(s, `http://localhost:${port}/`);
    const receiver = spawn(process.execPath, [new URL('receiver.mjs', dir).pathname], {
      env: { ...process.env, REFKIT_WEBHOOK_SECRET: listener.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    receiver.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    receiver.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await waitFor(async () => fetch(`http://localhost:${port}/`, { method: 'POST', body: '{}' }).then((r) => r.status === 400, () => false), 'receiver up, refusing unsigned');
      const id = await s.campaign();
      const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
      await waitFor(() => out.includes(`referrer_added ann@example.com ${ann.referralCode}`), `the receiver's line, got: ${out}`);
      await waitFor(() => lines.includes(`  -> POST http://localhost:${port}/ [204]`), 'the forward answered 204');
    } finally {
      receiver.kill();
      await listener.stop();
      await s.close();
    }
  });
});

for (const kind of kinds) {
  describe(`refkit webhook listen, hostile deliveries [${kind.name}]`, { skip: kind.skip }, () => {
    it('a replayed webhook-id is acknowledged and flagged, not forwarded again; one the app failed is forwarded again', async () => {
      const s = await startService(kind);
      const app = await startReceiver();
      try {
        const { listener, lines } = await listenOn(s, app.url);
        const signer = new Webhook(listener.secret);
        const body = JSON.stringify({ eventType: 'referrer_added', data: { email: 'ann@example.com', code: 'ABCD2345' } });
        const send = (id: string) => {
          const now = new Date();
          const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signer.sign(id, now, body) };
          return fetch(listener.url, { method: 'POST', body, headers });
        };
        assert.equal((await send('msg_once')).status, 200);
        assert.equal(app.received.length, 1);
        // The same signed request again, as an attacker who captured it would send it within the tolerance.
        assert.equal((await send('msg_once')).status, 200);
        assert.equal(app.received.length, 1, 'not forwarded twice');
        assert.ok(lines.some((l) => l.includes('msg_once') && l.includes('DUPLICATE')));

        app.respond = () => ({ status: 500 });
        assert.equal((await send('msg_failed')).status, 500);
        app.respond = () => ({ status: 200 });
        assert.equal((await send('msg_failed')).status, 200, "the service's retry of a delivery the app failed reaches the app");
        assert.equal(app.received.length, 3);
        await listener.stop();
      } finally {
        await app.close();
        await s.close();
      }
    });

    it('prints what a request says escaped: no escape sequence or line break reaches the terminal', async () => {
      const s = await startService(kind);
      try {
        const { listener, lines } = await listenOn(s);
        const forged = JSON.stringify({
          eventType: 'referrer_added\u001b[2K\r12:00:00  reward_unlocked',
          data: { email: 'x@example.com\n12:00:01  referrer_added  fake@example.com  msg_1  signature verified', code: '\u009b31m\u202e' },
        });
        const res = await fetch(listener.url, { method: 'POST', body: forged, headers: { 'webhook-id': 'msg_forged', 'webhook-timestamp': '1', 'webhook-signature': 'v1,AAAA' } });
        assert.equal(res.status, 400);
        assert.equal(lines.length, 1);
        const line = lines[0]!;
        // eslint-disable-next-line no-control-regex -- looking for control characters is the point
        assert.doesNotMatch(line, /[\u0000-\u001f\u007f-\u009f\u202e]/, 'no control character printed');
        assert.match(line, /referrer_added\\u001b\[2K\\u000d12:00:00/);
        assert.match(line, /x@example\.com\\u000a12:00:01/);
        assert.match(line, /SIGNATURE INVALID$/);
        await listener.stop();
      } finally {
        await s.close();
      }
    });
  });
}
