/** The service's configuration, read from the environment once, checked, and passed down explicitly. */
import { createRequire } from 'node:module';
import ipaddr from 'ipaddr.js';
import { hashSecret } from './kernel/secrets.js';
import type { DispatcherOptions } from './webhooks/domain/dispatcher.js';
import type { EmailSenderOptions } from './emails/domain/sender.js';
import { DEFAULT_PORTAL_SIGNINS_PER_IP, DEFAULT_RATE_LIMITS, type RateLimits } from './http/rate-limit.js';
import { DEFAULT_ERASURE_BLOCK_DAYS } from './privacy/domain/erasure-block.js';
import { DEFAULT_CONNECT_TIMEOUT_MS } from './store/connect.js';
import type { CashSenderOptions } from './payouts/domain/sender-kit.js';
import { Sealer } from './kernel/sealed.js';
import type { FraudSettings } from './kernel/context.js';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /**
   * PostgreSQL: how long a query waits for a connection before it fails as database_unavailable (503);
   * the bound on a request's wait while the database is away (DATABASE_CONNECT_TIMEOUT_MS).
   */
  databaseConnectTimeoutMs: number;
  /** SHA-256 of REFKIT_SECRET_KEY, when set: accepted as a secret key of the default account. */
  secretKeyHash: string | undefined;
  logLevel: string;
  webhookAllowPrivate: boolean;
  /** Dispatcher settings; the retry schedule of docs/webhooks.md unless overridden (tests and staging use short ones). */
  webhooks: Partial<DispatcherOptions>;
  rateLimits: RateLimits;
  /** Worker processes `serve` runs (node cluster); 1 means this process serves alone. */
  workers: number;
  /**
   * Demo mode (`npm start`, `refkit serve --demo`, or NODE_ENV=development): a fresh database gets the
   * demo campaign and a printed key, /demo/ is served, and webhooks may reach loopback. Off otherwise,
   * so that a production database is never seeded and serves no demo page.
   */
  demo: boolean;
  /** The address the service is reached at, for printed URLs and the demo campaign's hostURL; https makes the session cookie Secure and __Host- named. */
  publicUrl: string;
  /** How the banner's hints call the CLI: REFKIT_CLI, `npx refkit` by default (the Docker image: `refkit`). */
  cliCommand: string;
  /**
   * Which proxies' X-Forwarded-For (and -Host, -Proto) to believe: false (none), a hop count (that many
   * proxies in front), or their addresses/CIDRs. Never "everyone": a client could then pick its own IP.
   */
  trustProxy: TrustProxy;
  /** SMTP server for magic links and email confirmation (`smtp://user:pass@host:587`); none: no email. */
  smtpUrl: string | undefined;
  /** The From of those emails. */
  mailFrom: string;
  /** The lifecycle email sender's settings (MAIL_*); its defaults unless overridden (tests use short ones). */
  mail: Partial<Omit<EmailSenderOptions, 'baseUrl'>>;
  /** ERASURE_BLOCK_DAYS: an erased address signing up again earns no referral credit for this many days (0: never blocked). */
  erasureBlockDays: number;
  /** How often the retention pruner runs (RETENTION_INTERVAL_MS, an hour by default; docs/privacy.md#retention). */
  retentionIntervalMs: number;
  /** Prometheus metrics (docs/operate.md#monitoring): off (undefined) unless METRICS_TOKEN or METRICS_BIND is set. */
  metrics: MetricsConfig | undefined;
  /** PAYPAL_API_URL and STRIPE_API_URL: origins that replace PayPal's (live and sandbox) and Stripe's APIs (tests, proxies). */
  payoutApis: { paypalApiUrl?: string; stripeApiUrl?: string };
  /** CASH_PAYOUT_POLL_MS, _LEASE_MS, _RETRY_DELAYS_MS and CASH_PAYOUT_STATUS_POLL_MS: the cash payout sender's schedule. */
  cashPayouts: Partial<CashSenderOptions>;
  /** REFKIT_ENCRYPTION_KEY (and REFKIT_ENCRYPTION_KEYS_OLD): what seals tax details; undefined: not set, none can be kept. */
  sealer: Sealer | undefined;
  /** TRUSTED_COUNTRY_HEADER, GEOIP, CAPTCHA_VERIFY_URL and CAPTCHA_SCRIPT_URL: the fraud controls' sources (docs/fraud.md). */
  fraud: FraudSettings;
}

