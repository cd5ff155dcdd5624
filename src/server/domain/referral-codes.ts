import { randomInt } from 'node:crypto';

/** No 0/O, 1/I/L, or U (avoids accidental words): easy to read aloud and to type from a poster. */
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
export const CODE_LENGTH = 8;

/** A referral code: 8 characters from crypto randomness, about 39 bits, so codes cannot be guessed. */
export function newReferralCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}
