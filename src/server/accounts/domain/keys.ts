/** Secret keys: created with crypto randomness, shown once, stored only as a SHA-256 hash. */
import { timingSafeEqual } from 'node:crypto';
import type { ApiKey } from '../../../api/schemas.js';
import type { ApiKeyRow } from '../../store/store.js';
import { newId } from '../../kernel/ids.js';
import { actorLabel, DEFAULT_ACCOUNT, type Actor, type Ctx } from '../../kernel/context.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { hashSecret, newSecret } from '../../kernel/secrets.js';
import { seesRow } from '../../kernel/test-mode.js';
import { iso } from '../../kernel/time.js';

/** What is shown of a key to tell it apart: `sk_live_` or `sk_test_` and its first five random characters. */
const PREFIX_LENGTH = 13;

export function presentKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    test: row.test === 1,
    createdOn: iso(row.created_on),
    ...(row.created_by !== null && { createdBy: row.created_by }),
    ...(row.revoked_on !== null && { revokedOn: iso(row.revoked_on) }),
  };
}

/**
 * A new key: `sk_live_...` or `sk_test_...`. The mode is stored with the key, never read from its prefix:
 * keys made before test mode are `sk_...` with any text after (the demo's and many set-ups' happen to
 * begin `sk_test_`), and all of them are live.
 */
export async function createApiKey(ctx: Ctx, actor: Actor, name: string, asked?: boolean): Promise<ApiKey & { key: string }> {
  const test = keyMode(actor, asked);
  const key = newSecret(test ? 'sk_test' : 'sk_live');
  const row: ApiKeyRow = {
    id: newId('key'),
    account_id: actor.accountId,
    name,
    prefix: key.slice(0, PREFIX_LENGTH),
    hash: hashSecret(key),
    test: test ? 1 : 0,
    created_on: ctx.now(),
    revoked_on: null,
    created_by: actorLabel(actor),
  };
  await ctx.store.insertApiKey(row);
  return { ...presentKey(row), key };
}

/**
 * The mode of a key the actor creates: as asked, live by default; a test key makes test keys only (no
 * `test` means test, and asking for a live one is refused: a test key must not mint live access).
 */
function keyMode(actor: Actor, asked: boolean | undefined): boolean {
  if (actor.test !== true) return asked ?? false;
  if (asked === false) throw invalid('test', 'A test key creates test keys only: use a live key or the dashboard for a live key');
  return true;
}

/** Revokes a key of the account; a key may revoke only keys of its own mode (a test key, never a live one). */
export async function revokeApiKey(ctx: Ctx, actor: Actor, id: string): Promise<void> {
  const key = (await ctx.store.listApiKeys(actor.accountId)).find((k) => k.id === id);
  if (!key || !seesRow(actor, key) || !(await ctx.store.revokeApiKey(id, actor.accountId, ctx.now()))) {
    throw new AppError(404, 'api_key_not_found', 'No active key of this account has this id', 'id');
  }
}

/** The account's keys: a key sees those of its own mode only. */
export async function listApiKeys(ctx: Ctx, actor: Actor): Promise<ApiKey[]> {
  return (await ctx.store.listApiKeys(actor.accountId)).filter((k) => seesRow(actor, k)).map(presentKey);
}

/** REFKIT_SECRET_KEY's actor: a key of the default account that is not stored. */
export const ENV_KEY_ACTOR: Actor = { ...DEFAULT_ACCOUNT, identity: { kind: 'key', id: 'env', prefix: 'REFKIT_SECRET_KEY' }, role: 'owner', test: false };

/**
 * Who a presented secret key acts as, or undefined. Keys act as owners of their account (docs/team.md).
 * `envKeyHash` is the hash of REFKIT_SECRET_KEY when set: accepted as a key of the default account without
 * being stored, acting as `envActor` (ENV_KEY_ACTOR; the CLI's own one-command key acts as the CLI).
 */
export async function authenticate(ctx: Ctx, presented: string, envKeyHash?: string, envActor: Actor = ENV_KEY_ACTOR): Promise<Actor | undefined> {
  const hash = hashSecret(presented);
  if (envKeyHash && timingSafeEqual(Buffer.from(hash), Buffer.from(envKeyHash))) return envActor;
  // Looked up by hash: comparing hashes of a high-entropy key leaks nothing useful through timing.
  const row = await ctx.store.findApiKeyByHash(hash);
  if (!row || row.revoked_on !== null) return undefined;
  return { accountId: row.account_id, identity: { kind: 'key', id: row.id, prefix: row.prefix }, role: 'owner', test: row.test === 1 };
}
