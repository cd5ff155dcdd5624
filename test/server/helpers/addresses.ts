/**
 * Browsers at other addresses: the whole 127.0.0.0/8 is loopback on Linux, so a client that binds its
 * socket to 127.0.0.N reaches the test service from a distinct IP, as visitors on other networks do.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { RefkitClient } from '../../../src/api/client.js';

/** A keyless client whose requests come from `localAddress` (and carry `userAgent`, when given). */
export function browserAt(baseUrl: string, localAddress: string, userAgent?: string): RefkitClient {
  const dispatcher = new Agent({ localAddress });
  const fetch = ((input: string | URL, init: RequestInit = {}) => {
    const headers = Object.fromEntries(new Headers(init.headers));
    if (userAgent) headers['user-agent'] = userAgent;
    return undiciFetch(input, { ...(init as object), headers, dispatcher });
  }) as unknown as typeof globalThis.fetch;
  return new RefkitClient({ baseUrl, fetch });
}
