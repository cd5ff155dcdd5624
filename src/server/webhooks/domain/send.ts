/**
 * One HTTP POST to a resolved webhook target: the connection goes to the address the target check
 * approved (a `lookup` that answers only that address), while the URL's host name stays in the Host
 * header and in TLS (SNI and certificate checks). Redirects are not followed. Resolves with the status.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookTarget } from './webhook-targets.js';

function pinnedLookup(target: WebhookTarget): LookupFunction {
  return (_hostname, options, callback) => {
    const cb = callback as (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void;
    if (options.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
}

export function postTo(target: WebhookTarget, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<number> {
  const request = target.url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(
      target.url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: pinnedLookup(target), signal },
      (res) => {
        // Drain (and drop) the body so the connection is released.
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    // An abort reports the signal's reason (a TimeoutError), so the caller can tell a timeout.
    req.on('error', (err) => reject(signal.aborted ? (signal.reason as Error) : err));
    req.end(body);
  });
}
