/**
 * Words a chosen referral code may not be (./vanity-codes.ts): reserved ones, which would pass for the
 * service or the program itself, and offensive ones. A code's words are its runs of letters; a reserved
 * word is refused as a whole code, an offensive one as any of its words, and the longer offensive words
 * (six letters and more, where a false match is unlikely) anywhere in it.
 */
const RESERVED = new Set([
  'ADMIN', 'ADMINISTRATOR', 'API', 'BILLING', 'HELP', 'MODERATOR', 'NULL', 'OFFICIAL', 'OWNER', 'PORTAL', 'REFKIT', 'REFUND', 'ROOT', 'SECURITY',
  'STAFF', 'STRIPE', 'PAYPAL', 'SUPPORT', 'SYSTEM', 'TEST', 'UNDEFINED', 'WEBHOOK',
]);

const OFFENSIVE = [
  'ANAL', 'ARSE', 'ASS', 'BITCH', 'BOLLOCKS', 'BUGGER', 'CHINK', 'COCK', 'CUNT', 'DICK', 'DYKE', 'FAG', 'FAGGOT', 'FUCK', 'FUCKER', 'FUCKING',
  'GOOK', 'HITLER', 'JIZZ', 'KIKE', 'MOTHERFUCKER', 'NAZI', 'NIGGA', 'NIGGER', 'PAKI', 'PENIS', 'PISS', 'PORN', 'PUSSY', 'RAPE', 'RAPIST', 'RETARD',
  'SHIT', 'SLUT', 'SPIC', 'TITS', 'TWAT', 'VAGINA', 'WANK', 'WANKER', 'WHORE',
];
const OFFENSIVE_WORDS = new Set(OFFENSIVE);
const OFFENSIVE_INSIDE = OFFENSIVE.filter((w) => w.length >= 6);

/** Whether a code (in capitals) is reserved or offensive. */
export function blockedWord(code: string): boolean {
  const letters = code.replace(/[^A-Z]/g, '');
  if (RESERVED.has(code.replaceAll('-', '')) || RESERVED.has(letters)) return true;
  const words = code.split(/[^A-Z]+/).filter(Boolean);
  if (words.some((w) => OFFENSIVE_WORDS.has(w))) return true;
  return OFFENSIVE_INSIDE.some((w) => letters.includes(w));
}
