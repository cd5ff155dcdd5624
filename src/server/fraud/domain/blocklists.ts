/**
 * Blocklists: who may not join a campaign, by email address, email domain, IP address or range, and
 * country. A campaign's list and its account's list both apply. What a match does is the sign-up's to
 * decide (../../referrals/domain/signups.ts): a keyless sign-up is refused with one message whatever the
 * rule (an attacker learns nothing of the list), a keyed one is held for review with the rule in words.
 */
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Blocklist } from '../../../api/fraud-schemas.js';
import { AppError, invalid } from '../../kernel/errors.js';
import { emailDomain, emailKey, normalizeEmail } from '../../kernel/email.js';
import type { Ctx } from '../../kernel/context.js';
import type { CampaignRow } from '../../store/store.js';
import { countryOf } from './country.js';

/**
 * The body limit of the requests that carry a blocklist (a campaign's, the account's): the service's
 * 16 KB default held about 600 short entries, where each of the four lists takes 1,000
 * (MAX_BLOCKLIST_ENTRIES). A blocklist at its limits, every entry at its longest, is about 640 KB of
 * ASCII JSON, up to three times that escaped: 4 MB holds it in any characters.
 */
export const BLOCKLIST_BODY_LIMIT = 4 * 1024 * 1024;

/** The one answer to a blocked keyless sign-up: it names no rule. */
export const blocked = () => new AppError(403, 'blocked', 'This sign-up is not accepted');

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

/** Checks and normalises a blocklist: addresses lower-cased, domains without a leading @, ranges parsed, countries in capitals; duplicates and empty lists dropped. */
export function checkBlocklist(list: Blocklist, field: string): Blocklist {
  const out: Blocklist = {};
  const put = (k: keyof Blocklist, values: string[]) => {
    const unique = [...new Set(values)];
    if (unique.length > 0) out[k] = unique;
  };
  put('emails', (list.emails ?? []).map((e, i) => normalizeEmail(e, `${field}.emails.${i}`)));
  put(
    'domains',
    (list.domains ?? []).map((d, i) => {
      const domain = d.trim().toLowerCase().replace(/^@/, '');
      if (!DOMAIN.test(domain)) throw invalid(`${field}.domains.${i}`, `${field}.domains.${i} must be an email domain such as example.com`);
      return domain;
    }),
  );
  put(
    'ips',
    (list.ips ?? []).map((r, i) => {
      const range = r.trim();
      try {
        if (range.includes('/')) {
          const [address, bits] = ipaddr.parseCIDR(range);
          return `${address.toString()}/${bits}`;
        }
        return ipaddr.parse(range).toString();
      } catch {
        throw invalid(`${field}.ips.${i}`, `${field}.ips.${i} must be an IP address or a CIDR range (203.0.113.0/24, 2001:db8::/32)`);
      }
    }),
  );
  put('countries', (list.countries ?? []).map((c) => c.toUpperCase()));
  return out;
}

/** A blocklist made ready to check: sets and node's BlockList, made once per stored text. */
interface Compiled {
  emails: Set<string>;
  domains: Set<string>;
  ips: BlockList;
  countries: Set<string>;
}

const compiled = new Map<string, Compiled>();
/** Lists kept compiled: every campaign's and account's, for a service with many. */
const COMPILED_KEPT = 1000;

function compile(stored: string): Compiled {
  let c = compiled.get(stored);
  if (c) return c;
  const list = JSON.parse(stored) as Blocklist;
  const ips = new BlockList();
  for (const range of list.ips ?? []) {
    const [address, bits] = range.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) ips.addAddress(address, family);
    else ips.addSubnet(address, Number(bits), family);
  }
  c = { emails: new Set((list.emails ?? []).map(emailKey)), domains: new Set(list.domains), ips, countries: new Set(list.countries) };
  if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
  compiled.set(stored, c);
  return c;
}

/** Whether any list blocks countries: the country is looked up only then. */
export const listsCountries = (stored: (string | null)[]): boolean => stored.some((s) => s !== null && compile(s).countries.size > 0);

export interface Applicant {
  email: string;
  ip: string | null;
  /** ISO 3166-1 alpha-2, upper-case; null when not known. */
  country: string | null;
}

/** An IPv4-mapped IPv6 address (::ffff:203.0.113.9) as the IPv4 address it is, so that IPv4 ranges match it. */
function plainIp(ip: string | null): string | undefined {
  if (ip === null || !ipaddr.isValid(ip)) return undefined;
  return ipaddr.process(ip).toString();
}

/** The rule of these stored lists that blocks `who`, in words for the owner; undefined when none does. */
export function blockingRule(stored: (string | null)[], who: Applicant): string | undefined {
  const key = emailKey(who.email);
  const domain = emailDomain(who.email);
  const ip = plainIp(who.ip);
  for (const s of stored) {
    if (s === null) continue;
    const list = compile(s);
    if (list.emails.has(key)) return `Blocked email address ${who.email}`;
    // A domain blocks its subdomains: mail.example.com is example.com's.
    for (let d = domain; d.includes('.'); d = d.slice(d.indexOf('.') + 1)) {
      if (list.domains.has(d)) return `Blocked email domain ${d}`;
    }
    if (ip !== undefined && list.ips.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4')) return `Blocked IP address ${ip}`;
    if (who.country !== null && list.countries.has(who.country)) return `Blocked country ${who.country}`;
  }
  return undefined;
}

/**
 * The rule of the campaign's or its account's blocklist that blocks this sign-up, in words for the owner;
 * undefined when none does. `ip` is the address the request came from, checked whether or not the account
 * keeps addresses (checking is not keeping); the country is looked up only when a list names countries.
 */
export async function blockedSignup(ctx: Ctx, campaign: Pick<CampaignRow, 'account_id' | 'blocklist'>, who: { email: string; ip: string | null; countryHeader?: string | undefined }): Promise<string | undefined> {
  const lists = [campaign.blocklist, (await ctx.store.accountSettings.find(campaign.account_id))?.blocklist ?? null];
  if (lists[0] === null && lists[1] === null) return undefined;
  const country = listsCountries(lists) ? countryOf(ctx.fraud, who.countryHeader, who.ip) : null;
  return blockingRule(lists, { email: who.email, ip: who.ip, country });
}
