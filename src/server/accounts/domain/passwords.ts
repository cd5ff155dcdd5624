/**
 * Password hashing with scrypt (memory-hard, in node:crypto: no native module to build). Stored as
 * `scrypt$N$r$p$salt$hash`, so the cost can be raised later without breaking the hashes already stored.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { promisify } from 'node:util';
import pLimit from 'p-limit';
import type { ScryptCost } from '../../kernel/context.js';

const scryptAsync = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number, options: ScryptOptions) => Promise<Buffer>;
/**
 * At most two scrypt runs at a time: each holds one of libuv's four threads (and 32 MiB) for a tenth of a
 * second, so a burst of sign-ins waits its turn here instead of taking every thread from the file,
 * DNS and crypto work of other requests.
 */
const SCRYPT_SLOTS = 2;
const slots = pLimit(SCRYPT_SLOTS);
const scrypt = (...args: Parameters<typeof scryptAsync>) => slots(() => scryptAsync(...args));

/** N = 2^15, r = 8, p = 3: 32 MiB per guess, one of the equivalent minimums OWASP lists for scrypt. */
export const PASSWORD_COST: ScryptCost = { N: 2 ** 15, r: 8, p: 3 };
const KEY_LENGTH = 32;
/** Node refuses scrypt above 32 MiB by default and 128 * N * r is exactly that: allow headroom. */
const maxmem = (N: number, r: number) => 256 * N * r;

export const MIN_PASSWORD_LENGTH = 10;

export async function hashPassword(password: string, cost: ScryptCost = PASSWORD_COST): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = cost;
  const hash = await scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem: maxmem(N, r) });
  return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const N = Number(n);
  const R = Number(r);
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, { N, r: R, p: Number(p), maxmem: maxmem(N, R) });
  return timingSafeEqual(actual, expected);
}

/** A hash of nothing anyone knows, at the cost given: verified against when the email is unknown, so timing does not tell. */
const decoys = new Map<string, Promise<string>>();
export function decoyHash(cost: ScryptCost = PASSWORD_COST): Promise<string> {
  const key = `${cost.N}$${cost.r}$${cost.p}`;
  let decoy = decoys.get(key);
  if (!decoy) decoys.set(key, (decoy = hashPassword(randomBytes(16).toString('hex'), cost)));
  return decoy;
}
