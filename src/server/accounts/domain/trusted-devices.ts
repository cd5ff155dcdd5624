/**
 * Trusted devices (OWASP's "device cookies"): a browser an owner has signed in from carries a token that
 * names the owner, and its sign-ins are throttled on that token alone, never by the client address or
 * the email's counts. So strangers who fail on an owner's email, even from the owner's own address (every
 * client is one address behind a proxy the service is not told to trust), never keep the owner out of a
 * browser they have used before; a new browser meets the usual throttle.
 *
 * The token is `ownerId.issuedOn.nonce.mac`, the MAC keyed by the owner's password hash: only the service
 * can make one, no table keeps them, and a new password (changed or reset) ends every earlier one.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a browser stays trusted after the sign-in that trusted it. */
export const DEVICE_TTL_MS = 180 * 24 * 60 * 60 * 1000;

interface DeviceOwner {
  id: number;
  password_hash: string;
}

const mac = (owner: DeviceOwner, body: string) => createHmac('sha256', `refkit-device:${owner.password_hash}`).update(body).digest('base64url');

/** A new token trusting this browser for `owner`. */
export function newDeviceToken(owner: DeviceOwner, now: number): string {
  const body = `${owner.id}.${now}.${randomBytes(12).toString('base64url')}`;
  return `${body}.${mac(owner, body)}`;
}

/** The token's throttle key when it is `owner`'s, made with their current password and not expired; else undefined. */
export function trustedDevice(owner: DeviceOwner, token: string | undefined, now: number): string | undefined {
  if (token === undefined) return undefined;
  const parts = token.split('.');
  if (parts.length !== 4) return undefined;
  const [id, issuedOn, nonce, given] = parts as [string, string, string, string];
  if (id !== String(owner.id) || !(now - Number(issuedOn) < DEVICE_TTL_MS)) return undefined;
  const expected = Buffer.from(mac(owner, `${id}.${issuedOn}.${nonce}`));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return undefined;
  return `${id}.${nonce}`;
}
