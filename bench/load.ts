/**
 * The load generator, in a process of its own (forked by bench/loader.ts) so that it never competes with
 * the measured server for an event loop. It takes one measurement per IPC message: a warm-up run whose
 * figures are thrown away, then the measured run, both with autocannon.
 */
import autocannon from 'autocannon';
import type { LoadResult, LoadSpec } from './loader.js';
import { quantile } from './report.js';

/** Numbers sign-ups across every run of this process, so no two requests share an email (from where bench/loader.ts says). */
let serial = Number(process.argv[2] ?? 0);

/** The n-th client address: 10.0.0.0/8 and then 11/8 and so on, one /24 network per 256 clients. */
const clientAddress = (n: number) => `${10 + (n >>> 24)}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

/** The latencies of one run's 2xx answers, in ms to the µs (autocannon's own figures are whole ms). */
interface Run {
  result: autocannon.Result;
  latencies: number[];
}

function run(spec: LoadSpec, seconds: number): Promise<Run> {
  let k = 0;
  const latencies: number[] = [];
  let done!: (err: unknown, result: autocannon.Result) => void;
  const finished = new Promise<Run>((resolve, reject) => (done = (err, result) => (err ? reject(err) : resolve({ result, latencies }))));
  const instance = autocannon({
    url: spec.origin,
    connections: spec.connections,
    duration: seconds,
    method: spec.method ?? 'GET',
    headers: { ...(spec.bodies || spec.bodyTemplates ? { 'content-type': 'application/json' } : {}), ...spec.headers },
    requests: [
      {
        setupRequest: (req) => {
          const i = k++;
          const template = spec.bodyTemplates?.[i % spec.bodyTemplates.length];
          const body = template?.replaceAll('{n}', String(serial++)) ?? spec.bodies?.[i % spec.bodies.length];
          const headers = spec.distinctClients ? { ...req.headers, 'x-forwarded-for': clientAddress(serial++) } : req.headers;
          return { ...req, headers, path: spec.paths[i % spec.paths.length]!, ...(body !== undefined && { body }) };
        },
      },
    ],
  }, done);
  instance.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(Math.round(ms * 1000) / 1000);
  });
  return finished;
}

process.on('message', (spec: LoadSpec) => {
  void (async () => {
    try {
      const warmup = spec.warmupSeconds > 0 ? (await run(spec, spec.warmupSeconds)).result.requests.total : 0;
      const { result: r, latencies } = await run(spec, spec.seconds);
      const sorted = latencies.sort((a, b) => a - b);
      const statuses = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, (s as { count: number }).count]));
      const result: LoadResult = {
        rps: r.requests.average,
        p50: quantile(sorted, 0.5),
        p99: quantile(sorted, 0.99),
        latencies: sorted,
        requests: r.requests.total,
        allRequests: warmup + r.requests.total,
        non2xx: r.non2xx,
        errors: r.errors,
        statuses,
      };
      process.send!({ ok: true, result });
    } catch (err) {
      process.send!({ ok: false, error: String(err) });
    }
  })();
});
