/**
 * A loopback stand-in for the CAPTCHA providers (their servers cannot be reached from the machines the
 * tests run on): the service's CAPTCHA_VERIFY_URL points at its siteverify, and its CAPTCHA_SCRIPT_URL at
 * its script, ./fake-captcha-script.js, for the widget in a real browser.
 *
 * Its siteverify is written from the providers' references (Turnstile's, hCaptcha's and reCAPTCHA's agree
 * on it): a POST whose body is `application/x-www-form-urlencoded`, with `secret`, `response` and
 * optionally `remoteip` (and hCaptcha's optional `sitekey`), answered 200 with JSON
 * `{success, challenge_ts, hostname, 'error-codes'}`. It refuses with the documented error codes:
 * bad-request (not a form), missing-input-secret, invalid-input-secret (not FAKE_SECRET),
 * missing-input-response, invalid-input-response (a token it never issued), timeout-or-duplicate (a token
 * already verified: they are single-use), sitekey-secret-mismatch (a `sitekey` other than the one the
 * token was issued for). It issues tokens to the test (`issue`) and to its script (GET /token, CORS-open),
 * records every verification, and can be told to refuse the next ones, to fail with a status (500), or to
 * hang (never answer, past the service's timeout).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export const FAKE_SITE_KEY = '1x-fake-site-key';
export const FAKE_SECRET = '1x-fake-secret-key';

const SCRIPT = readFileSync(new URL('./fake-captcha-script.js', import.meta.url), 'utf8');

export interface Verification {
  /** The path siteverify was called at (the same stand-in answers for every provider). */
  path: string;
  contentType: string;
  /** The form's fields, as sent. */
  fields: Record<string, string>;
  /** What it answered: success, or the error codes. */
  success: boolean;
  errorCodes: string[];
}

export interface FakeCaptcha {
  origin: string;
  /** Its siteverify: the service's CAPTCHA_VERIFY_URL. */
  verifyUrl: string;
  /** Its script, which takes tokens from its /token: the service's CAPTCHA_SCRIPT_URL. */
  scriptUrl: string;
  verifications: Verification[];
  /** A token as a solved challenge gives one (for the site key; FAKE_SITE_KEY by default), good for one verification. */
  issue(siteKey?: string): string;
  /** The next `n` verifications answer success: false (invalid-input-response), whatever the token. */
  refuseNext(n?: number): void;
  /** Every verification answers this HTTP status with no verdict (500), until failWith(undefined). */
  failWith(status: number | undefined): void;
  /** Verifications get no answer at all (until hang(false)). */
  hang(on: boolean): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * `acceptPrefix`: tokens that begin with it count as issued for FAKE_SITE_KEY on their first
 * verification (still single-use): the benchmark's, one a sign-up, which cannot be issued ahead.
 */
export async function startFakeCaptcha({ acceptPrefix }: { acceptPrefix?: string } = {}): Promise<FakeCaptcha> {
  /** Tokens issued, by token: the site key each was issued for, and whether it was verified already. */
  const issued = new Map<string, { siteKey: string; used: boolean }>();
  const verifications: Verification[] = [];
  let refusals = 0;
  let failure: number | undefined;
  let hanging = false;

  const issue = (siteKey = FAKE_SITE_KEY) => {
    const token = `tok_${randomBytes(12).toString('hex')}`;
    issued.set(token, { siteKey, used: false });
    return token;
  };

  const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  async function siteverify(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const text = await readBody(req);
    if (hanging) return; // no answer; the socket is closed with the server
    if (failure !== undefined) return void res.writeHead(failure, { 'content-type': 'text/plain' }).end('upstream trouble');
    const contentType = req.headers['content-type'] ?? '';
    const form = contentType.split(';')[0]!.trim() === 'application/x-www-form-urlencoded';
    const fields = form ? Object.fromEntries(new URLSearchParams(text)) : {};
    const errorCodes: string[] = [];
    if (!form) errorCodes.push('bad-request');
    else if (!fields.secret) errorCodes.push('missing-input-secret');
    else if (fields.secret !== FAKE_SECRET) errorCodes.push('invalid-input-secret');
    if (form && !fields.response) errorCodes.push('missing-input-response');
    if (acceptPrefix && fields.response?.startsWith(acceptPrefix) && !issued.has(fields.response)) issued.set(fields.response, { siteKey: FAKE_SITE_KEY, used: false });
    const token = fields.response ? issued.get(fields.response) : undefined;
    if (errorCodes.length === 0) {
      if (refusals > 0) {
        refusals--;
        errorCodes.push('invalid-input-response');
      } else if (!token) errorCodes.push('invalid-input-response');
      else if (token.used) errorCodes.push('timeout-or-duplicate');
      else if (fields.sitekey !== undefined && fields.sitekey !== token.siteKey) errorCodes.push('sitekey-secret-mismatch');
    }
    // A token is spent by its first verification, whatever the answer (as the providers do).
    if (token && form) token.used = true;
    const success = errorCodes.length === 0;
    verifications.push({ path, contentType, fields, success, errorCodes });
    json(res, 200, success ? { success, challenge_ts: new Date().toISOString(), hostname: 'localhost', 'error-codes': [] } : { success, 'error-codes': errorCodes });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/api.js') return void res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' }).end(SCRIPT);
    if (url.pathname === '/token') {
      const token = issue(url.searchParams.get('sitekey') ?? FAKE_SITE_KEY);
      return void res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end(token);
    }
    if (url.pathname.endsWith('/siteverify')) {
      siteverify(req, res, url.pathname).catch(() => res.destroy());
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    verifyUrl: `${origin}/siteverify`,
    scriptUrl: `${origin}/api.js?tokens=${encodeURIComponent(`${origin}/token`)}`,
    verifications,
    issue,
    refuseNext: (n = 1) => void (refusals = n),
    failWith: (status) => void (failure = status),
    hang: (on) => void (hanging = on),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
