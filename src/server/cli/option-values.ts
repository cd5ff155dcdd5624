/** How the CLI's option values are read: numbers, repeated flags, and the short forms of a few settings. */
import { InvalidArgumentError } from 'commander';
import type { LeaderboardSettings, Milestone, WaitlistSettings } from '../../api/schemas.js';
import type { RefereeDiscount } from '../../api/promotion-schemas.js';
import { CAPTCHA_PROVIDERS, type Blocklist, type CaptchaSettingsBody } from '../../api/fraud-schemas.js';

export function int(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('Not an integer.');
  return n;
}

export function decimal(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('Not a number.');
  return n;
}

/** A flag given several times: each value, in order. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

export const intOrNone = (value: string): number | null => (value === 'none' ? null : int(value));

/** `month:10` -> { period: 'month', size: 10 }; `off` -> null. */
export function leaderboardOption(value: string): LeaderboardSettings | null {
  if (value === 'off') return null;
  const [period, size = ''] = value.split(':');
  if (period !== 'all' && period !== 'month') throw new InvalidArgumentError('Expected all:<size>, month:<size> or off, e.g. month:10.');
  return { period, size: int(size) };
}

/** `15%:once` -> 15 percent off the first payment; `10:repeating:3` -> 10 of the currency off for 3 months; `off` -> null. */
export function refereeDiscountOption(value: string): RefereeDiscount | null {
  if (value === 'off') return null;
  const [off = '', duration = 'once', months, ...rest] = value.split(':');
  const bad = () => new InvalidArgumentError('Expected <percent>%:<duration> or <amount>:<duration> (once, forever, repeating:<months>), or off, e.g. 15%:once.');
  if (rest.length > 0 || (duration !== 'once' && duration !== 'forever' && duration !== 'repeating') || (duration === 'repeating') !== (months !== undefined)) throw bad();
  const amount = off.endsWith('%') ? { percentOff: decimal(off.slice(0, -1)) } : { amountOff: int(off) };
  return { ...amount, duration, ...(months !== undefined && { durationInMonths: int(months) }) };
}

/** `5` -> { spotsPerReferral: 5 }; `5:qualified` -> counts qualified referrals; `off` -> null. */
export function waitlistOption(value: string): WaitlistSettings | null {
  if (value === 'off') return null;
  const [spots = '', counts = 'signups', ...rest] = value.split(':');
  if ((counts !== 'signups' && counts !== 'qualified') || rest.length > 0) throw new InvalidArgumentError('Expected <spots>, <spots>:qualified or off, e.g. 5.');
  return { spotsPerReferral: int(spots), counts };
}

/** `3:50:Free month` -> { referrals: 3, reward: 50, label: 'Free month' } (the label may hold colons). */
export function collectMilestone(value: string, previous: Milestone[] = []): Milestone[] {
  const [referrals = '', reward = '', ...label] = value.split(':');
  if (label.length === 0) throw new InvalidArgumentError('Expected referrals:reward:label, e.g. 3:50:Free month.');
  return [...previous, { referrals: int(referrals), reward: int(reward), label: label.join(':') }];
}

const BLOCK_KINDS = { email: 'emails', domain: 'domains', ip: 'ips', country: 'countries' } as const;

/** `email:a@example.com`, `domain:spam.test`, `ip:203.0.113.0/24`, `country:KP` (repeated) -> a Blocklist; `off` -> null. */
export function collectBlock(value: string, previous: Blocklist | null = {}): Blocklist | null {
  if (value === 'off') return null;
  const at = value.indexOf(':');
  const kind = BLOCK_KINDS[value.slice(0, at) as keyof typeof BLOCK_KINDS];
  if (at < 0 || !kind) throw new InvalidArgumentError('Expected email:<address>, domain:<domain>, ip:<address or CIDR>, country:<code> or off, e.g. ip:203.0.113.0/24.');
  const list: Blocklist = { ...(previous ?? {}) };
  list[kind] = [...(list[kind] ?? []), value.slice(at + 1)];
  return list;
}

/** `turnstile:<siteKey>:<secretKey>` -> a CAPTCHA; `off` -> null. */
export function captchaOption(value: string): CaptchaSettingsBody | null {
  if (value === 'off') return null;
  const [provider = '', siteKey = '', ...secret] = value.split(':');
  if (!(CAPTCHA_PROVIDERS as readonly string[]).includes(provider) || siteKey === '' || secret.join(':') === '') {
    throw new InvalidArgumentError(`Expected <provider>:<siteKey>:<secretKey> (provider ${CAPTCHA_PROVIDERS.join(', ')}) or off.`);
  }
  return { provider: provider as CaptchaSettingsBody['provider'], siteKey, secretKey: secret.join(':') };
}
