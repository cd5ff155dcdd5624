/**
 * @refkit/widget/vue: <ReferralWidget campaign-id="..." @referral-signup="...">, the element for Vue 3 (a
 * component made with defineComponent and h, no SFC compiler needed). Its props are the element's
 * attributes, named like its properties (./attributes.ts), rendered as the element's attributes so that
 * a server render writes `<referral-widget campaign-id="...">`; each event of the element is emitted with
 * the element's CustomEvent (`referralSignup`, `referralCode`, `referralError`: `@referral-signup` in a
 * template). The default slot's content goes inside the element (`slot="footer"` for its slots); other
 * attributes and listeners fall through to the element.
 */
import { defineComponent, h, type PropType } from 'vue';
import {
  EVENTS,
  splitAttributes,
  type ReferralCodeEvent,
  type ReferralErrorEvent,
  type ReferralSignupEvent,
  type ReferralWidgetAttributes,
  type VueEmits,
} from './attributes.js';
import { defineReferralWidget } from './define.js';

export type { ReferralWidget as ReferralWidgetElement, WidgetEvents, WidgetState } from '../../../src/widget/referral-widget.js';
export type { ReferralCodeEvent, ReferralErrorEvent, ReferralSignupEvent, ReferralWidgetAttributes } from './attributes.js';

defineReferralWidget();

const text = { type: String as PropType<string | undefined>, default: undefined };

/** <referral-widget> for Vue 3. */
export const ReferralWidget = defineComponent({
  name: 'ReferralWidget',
  props: {
    /** The campaign's id (`campaign-id`). */
    campaignId: { type: String, required: true as const },
    /** The service's address (`api-base`); by default the page's origin. */
    apiBase: text,
    /** A visitor the page already knows: shown their share view without a form. */
    email: text,
    /** Your backend's hex HMAC-SHA256 of `email` with the campaign's signing secret. */
    emailSignature: text,
    /** A parent domain to keep the referral code in a cookie its subdomains share. */
    cookieDomain: text,
    /** Ask for a first name. */
    firstNameField: Boolean,
    /** Ask for a last name. */
    lastNameField: Boolean,
    /** Show the campaign's leaderboard and the participant's rank. */
    showLeaderboard: Boolean,
    /** The language of the widget's texts (en, de, fr, es, ar); by default the page's. */
    lang: text,
    submitLabel: text,
    emailLabel: text,
    firstNameLabel: text,
    lastNameLabel: text,
    invitedText: text,
    copyLabel: text,
    shareLabel: text,
    retryLabel: text,
  } satisfies { [K in keyof ReferralWidgetAttributes]-?: unknown },
  emits: {
    /** A sign-up (or a followed email link) succeeded: `@referral-signup`. */
    referralSignup: (event: ReferralSignupEvent) => event instanceof Event,
    /** The service checked the referral code of the share link: `@referral-code`. */
    referralCode: (event: ReferralCodeEvent) => event instanceof Event,
    /** A call failed: `@referral-error`. */
    referralError: (event: ReferralErrorEvent) => event instanceof Event,
  } satisfies VueEmits,
  setup(props, { emit, slots }) {
    // One listener per event of the element (`onReferralSignup` listens to referral-signup), re-emitted as `referralSignup`.
    const send = emit as (name: string, event: Event) => void;
    const listeners = Object.fromEntries(Object.keys(EVENTS).map((handler) => [handler, (event: Event) => send(handler[2]!.toLowerCase() + handler.slice(3), event)]));
    return () => h('referral-widget', { ...splitAttributes({ ...props }).attributes, ...listeners }, slots.default?.());
  },
});
