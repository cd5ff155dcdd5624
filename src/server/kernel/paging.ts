/** Paging rules: `page`/`pageSize` or an opaque `cursor` (keyset on createdOn, id). */
import { DEFAULT_PAGE_SIZE, type PagingQuery } from '../../api/schemas.js';
import type { ListStart, ParticipantRow } from '../store/store.js';
import { invalid } from './errors.js';

export interface PageRequest {
  start: ListStart;
  size: number;
}

/** A row a list is keyed on: (created_on, id). */
type Keyed = Pick<ParticipantRow, 'created_on' | 'id'>;

export interface PageResult<R extends Keyed = ParticipantRow> {
  rows: R[];
  /** The cursor of the next page, when there is one. */
  next?: string;
}

export function encodeCursor(row: Keyed): string {
  return Buffer.from(JSON.stringify([row.created_on, row.id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdOn: number; id: number } {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && v.every((n) => Number.isSafeInteger(n))) {
      return { createdOn: v[0] as number, id: v[1] as number };
    }
  } catch {
    // fall through to the one error below
  }
  throw invalid('cursor', 'cursor is not one this service gave out');
}

/**
 * How far into a list `page` may reach: an offset is read and skipped row by row, so a deep page costs
 * what the rows before it do. Deeper lists are paged with `cursor` (a keyset, as cheap at any depth).
 */
export const MAX_PAGE_OFFSET = 10_000;

export function pageRequest(q: PagingQuery): PageRequest {
  const size = q.pageSize ?? DEFAULT_PAGE_SIZE;
  if (q.cursor !== undefined) {
    if (q.page !== undefined) throw invalid('cursor', 'Give either page or cursor, not both');
    return { start: { after: decodeCursor(q.cursor) }, size };
  }
  const offset = ((q.page ?? 1) - 1) * size;
  if (offset > MAX_PAGE_OFFSET) {
    throw invalid(
      'page',
      `page reaches past the first ${MAX_PAGE_OFFSET} rows; page deeper with cursor (each answer's Link header has the next one)`,
    );
  }
  return { start: { offset }, size };
}

/** Fetches one row more than the page holds, to know whether a next page exists without counting. */
export async function fetchPage<R extends Keyed>(req: PageRequest, fetch: (start: ListStart, limit: number) => Promise<R[]>): Promise<PageResult<R>> {
  const rows = await fetch(req.start, req.size + 1);
  if (rows.length <= req.size) return { rows };
  const page = rows.slice(0, req.size);
  return { rows: page, next: encodeCursor(page[page.length - 1]!) };
}
