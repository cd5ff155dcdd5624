import { randomInt } from 'node:crypto';

/** Random identifiers for campaigns, keys and webhook rows, with a readable prefix (`cmp_...`, `key_...`). */
export function newId(prefix: string, length = 12): string {
  const chars = 'abcdefghijkmnopqrstuvwxyz23456789';
  let id = '';
  for (let i = 0; i < length; i++) id += chars[randomInt(chars.length)];
  return `${prefix}_${id}`;
}
