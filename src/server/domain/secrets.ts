/** Random secrets handed to clients (keys, tokens, link codes) and the one-way hash they are stored as. */
import { hash, randomBytes } from 'node:crypto';

/** A prefixed secret with 192 bits of crypto randomness: unguessable, safe in URLs and headers. */
export const newSecret = (prefix: string) => `${prefix}_${randomBytes(24).toString('base64url')}`;

/**
 * SHA-256, hex. A fast hash suffices: the secrets are long random strings, so there is nothing to
 * brute-force, and looking them up by hash keeps each check one indexed read.
 */
export const hashSecret = (secret: string) => hash('sha256', secret, 'hex');
