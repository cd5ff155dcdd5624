/**
 * What the widget remembers, per campaign: the referral code a visitor arrived with and the utm_*
 * parameters of the link it came on (90 days, so they survive browsing the site before signing up; in
 * localStorage, and in first-party cookies when the page sets a cookie domain), who signed up on this
 * browser, and the participant token that proves it.
 * Storage can be unavailable (private modes, sandboxed iframes); every access tolerates that.
 */
import type { Utm } from '../api/schemas.js';
import { deleteCookie, readCookie, writeCookie } from './cookies.js';

export type { Utm };

export const UTM_FIELDS = ['source', 'medium', 'campaign', 'term', 'content'] as const;
const MAX_UTM_LENGTH = 200;
/** What the service's `line` format refuses (src/server/kernel/text-rules.ts): controls, bidi controls, separators, invisible spaces. */
const NOT_IN_A_LINE = /[\p{Cc}\p{Cs}\p{Bidi_Control}\p{Zl}\p{Zp}\u200B\u2060\uFEFF]/gu;

/**
 * One utm_* value as the service takes it (addParticipant's `utm`, one line of 1-200 characters), or ''
 * when nothing is left: what the line format refuses dropped, trimmed, cut to 200 characters (never
 * inside one).
 */
export function cleanUtmValue(value: unknown): string {
  if (typeof value !== 'string') return '';
  return [...value.replace(NOT_IN_A_LINE, '').trim()].slice(0, MAX_UTM_LENGTH).join('').trim();
}

/** The non-empty cleaned values of `read(field)`, or undefined when there is none. */
export function utmOf(read: (field: (typeof UTM_FIELDS)[number]) => unknown): Utm | undefined {
  const utm: Utm = {};
  for (const field of UTM_FIELDS) {
    const value = cleanUtmValue(read(field));
    if (value) utm[field] = value;
  }
  return Object.keys(utm).length ? utm : undefined;
}

/** Kept utm read back (from storage or a cookie): only the known fields, each cleaned again. */
const utmFrom = (kept: unknown): Utm | undefined =>
  kept && typeof kept === 'object' ? utmOf((field) => (kept as Record<string, unknown>)[field]) : undefined;

export const CODE_TTL_MS = 90 * 24 * 60 * 60 * 1000;
/** The campaign of a share link that named none (`?referralCode=...` alone): any campaign may use it. */
export const ANY_CAMPAIGN = '*';

const codeKey = (campaignId: string) => `refkit:${campaignId}:code`;
const participantKey = (campaignId: string) => `refkit:${campaignId}:email`;
const tokenKey = (campaignId: string) => `refkit:${campaignId}:token`;
const checkedKey = (campaignId: string) => `refkit:${campaignId}:checked`;
/** Cookie names allow fewer characters than campaign ids: anything else becomes `_`. */
const cookieName = (kind: string, campaignId: string) => `refkit_${kind}_${campaignId === ANY_CAMPAIGN ? 'any' : campaignId.replace(/[^A-Za-z0-9_-]/g, '_')}`;
const codeCookie = (campaignId: string) => cookieName('code', campaignId);
/** The utm of the code's link, as a query string (`source=refkit&medium=email`), beside the code's cookie. */
const utmCookie = (campaignId: string) => cookieName('utm', campaignId);

/** A code and the utm_* of the link it came on. */
export interface KeptCode {
  code: string;
  utm?: Utm | undefined;
}

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

/**
 * Remembers a code, with the utm_* of its link (they replace any kept before), for 90 days; with
 * `cookieDomain`, also in cookies its subdomains share.
 */
export function rememberCode(campaignId: string, code: string, now = Date.now(), cookieDomain?: string, utm?: Utm): void {
  write(codeKey(campaignId), JSON.stringify({ code, expires: now + CODE_TTL_MS, ...(utm && { utm }) }));
  if (!cookieDomain) return;
  const days = CODE_TTL_MS / (24 * 60 * 60 * 1000);
  writeCookie(codeCookie(campaignId), code, cookieDomain, days);
  if (utm) writeCookie(utmCookie(campaignId), new URLSearchParams(utm as Record<string, string>).toString(), cookieDomain, days);
  else if (readCookie(utmCookie(campaignId)) !== undefined) deleteCookie(utmCookie(campaignId), cookieDomain);
}

/** The code remembered for a campaign: from this origin's storage, else from the shared cookie. */
export function storedCode(campaignId: string, now = Date.now()): string | undefined {
  return storedCodeAndUtm(campaignId, now)?.code;
}

/** The code remembered for a campaign and the utm_* of its link, from the same place (storage, else the cookies). */
export function storedCodeAndUtm(campaignId: string, now = Date.now()): KeptCode | undefined {
  const local = storedLocally(campaignId, now);
  if (local) return local;
  const code = readCookie(codeCookie(campaignId));
  if (code === undefined) return undefined;
  const utm = readCookie(utmCookie(campaignId));
  return { code, utm: utm === undefined ? undefined : utmFrom(Object.fromEntries(new URLSearchParams(utm))) };
}

function storedLocally(campaignId: string, now: number): KeptCode | undefined {
  const raw = read(codeKey(campaignId));
  if (!raw) return undefined;
  try {
    const { code, expires, utm } = JSON.parse(raw) as { code?: unknown; expires?: unknown; utm?: unknown };
    if (typeof code === 'string' && typeof expires === 'number' && expires > now) return { code, utm: utmFrom(utm) };
  } catch {
    // fall through: a damaged entry is dropped
  }
  write(codeKey(campaignId), null);
  return undefined;
}

export function forgetCode(campaignId: string, cookieDomain?: string): void {
  write(codeKey(campaignId), null);
  for (const name of [codeCookie(campaignId), utmCookie(campaignId)]) if (readCookie(name) !== undefined) deleteCookie(name, cookieDomain);
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
