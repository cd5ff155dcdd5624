/** The benchmark's side of the load generator process (bench/load.ts): one measurement at a time. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface LoadSpec {
  origin: string;
  /** Paths (with query) sent in turn, one per request. */
  paths: string[];
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** JSON bodies sent in turn, one per request. */
  bodies?: string[];
  /** JSON bodies sent in turn, in which `{n}` becomes a number never used before in this run (unique emails). */
  bodyTemplates?: string[];
  /** Each request from a client address of its own (X-Forwarded-For, one trusted proxy hop), as real visitors are. */
  distinctClients?: boolean;
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

export interface LoadResult {
  /** Mean requests per second over the measured run's one-second samples. */
  rps: number;
  /** Latency percentiles in milliseconds, of the 2xx answers (to the µs: autocannon's own are whole ms). */
  p50: number;
  p99: number;
  /** Every 2xx answer's latency in ms, sorted: what lets several runs' percentiles be taken together. */
  latencies: number[];
  requests: number;
  /** Requests of the warm-up and the measured run together (what the server's CPU time was spent on). */
  allRequests: number;
  /** The server's CPU time (user + system) per request over warm-up and run, in microseconds, when known. */
  cpuMicrosPerRequest?: number;
  non2xx: number;
  errors: number;
  statuses: Record<string, number>;
}

export interface Loader {
  measure(spec: LoadSpec): Promise<LoadResult>;
  /** The load generator's process id (what its CPU time is read by: bench/processes.ts weighs its cost). */
  pid: number;
  close(): void;
}

type Reply = { ok: true; result: LoadResult } | { ok: false; error: string };

/**
 * `first`: where this generator's numbering of emails and client addresses starts, so that several
 * generators at once (one per service process, bench/processes.ts) never send the same one.
 */
export function startLoader(first = 0): Loader {
  const child: ChildProcess = fork(fileURLToPath(new URL('./load.ts', import.meta.url)), [String(first)], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  let queue = Promise.resolve();
  return {
    measure(spec) {
      const next = queue.then(
        () =>
          new Promise<LoadResult>((resolve, reject) => {
            const onExit = (code: number | null) => reject(new Error(`load generator exited (${code})`));
            child.once('exit', onExit);
            child.once('message', (reply: Reply) => {
              child.off('exit', onExit);
              if (reply.ok) resolve(reply.result);
              else reject(new Error(reply.error));
            });
            child.send(spec);
          }),
      );
      queue = next.then(
        () => undefined,
        () => undefined,
      );
      return next;
    },
    pid: child.pid!,
    close: () => void child.kill(),
  };
}
