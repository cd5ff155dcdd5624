/**
 * Where webhooks may go. Unless WEBHOOK_ALLOW_PRIVATE is on, a target that is (or resolves to) a
 * loopback, private, link-local or otherwise non-public address is refused: otherwise anyone with a
 * secret key could make the service call into its own network (server-side request forgery).
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { invalid } from '../domain/errors.js';

export function isPublicAddress(address: string): boolean {
  const parsed = ipaddr.process(address);
  return parsed.range() === 'unicast';
}

/** Throws 400 invalid_request (field url) when the URL may not receive webhooks. */
export async function assertWebhookTarget(url: string, allowPrivate: boolean): Promise<void> {
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'https:' && protocol !== 'http:') throw invalid('url', 'url must be http or https');
  if (allowPrivate) return;
  const host = hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw invalid('url', `The host ${host} cannot be resolved`);
  }
  if (!addresses.every(isPublicAddress)) {
    throw invalid('url', 'url points to a private or loopback address (set WEBHOOK_ALLOW_PRIVATE=true to allow)');
  }
}
