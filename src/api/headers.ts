/**
 * The HTTP headers that carry a participant's proof and a sign-up's outcome, beside the interface's
 * exact bodies. Plain constants, so the widget can import them without any schema code.
 */
export const PROOF_HEADERS = {
  /** Request: the participant token this browser was given. Response: a token newly issued to it. */
  token: 'refkit-participant-token',
  /** Request: the host backend's HMAC-SHA256 (hex) of the email, with the campaign's signing secret. */
  emailSignature: 'refkit-email-signature',
} as const;

/**
 * Request: `send` asks the service to email a sign-in link when the email belongs to a participant this
 * request does not prove (the widget sends it when a visitor types their email; never on page loads,
 * so that a page view cannot send mail). Response: see OUTCOME_HEADERS.emailLink.
 */
export const EMAIL_LINK_REQUEST = { header: 'refkit-email-link', value: 'send' } as const;

/**
 * Request: the language (a BCP 47 tag) a new participant's emails are written in: the widget sends its
 * `lang` with a sign-up and with a followed email link; a backend may send it with addParticipant. A
 * language Refkit does not write in reads English.
 */
export const LOCALE_HEADER = 'refkit-locale';

export const OUTCOME_HEADERS = {
  /** Response to addParticipant: `created`, `existing` or `pending` (waiting for email confirmation). */
  signup: 'refkit-signup',
  /** Response: `sent` when an email link went out with this call, `throttled` when one went out moments ago. */
  emailLink: 'refkit-email-link',
} as const;
