import { randomInt } from 'node:crypto';

/** Letters and digits that cannot be mistaken for one another, in byte order (digits sort first). */
const CHARS = '23456789abcdefghijkmnopqrstuvwxyz';

function randomChars(length: number): string {
  let id = '';
  for (let i = 0; i < length; i++) id += CHARS[randomInt(CHARS.length)];
  return id;
}

/** Random identifiers for campaigns, keys and webhook endpoints, with a readable prefix (`cmp_...`, `key_...`). */
export function newId(prefix: string, length = 12): string {
  return `${prefix}_${randomChars(length)}`;
}

/** Characters of the time part: 33^9 milliseconds is over a thousand years. */
const TIME_CHARS = 9;

/**
 * An identifier that sorts by the millisecond it was made in, then at random (as KSUIDs and ULIDs do,
 * and Svix's message ids): for rows written with every sign-up (webhook events and deliveries). Their
 * primary-key index then grows at its end, where a batch of sign-ups shares a page or two, instead of
 * each new key landing on a page of its own: on SQLite every page a batch touches is written whole to
 * the WAL and again into the database. Ids of the same millisecond still differ in `randomLength`
 * random characters, about 5 bits each (an event's 16: 80 bits; a delivery's 12: 60 bits).
 */
export function newSortableId(prefix: string, randomLength: number, now = Date.now()): string {
  let time = '';
  for (let t = Math.floor(now), i = 0; i < TIME_CHARS; i++, t = Math.floor(t / CHARS.length)) time = CHARS[t % CHARS.length] + time;
  return `${prefix}_${time}${randomChars(randomLength)}`;
}
