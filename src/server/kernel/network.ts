/**
 * The network an address belongs to, as one person or one machine controls it: an IPv4 address, or an
 * IPv6 /64 (one customer's allocation holds billions of addresses, so the whole address identifies
 * nothing). An IPv4 address mapped into IPv6 (`::ffff:1.2.3.4`) is its IPv4 address.
 */
import { isIPv4 } from 'node:net';
import ipaddr from 'ipaddr.js';

export function networkOf(ip: string): string {
  // The common case, answered without parsing: Node accepts only plain dotted quads, already canonical.
  if (isIPv4(ip)) return ip;
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
