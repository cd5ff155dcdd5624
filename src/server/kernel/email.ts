/** One place for what an email address is: how it is normalised, checked and de-aliased. */
import { ERASED_NAME, isErasedEmail } from '../../api/erased.js';
import { invalid } from './errors.js';

// Deliberately simple: dot-atoms on both sides of one @ (RFC 5322's, with RFC 6531's non-ASCII letters),
// a dot in the domain, no spaces. No quoted strings, comments or specials: stored as typed, `first,second@d`
// or `a(x)b@d` would be mailed by an SMTP library to another mailbox than the one shown (a list of two, a
// comment). Confirmation belongs to the product. No controls or invisible format characters (zero-width
// joiners, soft hyphens, bidi marks) either: they make one address look like another.
const ATOM = '[^\\s@.(),:;<>[\\]\\\\"\\p{Cc}\\p{Cf}]+';
const EMAIL = new RegExp(`^${ATOM}(\\.${ATOM})*@${ATOM}(\\.${ATOM})+$`, 'u');

/** Trims and lower-cases; throws 400 invalid_request naming `field` when it is not an address. */
export function normalizeEmail(raw: string, field = 'email'): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) throw invalid(field, `${field} must be an email address`);
  // The stand-in address of an erased participant (../../api/erased.ts) is nobody's: no call may name it.
  if (isErasedEmail(email)) throw invalid(field, `${field} is the reserved address of an erased participant`);
  return email;
}

const DOTS_IGNORED = new Set(['gmail.com', 'googlemail.com']);

/**
 * The mailbox an address delivers to, with aliasing removed: `a.b+promo@gmail.com` and `ab@gmail.com`
 * share a key. Two participants with one key are most likely one person.
 */
export function emailKey(email: string): string {
  const at = email.lastIndexOf('@');
  let local = email.slice(0, at);
  let domain = email.slice(at + 1);
  local = local.split('+')[0] ?? local;
  if (DOTS_IGNORED.has(domain)) {
    local = local.replaceAll('.', '');
    domain = 'gmail.com';
  }
  return `${local}@${domain}`;
}

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1);
}

/** `ann.lee@example.com` -> `a***@example.com`: enough to recognise a friend, not to write to them. An erased participant: Deleted participant. */
export function maskEmail(email: string): string {
  if (isErasedEmail(email)) return ERASED_NAME;
  const at = email.lastIndexOf('@');
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

/** A host name, a URL's pieces or an address: what a first name shown to others must not read as. */
const LINK_LIKE = /[@/\\:]|www\.|[\p{L}\p{N}-]\.\p{L}{2,}/iu;

/**
 * The first name a participant is shown by to others (a referrer's list of friends and their emails, the
 * public leaderboard), or undefined to show the masked address instead: a first name that reads as a link
 * or an address is not shown, or a sign-up could put `evil.example/win` into the subject of an email the
 * campaign sends in its own name.
 */
export function shownFirstName(firstName: string | null): string | undefined {
  const first = firstName?.trim().split(/\s+/)[0];
  return first && !LINK_LIKE.test(first) ? first : undefined;
}