/**
 * Where `GET /metrics` is served and who may read it: with `bind`, on a listener of its own at that address
 * (and not on the service's port); otherwise on the service's port. With `token`, only to
 * `Authorization: Bearer <token>`. At least one is set: metrics on the service's port need a token.
 */
export interface MetricsConfig {
  token?: string;
  bind?: { host: string; port: number };
}

export type TrustProxy = false | number | string[];

export class ConfigError extends Error {}

function bool(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be true or false, not "${value}"`);
}

function positiveInt(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new ConfigError(`${name} must be a positive integer, not "${value}"`);
  return n;
}

function count(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a whole number, not "${value}"`);
  return n;
}

/** proxy-addr's names for ranges, accepted in TRUST_PROXY lists. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

export function trustProxy(value: string | undefined): TrustProxy {
  const v = value?.trim() ?? '';
  if (v === '' || /^(false|no|off|0)$/i.test(v)) return false;
  if (/^\d+$/.test(v)) return Number(v);
  if (/^(true|yes|on)$/i.test(v)) {
    throw new ConfigError(
      'TRUST_PROXY=true would believe any client\'s X-Forwarded-For (letting it choose its IP for rate limits and fraud checks). ' +
        'Set the number of proxies in front of the service (TRUST_PROXY=1 behind one load balancer), ' +
        'or their addresses: TRUST_PROXY=10.0.0.0/8,192.168.1.5',
    );
  }
  const list = v.split(',').map((x) => x.trim());
  for (const entry of list) {
    if (!PROXY_RANGE_NAMES.has(entry) && !ipaddr.isValid(entry) && !ipaddr.isValidCIDR(entry)) {
      throw new ConfigError(`TRUST_PROXY must be a hop count or a comma list of proxy addresses or CIDRs, and "${entry}" is neither`);
    }
  }
  return list;
}

/**
 * REFKIT_SECRET_KEY grants everything a secret key does, so it must be as hard to guess as a generated
 * key: long, and not a repetition of a few characters.
 */
export const SECRET_KEY_MIN_LENGTH = 32;
const SECRET_KEY_MIN_DISTINCT = 12;
function checkSecretKey(key: string): void {
  if (key.length < SECRET_KEY_MIN_LENGTH || new Set(key).size < SECRET_KEY_MIN_DISTINCT || /\s/.test(key)) {
    throw new ConfigError(
      `REFKIT_SECRET_KEY must be at least ${SECRET_KEY_MIN_LENGTH} characters with at least ${SECRET_KEY_MIN_DISTINCT} different ones and no spaces; ` +
        'make one with: node -e "console.log(\'sk_\' + crypto.randomBytes(24).toString(\'base64url\'))"',
    );
  }
}

/** An outbox sender's poll, lease and retry schedule from `<prefix>_POLL_MS`, `_LEASE_MS` and `_RETRY_DELAYS_MS`. */
function outboxSettings(env: NodeJS.ProcessEnv, prefix: string): { pollMs?: number; leaseMs?: number; retryDelaysMs?: number[] } {
  const out: { pollMs?: number; leaseMs?: number; retryDelaysMs?: number[] } = {};
  const at = (name: string) => env[`${prefix}_${name}`];
  if (at('POLL_MS')) out.pollMs = positiveInt(`${prefix}_POLL_MS`, at('POLL_MS')!);
  if (at('LEASE_MS')) out.leaseMs = positiveInt(`${prefix}_LEASE_MS`, at('LEASE_MS')!);
  const delays = at('RETRY_DELAYS_MS');
  if (delays !== undefined && delays !== '') out.retryDelaysMs = delays.split(',').map((v) => positiveInt(`${prefix}_RETRY_DELAYS_MS`, v.trim()));
  return out;
}

function webhookSettings(env: NodeJS.ProcessEnv): Partial<DispatcherOptions> {
  const out: Partial<DispatcherOptions> = outboxSettings(env, 'WEBHOOK');
  if (env.WEBHOOK_TIMEOUT_MS) out.timeoutMs = positiveInt('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS);
  return out;
}

function mailSettings(env: NodeJS.ProcessEnv): Partial<Omit<EmailSenderOptions, 'baseUrl'>> {
  const out: Partial<EmailSenderOptions> = outboxSettings(env, 'MAIL');
  if (env.MAIL_PER_DOMAIN_PER_MINUTE) out.perDomain = positiveInt('MAIL_PER_DOMAIN_PER_MINUTE', env.MAIL_PER_DOMAIN_PER_MINUTE);
  return out;
}

/** An API origin that replaces a provider's (http or https, no path). */
function apiOrigin(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an origin such as http://127.0.0.1:12111, not "${value}"`);
  }
  if (!/^https?:$/.test(url.protocol) || (url.pathname !== '/' && url.pathname !== '')) throw new ConfigError(`${name} must be an origin such as http://127.0.0.1:12111 (no path), not "${value}"`);
  return url.origin;
}

