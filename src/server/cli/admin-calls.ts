/**
 * Admin commands call the very routes of /api/v1/admin, by `inject`, in process, against the command's
 * database, acting for the default account with a key that lives only for this call: the CLI and the
 * HTTP API share validation, rules and answers by construction.
 */
import { randomBytes } from 'node:crypto';
import { buildApp } from '../app.js';
import { ConfigError, type Config } from '../config.js';
import { CLI_ACTOR } from '../kernel/context.js';
import { hashSecret } from '../kernel/secrets.js';
import { openRuntime } from '../runtime.js';
import { printAnswer, type Run } from './cli-run.js';
import { privateWebhooksAllowed } from './private-webhooks.js';
import { commandConfig } from './project-database.js';

type Method = 'GET' | 'POST';

/** A call's status and parsed answer. */
export interface AdminAnswer {
  status: number;
  answer: unknown;
}

/** Calls admin routes in process, acting for the default account, through one app. */
export type AdminCalls = (method: Method, route: string, body: Record<string, unknown>) => Promise<AdminAnswer>;

/**
 * Opens the command's database and one app over it, and runs `task` with calls to its admin routes, then
 * closes both: a command that makes several calls (`clock advance --days`, `campaign update
 * --add-allowed-origin`) opens the runtime and builds the app once, not once per call. `addsEndpoint`: the
 * task adds a webhook endpoint, whose target is checked as the service on this database would check it.
 */
export async function withAdmin<T>(run: Run, task: (call: AdminCalls) => Promise<T>, { overrides = {}, addsEndpoint = false }: { overrides?: Partial<Config>; addsEndpoint?: boolean } = {}): Promise<T> {
  const config = { ...commandConfig(run), ...overrides };
  const runtime = await openRuntime(config);
  try {
    // Only the route that adds an endpoint checks its target; the others need not read the database for it.
    const webhookAllowPrivate = overrides.webhookAllowPrivate ?? (addsEndpoint ? await privateWebhooksAllowed(run.env, config, runtime.ctx) : config.webhookAllowPrivate);
    const key = `sk_cli_${randomBytes(24).toString('base64url')}`;
    const app = await buildApp({ ctx: runtime.ctx, config: { ...config, webhookAllowPrivate, secretKeyHash: hashSecret(key) }, logger: false, envKeyActor: CLI_ACTOR });
    try {
      return await task(async (method, route, body) => {
        const payload = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
        const res = await app.inject({
          method,
          url: `/api/v1/admin/${route}`,
          headers: { authorization: `Bearer ${key}` },
          ...(method === 'POST' ? { payload } : { query: Object.fromEntries(Object.entries(payload).map(([k, v]) => [k, String(v)])) }),
        });
        return { status: res.statusCode, answer: res.json() };
      });
    } finally {
      await app.close();
    }
  } finally {
    await runtime.close();
  }
}

/** Calls one admin route in process, acting for the default account; the status and the parsed answer. */
export function callAdmin(run: Run, method: Method, route: string, body: Record<string, unknown>, overrides: Partial<Config> = {}): Promise<AdminAnswer> {
  return withAdmin(run, (call) => call(method, route, body), { overrides, addsEndpoint: route === 'createWebhookEndpoint' });
}

export type ErrorAnswer = { error: { code: string; message: string; field?: string } };

/** The service's error as one line: its message, then its code and field. */
export const describeError = ({ error }: ErrorAnswer) => `${error.message} (${error.code}${error.field ? `, ${error.field}` : ''})`;

/** Prints a refused call's error on stderr (the envelope itself with --json) and sets exit code 1. */
export function printRefusal(run: Run, answer: unknown, json: boolean): void {
  run.stderr.write(json ? `${JSON.stringify(answer)}\n` : `error: ${describeError(answer as ErrorAnswer)}\n`);
  run.exitCode = 1;
}

/** Prints a call's answer (`empty` when it is an empty list); a refusal prints the error and sets exit code 1. */
export function printCall(run: Run, { status, answer }: AdminAnswer, json: boolean, empty?: string): void {
  if (status >= 400) printRefusal(run, answer, json);
  else printAnswer(run, answer, json, empty);
}

/** The answer of a call the command goes on with; throws the service's error message. */
export function valueOf<T>({ status, answer }: AdminAnswer): T {
  if (status >= 400) throw new ConfigError(describeError(answer as ErrorAnswer));
  return answer as T;
}

/**
 * Calls one admin route in process and prints its answer (`empty` when it is an empty list); a failure
 * prints the error and sets exit code 1 (a command that goes on after it reads run.exitCode).
 */
export async function admin(run: Run, method: Method, route: string, body: Record<string, unknown>, json: boolean, empty?: string): Promise<void> {
  printCall(run, await callAdmin(run, method, route, body), json, empty);
}

/** An admin call whose answer the command goes on with; throws the service's error message. */
export async function adminValue<T>(run: Run, method: Method, route: string, body: Record<string, unknown>, overrides: Partial<Config> = {}): Promise<T> {
  return valueOf<T>(await callAdmin(run, method, route, body, overrides));
}
