/** `refkit webhook ...`: the default account's webhook endpoints, their deliveries, and a local receiver. */
import { Option, type Command } from 'commander';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../api/schemas.js';
import { listen } from '../webhooks/domain/listen.js';
import { admin, adminValue } from './admin-calls.js';
import { jsonOption, type Run } from './cli-run.js';
import { int } from './option-values.js';

export function addWebhookCommands(program: Command, run: Run): void {
  const webhook = program.command('webhook').description('webhook endpoints and deliveries of the default account');
  webhook
    .command('add')
    .description('add an endpoint; its signing secret is printed once')
    .requiredOption('--url <url>', 'where events are sent: a public http(s) URL, or a loopback or private one where the service allows it (a demo database, WEBHOOK_ALLOW_PRIVATE=true)')
    .requiredOption('--events <types>', 'comma-separated: referrer_added,referee_added,reward_unlocked', (v: string) => v.split(',').map((t) => t.trim()))
    .option('--test', "gets test campaigns' events only (default: live campaigns' only)")
    .addOption(jsonOption)
    .action((o: { url: string; events: string[]; test?: boolean; json?: boolean }) =>
      admin(run, 'POST', 'createWebhookEndpoint', { url: o.url, eventTypes: o.events, ...(o.test && { test: true }) }, !!o.json),
    );
  webhook
    .command('list')
    .description('list endpoints (never their secrets)')
    .addOption(jsonOption)
    .action((o: { json?: boolean }) => admin(run, 'GET', 'listWebhookEndpoints', {}, !!o.json, 'No webhook endpoints yet.'));
  webhook
    .command('remove')
    .description('remove an endpoint by its id (whe_...)')
    .requiredOption('--id <endpointId>')
    .addOption(jsonOption)
    .action((o: { id: string; json?: boolean }) => admin(run, 'POST', 'deleteWebhookEndpoint', { id: o.id }, !!o.json));
  webhook
    .command('deliveries')
    .description('list deliveries, newest first, with their attempts')
    .addOption(new Option('--status <status>').choices(['pending', 'delivered', 'failed']))
    .option('--endpoint <endpointId>')
    .option('--event-type <type>')
    .option('--limit <n>', 'at most this many (1-100)', int)
    .addOption(jsonOption)
    .action((o: { status?: string; endpoint?: string; eventType?: string; limit?: number; json?: boolean }) =>
      admin(
        run,
        'GET',
        'listWebhookDeliveries',
        { status: o.status, endpointId: o.endpoint, eventType: o.eventType, limit: o.limit },
        !!o.json,
        o.status || o.endpoint || o.eventType ? 'No deliveries match.' : 'No deliveries yet.',
      ),
    );
  webhook
    .command('listen')
    .description('receive webhooks locally: print each event with its signature checked, optionally forward it to your app')
    .option('--forward-to <url>', 'send each event on (same body and signature headers) and answer with its status')
    .option('--port <n>', 'local port to listen on (default: any free one)', int, 0)
    .option('--events <types>', 'comma-separated event types', (v: string) => v.split(',').map((t) => t.trim()), [...WEBHOOK_EVENT_TYPES])
    .action(async (o: { forwardTo?: string; port: number; events: WebhookEventType[] }) => {
      const listener = await listen({
        host: '127.0.0.1',
        port: o.port,
        events: o.events,
        ...(o.forwardTo && { forwardTo: o.forwardTo }),
        // Its own target is loopback by design; the serving process still decides whether it delivers there.
        register: (url, eventTypes) =>
          adminValue<{ id: string; secret: string }>(run, 'POST', 'createWebhookEndpoint', { url, eventTypes }, { webhookAllowPrivate: true }),
        unregister: (id) => adminValue(run, 'POST', 'deleteWebhookEndpoint', { id }).then(() => undefined),
        print: (line) => run.stdout.write(`${line}\n`),
      });
      run.stdout.write(
        `Ready: webhooks of ${o.events.join(', ')} go to ${listener.url}${o.forwardTo ? ` and on to ${o.forwardTo}` : ''}\n` +
          `Signing secret (verify with it in your app): ${listener.secret}\nCtrl+C stops and removes the endpoint.\n`,
      );
      const stop = () => void listener.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  webhook
    .command('redeliver')
    .description('send a delivery again now (dlv_...)')
    .requiredOption('--id <deliveryId>')
    .addOption(jsonOption)
    .action((o: { id: string; json?: boolean }) => admin(run, 'POST', 'redeliverWebhook', { id: o.id }, !!o.json));
}
