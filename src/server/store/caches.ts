/**
 * What nearly every request reads and almost nothing changes: campaigns (by id), API keys (by hash) and
 * the webhook endpoints of an account. Kept in the process, and dropped whole on any change:
 * - in the process that made the change, as soon as it has committed (the store calls `invalidate`);
 * - in every other process (WORKERS, other instances, the CLI) within `CACHE_CHECK_MS`: triggers of
 *   migration 0007_speed bump the one-row `cache_epoch` table in the changing transaction, and each
 *   process reads that row on a timer; on PostgreSQL the same triggers also NOTIFY, which a listening
 *   connection hears within milliseconds (the timer stays as the bound if a notification is missed).
 *   Behind a transaction-pooling PgBouncer there is no listening connection (./transaction-pooling.ts):
 *   the timer alone is the bound.
 * Unknown keys and campaigns are not cached, so something created elsewhere is found at once.
 *
 * Referral codes' owners are cached too (`codeOwners`), without any of this: see there.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import { LRUCache } from 'lru-cache';
import type pg from 'pg';
import { postgresDriver, type Dialect } from './connect.js';
import { forgetRowShapes } from './sqlite-rows.js';
import { behindTransactionPooler } from './transaction-pooling.js';
import type { AccountSettingsTable, ApiKeysTable, CampaignsTable, Database, ParticipantsTable, WebhookEndpointsTable } from './tables.js';

/** How often a process reads the change counter: the bound on how stale another process's change can be here. */
export const CACHE_CHECK_MS = 500;
/** The NOTIFY channel of migration 0007_speed's triggers; the payload is the schema that changed. */
export const CACHE_CHANNEL = 'refkit_cache';
/** How long after losing its connection the NOTIFY listener tries to listen again (and again, until it can). */
const RELISTEN_MS = 1_000;
const MAX_ENTRIES = 10_000;
/** Share links in use at once, in one process: a code and four short fields each, a few megabytes at most. */
const CODE_OWNER_ENTRIES = 50_000;

type Row<T> = Selectable<T>;

/**
 * What is kept of a referral code's holder: the fields that never change once the participant exists,
 * and all that a share link's check or a sign-up through it needs of them (its referrer's id and code,
 * and the email and network fraud scoring compares).
 */
export type CodeOwner = Pick<Row<ParticipantsTable>, 'id' | 'code' | 'email' | 'signup_net'>;

class Cached<K extends string | number, V extends object> {
  /**
   * A view reads its process's map: an LRUCache allocates all its slots up front, and every transaction
   * makes a view, so a map of its own (never filled) would cost 10,000 slots a transaction.
   */
  readonly #map: LRUCache<K, V>;
  /** `shared`: this is a transaction's view (Caches below) of the process's cache. */
  constructor(
    private readonly caches: Caches,
    private readonly shared?: Cached<K, V>,
  ) {
    this.#map = shared ? shared.#map : new LRUCache<K, V>({ max: MAX_ENTRIES });
  }

  /** The cached value, or `load()`'s, kept unless the caches were invalidated while it loaded. */
  async get(key: K, load: () => Promise<V | undefined>): Promise<V | undefined> {
    if (this.shared) return this.caches.dirty ? load() : (this.#map.get(key) ?? load());
    const hit = this.#map.get(key);
    if (hit !== undefined) return hit;
    const generation = this.caches.generation;
    const value = await load();
    if (value !== undefined && generation === this.caches.generation) this.#map.set(key, value);
    return value;
  }

  /** Only the process's caches are cleared (Caches.invalidate): a view's map is theirs. */
  clear(): void {
    this.#map.clear();
  }
}

export class Caches {
  /** Bumped by every invalidation: a load that started before it must not fill the cache after it. */
  generation = 0;
  /**
   * In a transaction's view: it has changed something cached, so from then on it reads from the
   * database, where its own writes are (the process's cache is emptied once it commits).
   */
  dirty = false;
  readonly campaigns: Cached<string, Row<CampaignsTable>>;
  readonly apiKeys: Cached<string, Row<ApiKeysTable>>;
  readonly endpoints: Cached<number, Row<WebhookEndpointsTable>[]>;
  /** Each account's salt of erased addresses, null before its first erasure (../privacy/store/person-store.ts), which bumps the change counter. */
  readonly erasureSalts: Cached<number, { salt: string | null }>;
  /** Each account's settings row, or none (`row` undefined: the defaults), so a default account reads nothing either. */
  readonly accountSettings: Cached<number, { row: Row<AccountSettingsTable> | undefined }>;
  /**
   * Who holds a referral code, by `codeOwnerKey`: what a share link's every visit asks (validateCode),
   * and what a sign-up through it needs of its referrer. A code, once a committed participant's, is theirs
   * for good, and so are the other fields of CodeOwner, with two exceptions that bump the change counter
   * so that every process empties this cache too: erasing a person (../privacy/domain/erasure.ts) replaces their
   * code and address, and the retention pruner (../privacy/domain/retention.ts) clears `signup_net`. Only
   * committed rows may fill it (Store.codeOwner), and an unknown code is never kept, so a code created
   * elsewhere is found at once.
   */
  readonly codeOwners: LRUCache<string, CodeOwner>;

