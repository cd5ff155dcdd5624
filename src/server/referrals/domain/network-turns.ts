/**
 * A campaign's sign-ups from one network, one at a time in this process. Fraud scoring counts the
 * network's earlier sign-ups (./fraud.ts), read before the write: two decided at once would each count
 * without the other, and a burst from one network through one link would be scored as if each were
 * its first (all low, where one after another the third is a squat, held with the two before it).
 * Sign-ups from other networks do not wait. Across processes the check of assumed facts
 * (../store/signup-reads.ts) still catches a network's earlier sign-up that has committed.
 */
const tails = new Map<string, Promise<void>>();

/** Runs `fn` once every earlier call with this key has settled. */
export async function inTurn<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const mine = (tails.get(key) ?? Promise.resolve()).then(fn);
  const tail = mine.then(
    () => undefined,
    () => undefined,
  );
  tails.set(key, tail);
  try {
    return await mine;
  } finally {
    if (tails.get(key) === tail) tails.delete(key);
  }
}

/** The key of a campaign's sign-ups from a network. */
export const networkTurn = (campaignId: string, net: string): string => `${campaignId}\n${net}`;
