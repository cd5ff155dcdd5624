/**
 * What the React and Vue components hand the element: its public attributes, as props named like the
 * element's properties (`campaignId`, `firstNameField`), written as the element's attributes
 * (`campaign-id`, `first-name`), so that a server render carries them (`<referral-widget
 * campaign-id="...">`) and the browser upgrades the element from them. Which props are attributes, and
 * their names, are read from the element's own `static properties` (Lit's rule: `attribute`, else the
 * property's name in lower case), so that the wrappers follow the element.
 */
import type { PropertyDeclaration } from 'lit';
import { ReferralWidget as ReferralWidgetElement, type WidgetEvents } from '../../../src/widget/referral-widget.js';

/** The element's attributes, as the React and Vue components take them. */
export interface ReferralWidgetAttributes {
  /** The campaign's id (`campaign-id`). */
  campaignId: string;
  /** The service's address (`api-base`), e.g. `https://refkit.example.com`; by default the page's origin. */
  apiBase?: string | undefined;
  /** A visitor the page already knows: shown their share view without a form. */
  email?: string | undefined;
  /** Your backend's hex HMAC-SHA256 of `email` with the campaign's signing secret (`email-signature`). */
  emailSignature?: string | undefined;
  /** A parent domain (`example.com`) to keep the referral code in a cookie its subdomains share (`cookie-domain`). */
  cookieDomain?: string | undefined;
  /** Ask for a first name (`first-name`). */
  firstNameField?: boolean | undefined;
  /** Ask for a last name (`last-name`). */
  lastNameField?: boolean | undefined;
  /** Show the campaign's leaderboard and the participant's rank (`show-leaderboard`). */
  showLeaderboard?: boolean | undefined;
  /** The language of the widget's texts (en, de, fr, es, ar); by default the page's. */
  lang?: string | undefined;
  /** Text of the sign-up button (`submit-label`). */
  submitLabel?: string | undefined;
  /** Label of the email field (`email-label`). */
  emailLabel?: string | undefined;
  /** Label of the first-name field (`first-name-label`). */
  firstNameLabel?: string | undefined;
  /** Label of the last-name field (`last-name-label`). */
  lastNameLabel?: string | undefined;
  /** Says the visitor arrived with an invitation (`invited-text`). */
  invitedText?: string | undefined;
  /** Text of the copy button (`copy-label`). */
  copyLabel?: string | undefined;
  /** Text of the native share button (`share-label`). */
  shareLabel?: string | undefined;
  /** Text of the retry button (`retry-label`). */
  retryLabel?: string | undefined;
}

/** `referral-signup`: a sign-up (or a followed email link) succeeded. */
export type ReferralSignupEvent = CustomEvent<WidgetEvents['referral-signup']>;
/** `referral-code`: the service checked the referral code of the share link. */
export type ReferralCodeEvent = CustomEvent<WidgetEvents['referral-code']>;
/** `referral-error`: a call failed. */
export type ReferralErrorEvent = CustomEvent<WidgetEvents['referral-error']>;

/** `referral-signup` → `ReferralSignup`. */
type Pascal<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Capitalize<Head>}${Pascal<Tail>}` : Capitalize<S>;

/** The element's events by their handler's name (`onReferralSignup`), each with its typed event. */
export type ReferralWidgetEventHandlers = {
  [K in keyof WidgetEvents as `on${Pascal<K>}`]?: (event: CustomEvent<WidgetEvents[K]>) => void;
};

/** The events as a Vue component emits them (`referralSignup`, listened to with `@referral-signup`), each with its event. */
export type VueEmits = {
  [K in keyof WidgetEvents as Uncapitalize<Pascal<K>>]: (event: CustomEvent<WidgetEvents[K]>) => boolean;
};

/** Each event's handler name and the event's type: every event of WidgetEvents, or this does not compile. */
export const EVENTS = {
  onReferralSignup: 'referral-signup',
  onReferralCode: 'referral-code',
  onReferralError: 'referral-error',
} as const satisfies { [K in keyof WidgetEvents as `on${Pascal<K>}`]-?: K };

/** The element's properties that are attributes, and the attributes' names: from its `static properties`. */
const ATTRIBUTES = new Map(
  Object.entries(ReferralWidgetElement.properties as Record<string, PropertyDeclaration>)
    .filter(([, options]) => !options.state && options.attribute !== false)
    .map(([property, options]) => [property, { name: typeof options.attribute === 'string' ? options.attribute : property.toLowerCase(), boolean: options.type === Boolean }]),
);

/**
 * Props split into the element's attributes (a boolean one is `''` when true and left out when false; an
 * empty or missing string is left out) and the rest, which the wrapper passes on as they are.
 */
export function splitAttributes(props: object): { attributes: Record<string, string | undefined>; rest: Record<string, unknown> } {
  const attributes: Record<string, string | undefined> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(props)) {
    const attribute = ATTRIBUTES.get(key);
    if (!attribute) rest[key] = value;
    else if (attribute.boolean) attributes[attribute.name] = value ? '' : undefined;
    else attributes[attribute.name] = value === undefined || value === null || value === '' ? undefined : String(value);
  }
  return { attributes, rest };
}

/** The element's attribute-backed properties, by the element's own declaration (those that are not `state`). */
type AttributeProperties = {
  [K in keyof typeof ReferralWidgetElement.properties]: (typeof ReferralWidgetElement.properties)[K] extends { state: boolean } ? never : K;
}[keyof typeof ReferralWidgetElement.properties];
/** Compiles only while ReferralWidgetAttributes names every attribute of the element, and nothing else. */
type _EveryAttribute = Assert<
  [Exclude<AttributeProperties, keyof ReferralWidgetAttributes>, Exclude<keyof ReferralWidgetAttributes, AttributeProperties>] extends [never, never] ? true : false
>;
type Assert<T extends true> = T;
