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

/**
 * A burst cut off by a kill: `calls` go out from `inFlight` workers, each sending its next call as soon as
 * its last is answered; once `killAfter` are answered, `kill` runs. A call whose `send` rejects was cut off
 * by the kill (not answered); each answer goes to `answered`, outside that catch, so its checks fail the
 * test. Answers what `kill` answered (the exit code), undefined when the burst ended before it.
 */
export async function burstUntilKilled<T, R>(
  calls: readonly T[],
  o: { inFlight: number; killAfter: number; send: (call: T, index: number) => Promise<R>; answered: (call: T, answer: R) => void; kill: () => Promise<number | null> },
): Promise<number | null | undefined> {
  let answered = 0;
  let next = 0;
  let killed: Promise<number | null> | undefined;
  const worker = async () => {
    for (let i = next++; i < calls.length; i = next++) {
      const call = calls[i]!;
      let answer: R;
      try {
        answer = await o.send(call, i);
      } catch {
        continue;
      }
      o.answered(call, answer);
      if (++answered === o.killAfter) killed = o.kill();
    }
  };
  await Promise.all(Array.from({ length: o.inFlight }, worker));
  return killed;
}
