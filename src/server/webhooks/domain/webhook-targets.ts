/**
 * Where webhooks may go. A target is resolved once; unless WEBHOOK_ALLOW_PRIVATE is on, every address it
 * resolves to must be public (not loopback, private, link-local, IPv4-compatible or otherwise special),
 * and the request then connects to the address that was checked (./send.ts), never resolving the name
 * again: otherwise a name that answers a public address to the check and 127.0.0.1 to the connection
 * (DNS rebinding) would let anyone with a secret key make the service call into its own network.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { invalid } from '../../kernel/errors.js';

/** Resolves a host name to all its addresses (dns.lookup, as the operating system resolves). */
export type Resolver = (host: string) => Promise<string[]>;
export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface WebhookTarget {
  url: URL;
  /** The checked address the request connects to. */
  address: string;
  family: 4 | 6;
}

export function isPublicAddress(address: string): boolean {
  const parsed = ipaddr.process(address);
  if (parsed.range() !== 'unicast') return false;
  // ::a.b.c.d, the deprecated IPv4-compatible form: ipaddr.js calls it unicast, but it names an IPv4 host.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) return false;
  return true;
}

/** The target of a URL, resolved and checked; throws 400 invalid_request (field url) when it may not receive webhooks. */
export async function resolveWebhookTarget(rawUrl: string, allowPrivate: boolean, resolve: Resolver = systemResolver): Promise<WebhookTarget> {
  const url = URL.canParse(rawUrl) ? new URL(rawUrl) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw invalid('url', 'url must be an http or https URL');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host) ? [host] : await resolve(host);
  } catch {
    addresses = [];
  }
  if (addresses.length === 0) throw invalid('url', `The host ${host} cannot be resolved`);
  if (!allowPrivate && !addresses.every(isPublicAddress)) {
    throw invalid('url', 'url points to a private or loopback address (set WEBHOOK_ALLOW_PRIVATE=true to allow)');
  }
  const address = addresses[0]!;
  return { url, address, family: ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4 };
}

/** The check when an endpoint is added: with private targets allowed, any http(s) URL (it is resolved when sent). */
export async function assertWebhookTarget(rawUrl: string, allowPrivate: boolean): Promise<void> {
  if (allowPrivate) {
    const url = URL.canParse(rawUrl) ? new URL(rawUrl) : undefined;
    if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw invalid('url', 'url must be an http or https URL');
    return;
  }
  await resolveWebhookTarget(rawUrl, false);
}