function cashPayoutSettings(env: NodeJS.ProcessEnv): Partial<CashSenderOptions> {
  const out: Partial<CashSenderOptions> = outboxSettings(env, 'CASH_PAYOUT');
  if (env.CASH_PAYOUT_STATUS_POLL_MS) out.statusPollMs = positiveInt('CASH_PAYOUT_STATUS_POLL_MS', env.CASH_PAYOUT_STATUS_POLL_MS);
  return out;
}

function sealer(env: NodeJS.ProcessEnv): Sealer | undefined {
  try {
    return Sealer.fromEnv(env);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}

function smtpUrl(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^smtps?:\/\/[^/]/.test(value)) throw new ConfigError('SMTP_URL must look like smtp://user:password@host:587 (or smtps://...)');
  return value;
}

/** A bearer token as hard to guess as a secret key's random part. */
export const METRICS_TOKEN_MIN_LENGTH = 24;

/** METRICS_BIND: `host:port` (`[::1]:9464` for IPv6). */
export function metricsBind(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(value.trim());
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (!m || host === undefined || port > 65535 || (!ipaddr.isValid(host) && !/^[a-z0-9.-]+$/i.test(host))) {
    throw new ConfigError(`METRICS_BIND must be host:port (127.0.0.1:9464, or [::1]:9464), not "${value}"`);
  }
  return { host, port };
}

