// The service suite's files for `npm run test:quick` (the inner loop: under 3 minutes), one a line: all
// but those that start processes of their own, crash or restart them, or load the service for tens of
// seconds. Those run in `npm test` and CI; their subjects (crash safety, upgrades, process startup and
// shutdown, metrics scraping, database faults) rarely move with a change to a rule or a route.
import { readdirSync } from 'node:fs';

const SLOW = new Set([
  'backup.test.js', // a SQLite backup under a write load, and pg_dump
  'burst-crash.test.js', // SIGKILL mid-burst
  'crash-burst.test.js', // SIGKILL mid-burst of keyed calls
  'database-faults.test.js', // a PostgreSQL and a Redis of its own, restarted under load
  'email-crash.test.js', // SIGKILL while emails are sent
  'webhooks-crash.test.js', // SIGKILL while webhooks are sent
  'first-start.test.js', // the CLI and `serve` as processes, as a person starts them
  'import-event-loop.test.js', // a 20 MB import under a health-check load
  'keyed-retries.test.js', // SIGKILL mid-burst of keyed payments and refunds, and killed connections
  'processes.test.js', // several `serve` processes
  'processes-load.test.js', // several `serve` processes under load
  'prometheus.test.js', // Prometheus itself, scraping
  'shutdown.test.js', // SIGTERM under load
  'startup-race.test.js', // processes starting together
  'upgrade.test.js', // the previous release built and replaced under load
]);

const dir = '.test-build/test/server';
console.log(
  readdirSync(dir)
    .filter((f) => f.endsWith('.test.js') && !SLOW.has(f))
    .map((f) => `${dir}/${f}`)
    .join('\n'),
);