  /**
   * `shared`: a transaction's view of the process's caches. It reads their entries but never fills them
   * (what it reads may roll back), and once it changes something cached it reads past them (`dirty`).
   */
  constructor(readonly shared?: Caches) {
    this.campaigns = new Cached(this, shared?.campaigns);
    this.apiKeys = new Cached(this, shared?.apiKeys);
    this.endpoints = new Cached(this, shared?.endpoints);
    this.erasureSalts = new Cached(this, shared?.erasureSalts);
    this.accountSettings = new Cached(this, shared?.accountSettings);
    this.codeOwners = shared?.codeOwners ?? new LRUCache<string, CodeOwner>({ max: CODE_OWNER_ENTRIES });
  }

  /** A change to something cached is being written: a transaction's view reads past the caches from now on. */
  changing(): void {
    if (this.shared) this.dirty = true;
  }

  /** Empties the caches (a view empties the process's: call it once the change has committed). */
  invalidate(): void {
    if (this.shared) return this.shared.invalidate();
    this.generation++;
    // The change may be a migration by another process (migrate bumps the counter too).
    forgetRowShapes();
    this.campaigns.clear();
    this.apiKeys.clear();
    this.endpoints.clear();
    this.erasureSalts.clear();
    this.accountSettings.clear();
    this.codeOwners.clear();
  }
}

export const codeOwnerKey = (campaignId: string, code: string) => `${campaignId} ${code}`;

/**
 * Watches for changes made by other processes until the returned function is called: the change counter
 * every CACHE_CHECK_MS, and on PostgreSQL the NOTIFY channel too (not behind PgBouncer: see the top of this file).
 */
export function watchChanges(caches: Caches, db: Kysely<Database>, dialect: Dialect, url: string, checkMs = CACHE_CHECK_MS): () => Promise<void> {
  let seen: number | undefined;
  let stopped = false;
  const check = async () => {
    try {
      const row = await db.selectFrom('cache_epoch').select('n').executeTakeFirst();
      const n = row === undefined ? undefined : Number(row.n);
      if (seen !== undefined && n !== seen) caches.invalidate();
      seen = n;
    } catch {
      // Not migrated yet, or the database is briefly away: the next check tries again.
    }
  };
  void check();
  const timer = setInterval(() => void check(), checkMs);
  timer.unref();
  // Through the pooler, LISTEN would hold no session of its own: notifications would reach other clients, or nobody.
  const listener = dialect === 'postgres' && !behindTransactionPooler(url) ? listen(caches, url, () => stopped) : undefined;
  return async () => {
    stopped = true;
    clearInterval(timer);
    await listener?.end();
  };
}

/**
 * Listens on CACHE_CHANNEL over a connection of its own, and listens again (after `retryMs`, and again
 * until it can) whenever that connection is lost, as when PostgreSQL restarts: meanwhile the change counter still
 * bounds staleness, and the caches are dropped on listening again (a notification may have been missed).
 */
function listen(caches: Caches, url: string, stopped: () => boolean, retryMs = RELISTEN_MS): { end(): Promise<void> } {
  let client: pg.Client | undefined;
  let opening: Promise<void> = Promise.resolve();
  let retry: NodeJS.Timeout | undefined;
  const again = (lost: pg.Client) => {
    if (stopped() || client !== lost) return;
    client = undefined;
    retry = setTimeout(() => (opening = open(true)), retryMs);
    retry.unref();
  };
  const open = async (reopened: boolean) => {
    if (stopped()) return;
    const c = new (postgresDriver().Client)({ connectionString: url });
    client = c;
    // A lost listening connection is not fatal: it is opened again.
    c.on('error', () => again(c));
    c.on('end', () => again(c));
    try {
      await c.connect();
      const schema = (await c.query<{ s: string }>('select current_schema() as s')).rows[0]?.s;
      c.on('notification', (msg) => {
        if (msg.payload === schema) caches.invalidate();
      });
      await c.query(`listen ${CACHE_CHANNEL}`);
      if (reopened) caches.invalidate();
      if (stopped()) await c.end();
    } catch {
      again(c);
      await c.end().catch(() => undefined);
    }
  };
  opening = open(false);
  return {
    async end() {
      clearTimeout(retry);
      await opening;
      await client?.end().catch(() => undefined);
    },
  };
}

/** The SQL of the triggers (per dialect), kept here beside the code that relies on them. */
/** The triggers of migration 0007_speed (0008_counter_shards later drops the campaigns update condition). */
export function cacheTriggersSql(dialect: Dialect) {
  const watched = [
    // Sign-ups move only participant_count: they must not empty every process's caches.
    { table: 'campaigns', events: ['update', 'delete'], when: { sqlite: 'new.participant_count is old.participant_count', postgres: 'new.participant_count is not distinct from old.participant_count' } },
    { table: 'api_keys', events: ['update', 'delete'] },
    { table: 'webhook_endpoints', events: ['insert', 'update', 'delete'] },
  ] as const;
  const statements = [];
  if (dialect === 'postgres') {
    statements.push(sql`create function refkit_cache_changed() returns trigger language plpgsql as $$
      begin
        update cache_epoch set n = n + 1;
        perform pg_notify(${sql.lit(CACHE_CHANNEL)}, current_schema());
        return null;
      end $$`);
  }
  for (const w of watched) {
    for (const event of w.events) {
      statements.push(cacheTriggerSql(dialect, w.table, event, 'when' in w && event === 'update' ? w.when[dialect] : undefined));
    }
  }
  return statements;
}

/**
 * When an update of campaigns empties the caches (migration 0037): unless all it changed of what they
 * hold is promotion_codes_through, the promotion code sync's progress, written after each batch of codes
 * it queues (../promotions/store/promotion-code-store.ts setThrough). A new discount generation resets
 * that column with the generation, and so still empties them. Every other writer of the column changes
 * the generation with it.
 */
export const CAMPAIGNS_UPDATE_WHEN = {
  sqlite: 'new.promotion_codes_through is old.promotion_codes_through or new.discount_generation is not old.discount_generation',
  postgres: 'new.promotion_codes_through is not distinct from old.promotion_codes_through or new.discount_generation is distinct from old.discount_generation',
} as const;

const cacheTriggerName = (table: string, event: string) => `${table}_${event}_cache`;

/** Drops the trigger cacheTriggerSql made (PostgreSQL names its table too). */
export const dropCacheTriggerSql = (dialect: Dialect, table: string, event: 'insert' | 'update' | 'delete') =>
  sql.raw(`drop trigger ${cacheTriggerName(table, event)}${dialect === 'postgres' ? ` on ${table}` : ''}`);

/** The trigger `<table>_<event>_cache`: each row the event touches (where `when` holds) bumps cache_epoch. */
export function cacheTriggerSql(dialect: Dialect, table: string, event: 'insert' | 'update' | 'delete', when?: string) {
  const name = sql.raw(cacheTriggerName(table, event));
  const target = sql.raw(table);
  return dialect === 'postgres'
    ? sql`create trigger ${name} after ${sql.raw(event)} on ${target} for each row ${when ? sql.raw(`when (${when})`) : sql``} execute function refkit_cache_changed()`
    : sql`create trigger ${name} after ${sql.raw(event)} on ${target} for each row ${when ? sql.raw(`when ${when}`) : sql``} begin update cache_epoch set n = n + 1; end`;
}