function metricsConfig(env: NodeJS.ProcessEnv): MetricsConfig | undefined {
  const token = env.METRICS_TOKEN || undefined;
  const bind = env.METRICS_BIND ? metricsBind(env.METRICS_BIND) : undefined;
  if (token !== undefined && (token.length < METRICS_TOKEN_MIN_LENGTH || /\s/.test(token))) {
    throw new ConfigError(
      `METRICS_TOKEN must be at least ${METRICS_TOKEN_MIN_LENGTH} characters with no spaces; make one with: node -e "console.log(crypto.randomBytes(24).toString('base64url'))"`,
    );
  }
  if (token === undefined && bind === undefined) return undefined;
  return { ...(token !== undefined && { token }), ...(bind && { bind }) };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: { demo?: boolean } = {}): Config {
  const demo = flags.demo ?? bool('REFKIT_DEMO', env.REFKIT_DEMO, env.NODE_ENV === 'development');
  const port = Number(env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a port number, not "${env.PORT}"`);
  const host = env.HOST || '0.0.0.0';
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/refkit.db';
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://');
  }
  const secretKey = env.REFKIT_SECRET_KEY || undefined;
  if (secretKey !== undefined) checkSecretKey(secretKey);
  if (env.RATE_LIMIT_PER_CAMPAIGN) {
    throw new ConfigError(
      'RATE_LIMIT_PER_CAMPAIGN is gone: reads are no longer limited per campaign (a few addresses could lock everyone out). ' +
        'RATE_LIMIT_SIGNUPS_PER_CAMPAIGN sets the ceiling on keyless sign-ups per campaign',
    );
  }
  const metrics = metricsConfig(env);
  const workers = Math.max(1, count('WORKERS', env.WORKERS, 1));
  if (metrics && workers > 1) {
    // Workers share the service's port and METRICS_BIND's alike, so each scrape would reach one worker at
    // random and its counters would seem to jump between the workers' values.
    throw new ConfigError('Metrics (METRICS_TOKEN, METRICS_BIND) need WORKERS=1: run one process per instance and scrape each (docs/operate.md#monitoring)');
  }
  const publicHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  const publicUrl = (env.PUBLIC_URL || `http://${publicHost}:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be a URL, not "${publicUrl}"`);
  }
  return {
    port,
    host,
    databaseUrl,
    databaseConnectTimeoutMs: positiveInt('DATABASE_CONNECT_TIMEOUT_MS', env.DATABASE_CONNECT_TIMEOUT_MS || String(DEFAULT_CONNECT_TIMEOUT_MS)),
    secretKeyHash: secretKey === undefined ? undefined : hashSecret(secretKey),
    logLevel: env.LOG_LEVEL || 'info',
    // Webhooks to loopback and private networks are a server-side request forgery risk in production.
    webhookAllowPrivate: bool('WEBHOOK_ALLOW_PRIVATE', env.WEBHOOK_ALLOW_PRIVATE, demo),
    demo,
    webhooks: webhookSettings(env),
    rateLimits: {
      perIp: count('RATE_LIMIT_PER_IP', env.RATE_LIMIT_PER_IP, DEFAULT_RATE_LIMITS.perIp),
      signupsPerIp: count('RATE_LIMIT_SIGNUPS_PER_IP', env.RATE_LIMIT_SIGNUPS_PER_IP, DEFAULT_RATE_LIMITS.signupsPerIp),
      signupsPerCampaign: count('RATE_LIMIT_SIGNUPS_PER_CAMPAIGN', env.RATE_LIMIT_SIGNUPS_PER_CAMPAIGN, DEFAULT_RATE_LIMITS.signupsPerCampaign),
      keyFailuresPerIp: count('RATE_LIMIT_KEY_FAILURES_PER_IP', env.RATE_LIMIT_KEY_FAILURES_PER_IP, DEFAULT_RATE_LIMITS.keyFailuresPerIp),
      portalSignInsPerIp: count('RATE_LIMIT_PORTAL_SIGNINS_PER_IP', env.RATE_LIMIT_PORTAL_SIGNINS_PER_IP, DEFAULT_PORTAL_SIGNINS_PER_IP),
      windowMs: positiveInt('RATE_LIMIT_WINDOW_MS', env.RATE_LIMIT_WINDOW_MS || String(DEFAULT_RATE_LIMITS.windowMs)),
      redisUrl: env.REDIS_URL || undefined,
    },
    workers,
    publicUrl,
    cliCommand: env.REFKIT_CLI || 'npx refkit',
    trustProxy: trustProxy(env.TRUST_PROXY),
    smtpUrl: smtpUrl(env.SMTP_URL),
    mailFrom: env.MAIL_FROM || `Refkit <no-reply@${new URL(publicUrl).hostname}>`,
    mail: mailSettings(env),
    erasureBlockDays: count('ERASURE_BLOCK_DAYS', env.ERASURE_BLOCK_DAYS, DEFAULT_ERASURE_BLOCK_DAYS),
    retentionIntervalMs: positiveInt('RETENTION_INTERVAL_MS', env.RETENTION_INTERVAL_MS || '3600000'),
    metrics,
    payoutApis: { paypalApiUrl: apiOrigin('PAYPAL_API_URL', env.PAYPAL_API_URL), stripeApiUrl: apiOrigin('STRIPE_API_URL', env.STRIPE_API_URL) },
    cashPayouts: cashPayoutSettings(env),
    sealer: sealer(env),
    fraud: fraudSettings(env),
  };
}

function fraudSettings(env: NodeJS.ProcessEnv): FraudSettings {
  const header = env.TRUSTED_COUNTRY_HEADER?.trim().toLowerCase();
  if (header && !/^[a-z0-9-]{1,100}$/.test(header)) throw new ConfigError(`TRUSTED_COUNTRY_HEADER must be a header name (e.g. CF-IPCountry), not "${env.TRUSTED_COUNTRY_HEADER}"`);
  const geoip = env.GEOIP?.trim();
  if (geoip && geoip !== 'geoip-lite' && geoip !== 'off') throw new ConfigError(`GEOIP must be geoip-lite or off, not "${geoip}"`);
  if (geoip === 'geoip-lite') {
    try {
      createRequire(import.meta.url).resolve('geoip-lite');
    } catch {
      throw new ConfigError('GEOIP=geoip-lite needs the package geoip-lite, an optional dependency this install left out: npm install geoip-lite@~1.4.10');
    }
  }
  const verify = env.CAPTCHA_VERIFY_URL?.trim();
  const script = env.CAPTCHA_SCRIPT_URL?.trim();
  for (const [name, value] of [['CAPTCHA_VERIFY_URL', verify], ['CAPTCHA_SCRIPT_URL', script]] as const) {
    if (!value) continue;
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new ConfigError(`${name} must be an http(s) URL, not "${value}"`);
  }
  return {
    ...(header && { trustedCountryHeader: header }),
    ...(geoip === 'geoip-lite' && { geoip: true }),
    ...(verify && { captchaVerifyUrl: verify }),
    ...(script && { captchaScriptUrl: script }),
  };
}
