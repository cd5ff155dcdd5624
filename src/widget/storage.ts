/**
 * What the widget remembers, per campaign: the referral code a visitor arrived with (90 days, so it
 * survives browsing the site before signing up; in localStorage, and in a first-party cookie when the
 * page sets a cookie domain), who signed up on this browser, and the participant token that proves it.
 * Storage can be unavailable (private modes, sandboxed iframes); every access tolerates that.
 */
import { deleteCookie, readCookie, writeCookie } from './cookies.js';

export const CODE_TTL_MS = 90 * 24 * 60 * 60 * 1000;
/** The campaign of a share link that named none (`?referralCode=...` alone): any campaign may use it. */
export const ANY_CAMPAIGN = '*';

const codeKey = (campaignId: string) => `refkit:${campaignId}:code`;
const participantKey = (campaignId: string) => `refkit:${campaignId}:email`;
const tokenKey = (campaignId: string) => `refkit:${campaignId}:token`;
const checkedKey = (campaignId: string) => `refkit:${campaignId}:checked`;
/** Cookie names allow fewer characters than campaign ids: anything else becomes `_`. */
const codeCookie = (campaignId: string) => `refkit_code_${campaignId === ANY_CAMPAIGN ? 'any' : campaignId.replace(/[^A-Za-z0-9_-]/g, '_')}`;

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function write(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Not remembering is the only consequence.
  }
}

/** Remembers a code for 90 days; with `cookieDomain`, also in a cookie its subdomains share. */
export function rememberCode(campaignId: string, code: string, now = Date.now(), cookieDomain?: string): void {
  write(codeKey(campaignId), JSON.stringify({ code, expires: now + CODE_TTL_MS }));
  if (cookieDomain) writeCookie(codeCookie(campaignId), code, cookieDomain, CODE_TTL_MS / (24 * 60 * 60 * 1000));
}

/** The code remembered for a campaign: from this origin's storage, else from the shared cookie. */
export function storedCode(campaignId: string, now = Date.now()): string | undefined {
  return storedLocally(campaignId, now) ?? readCookie(codeCookie(campaignId)) ?? undefined;
}

function storedLocally(campaignId: string, now: number): string | undefined {
  const raw = read(codeKey(campaignId));
  if (!raw) return undefined;
  try {
    const { code, expires } = JSON.parse(raw) as { code?: unknown; expires?: unknown };
    if (typeof code === 'string' && typeof expires === 'number' && expires > now) return code;
  } catch {
    // fall through: a damaged entry is dropped
  }
  write(codeKey(campaignId), null);
  return undefined;
}

export function forgetCode(campaignId: string, cookieDomain?: string): void {
  write(codeKey(campaignId), null);
  if (readCookie(codeCookie(campaignId)) !== undefined) deleteCookie(codeCookie(campaignId), cookieDomain);
}

/** The service's verdict on a code, kept for the day, so that reloads do not ask (nor count) again. */
export function rememberVerdict(campaignId: string, code: string, valid: boolean, day: number): void {
  write(checkedKey(campaignId), JSON.stringify({ code, valid, day }));
}

export function storedVerdict(campaignId: string, code: string, day: number): boolean | undefined {
  try {
    const v = JSON.parse(read(checkedKey(campaignId)) ?? 'null') as { code?: unknown; valid?: unknown; day?: unknown } | null;
    if (v && v.code === code && v.day === day && typeof v.valid === 'boolean') return v.valid;
  } catch {
    // no verdict
  }
  return undefined;
}

export function rememberParticipant(campaignId: string, email: string, token?: string): void {
  write(participantKey(campaignId), email);
  if (token !== undefined) write(tokenKey(campaignId), token);
}

export function storedParticipant(campaignId: string): string | undefined {
  return read(participantKey(campaignId)) ?? undefined;
}

/** The participant token this browser was given for the remembered participant. */
export function storedToken(campaignId: string): string | undefined {
  return read(tokenKey(campaignId)) ?? undefined;
}

export function forgetParticipant(campaignId: string): void {
  write(participantKey(campaignId), null);
  write(tokenKey(campaignId), null);
}
