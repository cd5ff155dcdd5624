/**
 * What text the service accepts anywhere it stores or shows it: the request formats `line` and `text`
 * (./validation.ts) and the imported CSV rows (../referrals/domain/participant-csv.ts) apply these same rules.
 */

/**
 * Controls (C0, DEL, C1), unpaired surrogates, bidi controls (LRM, RLO, isolates...), line/paragraph
 * separators, and the invisible zero-width space, word joiner and BOM, which only hide what a value
 * says. The zero-width joiner and non-joiner stay: emoji sequences and several scripts need them.
 */
const FORBIDDEN_IN_LINE = /[\p{Cc}\p{Cs}\p{Bidi_Control}\p{Zl}\p{Zp}\u200B\u2060\uFEFF]/u;
/** The same, except tab and line breaks, which a multi-line text may hold. */
const FORBIDDEN_IN_TEXT = /[\p{Cs}\p{Bidi_Control}\p{Zl}\p{Zp}\u200B\u2060\uFEFF]|(?![\t\n\r])\p{Cc}/u;

export const isLine = (s: string) => !FORBIDDEN_IN_LINE.test(s);
export const isText = (s: string) => !FORBIDDEN_IN_TEXT.test(s);

/** What the line rule promises, for error messages: `email must be ...`. */
export const LINE_RULE = 'must be one line of text, without control, bidirectional-override or zero-width characters';
