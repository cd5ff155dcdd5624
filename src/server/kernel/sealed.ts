/**
 * Encryption of the few values kept that must be read back (a participant's tax identification number):
 * AES-256-GCM under REFKIT_ENCRYPTION_KEY. A sealed value names the key it was sealed with (the first 8 hex
 * digits of the key's SHA-256), so keys rotate without a migration: the new key seals, and keys listed in
 * REFKIT_ENCRYPTION_KEYS_OLD still open what they sealed, which is sealed again under the new key when it is
 * next written (docs/payouts.md#tax-details).
 */
import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';

export class EncryptionKeyError extends Error {}

/** A key as configured: 32 bytes, as 64 hex digits or base64. */
export function parseKey(name: string, text: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(t) ? Buffer.from(t, 'hex') : Buffer.from(t, 'base64');
  if (key.length !== 32) throw new EncryptionKeyError(`${name} must be 32 bytes, as 64 hex digits or base64 (openssl rand -hex 32)`);
  return key;
}

const keyId = (key: Buffer) => hash('sha256', key, 'hex').slice(0, 8);

export class Sealer {
  readonly #current: { id: string; key: Buffer };
  readonly #keys = new Map<string, Buffer>();

  constructor(current: Buffer, old: readonly Buffer[] = []) {
    this.#current = { id: keyId(current), key: current };
    for (const k of [current, ...old]) this.#keys.set(keyId(k), k);
  }

  /** From REFKIT_ENCRYPTION_KEY and REFKIT_ENCRYPTION_KEYS_OLD (comma-separated); undefined when no key is set. */
  static fromEnv(env: NodeJS.ProcessEnv): Sealer | undefined {
    const current = env.REFKIT_ENCRYPTION_KEY;
    if (!current) return undefined;
    const old = (env.REFKIT_ENCRYPTION_KEYS_OLD ?? '').split(',').filter((k) => k.trim() !== '');
    return new Sealer(
      parseKey('REFKIT_ENCRYPTION_KEY', current),
      old.map((k) => parseKey('REFKIT_ENCRYPTION_KEYS_OLD', k)),
    );
  }

  /** `v1.<key id>.<iv>.<tag>.<ciphertext>`, base64url parts. */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', this.#current.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, id, iv, tag, body] = sealed.split('.');
    const key = id === undefined ? undefined : this.#keys.get(id);
    if (version !== 'v1' || !key || iv === undefined || tag === undefined || body === undefined) {
      throw new EncryptionKeyError(`A value was sealed with key ${id ?? '?'}, which is neither REFKIT_ENCRYPTION_KEY nor in REFKIT_ENCRYPTION_KEYS_OLD`);
    }
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Whether a sealed value is under an old key. */
  isOld(sealed: string): boolean {
    return sealed.split('.')[1] !== this.#current.id;
  }
}
