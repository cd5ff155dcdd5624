/**
 * The country of a sign-up, for blocklists by country: from the header the proxy in front sets
 * (TRUSTED_COUNTRY_HEADER, e.g. Cloudflare's CF-IPCountry), or, with GEOIP=geoip-lite, from geoip-lite's
 * offline database of the sign-up's IP address. The header is believed only when the operator names it:
 * a client could send any header otherwise. geoip-lite's data is what its installed version shipped with
 * (it ages: docs/fraud.md says how to refresh it) and is loaded only when first needed (about 100 MB).
 */
import { createRequire } from 'node:module';
import type { FraudSettings } from '../../kernel/context.js';

/** A country code as a header gives it: two letters; Cloudflare's XX (unknown) and T1 (Tor) are not countries. */
const COUNTRY = /^[A-Z]{2}$/;

interface GeoIp {
  lookup(ip: string): { country: string } | null;
}
let geoip: GeoIp | undefined;

function lookUp(ip: string): string | null {
  // Required on first use: its database takes a moment and memory to load, and most services never need it.
  geoip ??= createRequire(import.meta.url)('geoip-lite') as GeoIp;
  const found = geoip.lookup(ip)?.country;
  return found && COUNTRY.test(found) ? found : null;
}

/** The sign-up's country (ISO 3166-1 alpha-2), or null when neither source says. */
export function countryOf(settings: FraudSettings | undefined, headerValue: string | undefined, ip: string | null): string | null {
  const given = settings?.trustedCountryHeader !== undefined ? headerValue?.trim().toUpperCase() : undefined;
  if (given && COUNTRY.test(given) && given !== 'XX') return given;
  if (settings?.geoip && ip !== null) return lookUp(ip);
  return null;
}

/** The value of the trusted country header in a request's headers, when one is named. */
export function countryHeader(settings: FraudSettings | undefined, headers: Record<string, string | string[] | undefined>): string | undefined {
  const name = settings?.trustedCountryHeader;
  if (name === undefined) return undefined;
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}
