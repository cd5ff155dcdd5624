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

/**
 * How many fresh codes a new participant tries: 30^8 is about 6.6 * 10^11 codes, so a campaign of a
 * million participants has a fresh code taken about once in 650,000 tries, and five in a row never.
 */
export const CODE_ATTEMPTS = 5;
