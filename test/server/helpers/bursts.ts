/** What the burst tests share: the statuses of many answers at once, counted. */

/** Statuses of responses, counted: { 200: n, 429: m }; each body is dropped, so its connection is free again. */
export async function statuses(calls: Promise<Response>[]): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  for (const res of await Promise.all(calls)) {
    counts[res.status] = (counts[res.status] ?? 0) + 1;
    await res.body?.cancel();
  }
  return counts;
}
