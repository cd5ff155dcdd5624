/**
 * The audit log: every change made through the dashboard, the admin API or the CLI, as one entry: who
 * (a user, a secret key, or the CLI), when, the action (the operation id, or the CLI command), its target,
 * the state before and after (JSON, secrets redacted) and the client address. Entries are never changed
 * or deleted (../store/audit-store.ts), and are kept forever. docs/team.md lists what is recorded.
 */
import { stringify } from 'csv-stringify';
import type { AuditEntry, AuditLogQuery } from '../../../api/team-schemas.js';
import type { AuditFilter, AuditRow } from '../store/audit-store.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { spreadsheetSafe } from '../../kernel/csv-cells.js';
import { invalid } from '../../kernel/errors.js';
import { fetchPage, pageRequest, type PageResult } from '../../kernel/paging.js';
import { iso } from '../../kernel/time.js';
import { testOnly } from '../../kernel/test-mode.js';
import { realNow } from '../../kernel/campaign-time.js';

/** What one change was: the action, what it was done to, and the state before and after. */
export interface AuditRecord {
  action: string;
  campaignId?: string | undefined;
  target?: string | undefined;
  before?: unknown;
  after?: unknown;
}

/** Fields whose values are secrets (keys, signing secrets, passwords, tokens) or redeemable codes: never logged. */
const SECRET_FIELD = /secret|password|token|^key$|Key$|^codes?$/i;
export const REDACTED = '[redacted]';
/** A snapshot longer than this is not kept whole (a log entry is not a backup). */
const MAX_SNAPSHOT_CHARS = 32 * 1024;

/** A copy of `value` with the value of every secret field replaced by REDACTED, at any depth. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) && typeof v !== 'boolean' ? REDACTED : redact(v)]));
}

function snapshot(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const text = JSON.stringify(redact(value));
  return text.length > MAX_SNAPSHOT_CHARS ? JSON.stringify({ truncated: true, length: text.length }) : text;
}

/** The actor as the log names it: a user's email, a key's prefix, or `cli`. */
function actorColumns(actor: Actor) {
  const who = actor.identity ?? { kind: 'cli' as const };
  const [id, label] = who.kind === 'user' ? [String(who.id), who.email] : who.kind === 'key' ? [who.id, who.prefix] : [null, 'cli'];
  return { actor_kind: who.kind, actor_id: id, actor_label: label, actor_role: actor.role ?? 'owner', ip: who.kind === 'cli' ? null : (actor.ip ?? null) };
}

/**
 * Appends one entry, dated by the real time: a test campaign's moved clock (../../kernel/campaign-time.ts)
 * dates what happens in the campaign, never when someone acted.
 */
export async function recordAudit(ctx: Ctx, actor: Actor, record: AuditRecord): Promise<void> {
  await ctx.store.audit.insert({
    account_id: actor.accountId,
    created_on: realNow(ctx),
    ...actorColumns(actor),
    action: record.action,
    campaign_id: record.campaignId ?? null,
    target: record.target ?? null,
    before: snapshot(record.before),
    after: snapshot(record.after),
  });
}

const parse = (text: string | null): unknown => (text === null ? null : (JSON.parse(text) as unknown));

export function presentAuditEntry(r: AuditRow): AuditEntry {
  return {
    id: Number(r.id),
    createdOn: iso(Number(r.created_on)),
    actor: r.actor_label,
    actorKind: r.actor_kind as AuditEntry['actorKind'],
    ...(r.actor_id !== null && { actorId: r.actor_id }),
    actorRole: r.actor_role as AuditEntry['actorRole'],
    action: r.action,
    ...(r.campaign_id !== null && { campaignId: r.campaign_id }),
    ...(r.target !== null && { target: r.target }),
    before: parse(r.before),
    after: parse(r.after),
    ...(r.ip !== null && { ip: r.ip }),
  };
}

function filterOf(actor: Actor, q: Omit<AuditLogQuery, 'page' | 'pageSize' | 'cursor'>): AuditFilter {
  const from = q.from === undefined ? undefined : Date.parse(q.from);
  const to = q.to === undefined ? undefined : Date.parse(q.to);
  if (Number.isNaN(from)) throw invalid('from', 'from must be an ISO 8601 instant');
  if (Number.isNaN(to)) throw invalid('to', 'to must be an ISO 8601 instant');
  if (from !== undefined && to !== undefined && from > to) throw invalid('to', 'to must not be before from');
  return {
    accountId: actor.accountId,
    ...(testOnly(actor) && { testOnly: true }),
    ...(q.actor !== undefined && { actor: q.actor.trim().toLowerCase() === 'cli' ? 'cli' : q.actor.trim() }),
    ...(q.action !== undefined && { action: q.action }),
    ...(q.campaignId !== undefined && { campaignId: q.campaignId }),
    ...(from !== undefined && { from }),
    ...(to !== undefined && { to }),
  };
}

/** A page of the account's entries, newest first, filtered. */
export async function listAuditLog(ctx: Ctx, actor: Actor, q: AuditLogQuery): Promise<PageResult<{ created_on: number; id: number; row: AuditRow }>> {
  const { page, pageSize, cursor, ...filters } = q;
  const req = pageRequest({ page, pageSize, cursor });
  const f = filterOf(actor, filters);
  return fetchPage(req, async (start, limit) => (await ctx.store.audit.list(f, start, limit)).map((row) => ({ created_on: Number(row.created_on), id: Number(row.id), row })));
}

export const AUDIT_COLUMNS = ['id', 'createdOn', 'actor', 'actorKind', 'actorRole', 'action', 'campaignId', 'target', 'before', 'after', 'ip'] as const;
const BATCH = 1000;

/** Every entry the filters select, oldest first, as a CSV stream (formulas neutralised). */
export function exportAuditLog(ctx: Ctx, actor: Actor, q: Omit<AuditLogQuery, 'page' | 'pageSize' | 'cursor'>): NodeJS.ReadableStream {
  const f = filterOf(actor, q);
  const csv = stringify({ header: true, columns: [...AUDIT_COLUMNS], cast: { string: spreadsheetSafe } });
  void (async () => {
    let after = 0;
    for (;;) {
      const rows = await ctx.store.audit.exportPage(f, after, BATCH);
      for (const r of rows) {
        const e = presentAuditEntry(r);
        const record = { ...e, before: r.before ?? '', after: r.after ?? '' };
        if (!csv.write(record)) await new Promise((resolve) => csv.once('drain', resolve));
      }
      if (rows.length < BATCH) break;
      after = Number(rows[rows.length - 1]!.id);
    }
    csv.end();
  })().catch((err: unknown) => csv.destroy(err instanceof Error ? err : new Error(String(err))));
  return csv;
}
