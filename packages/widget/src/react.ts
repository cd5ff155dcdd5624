/**
 * @refkit/widget/react: <ReferralWidget campaignId="..." onReferralSignup={...}>, the element for React 18
 * and 19 (@lit/react's createComponent). Its props are the element's attributes, named like its
 * properties (./attributes.ts), and a typed handler for each event (`onReferralSignup`, `onReferralCode`,
 * `onReferralError`); everything else (className, style, id, children for the element's slots, a ref to
 * the element) goes to the element as it would to any. The attributes are rendered as attributes, so that
 * a server render (Next.js, renderToString) writes `<referral-widget campaign-id="...">`, which the
 * browser upgrades once this module has loaded there.
 */
import * as React from 'react';
import { createComponent, type EventName } from '@lit/react';
import { ReferralWidget as ReferralWidgetElement } from '../../../src/widget/referral-widget.js';
import { EVENTS, splitAttributes, type ReferralWidgetAttributes, type ReferralWidgetEventHandlers } from './attributes.js';
import type { ReferralCodeEvent, ReferralErrorEvent, ReferralSignupEvent } from './attributes.js';
import { defineReferralWidget } from './define.js';

export type { ReferralWidgetElement };
export type { ReferralCodeEvent, ReferralErrorEvent, ReferralSignupEvent, ReferralWidgetAttributes, ReferralWidgetEventHandlers };
export type { WidgetEvents, WidgetState } from '../../../src/widget/referral-widget.js';

defineReferralWidget();

const Element = createComponent({
  react: React,
  tagName: 'referral-widget',
  elementClass: ReferralWidgetElement,
  events: {
    onReferralSignup: EVENTS.onReferralSignup as EventName<ReferralSignupEvent>,
    onReferralCode: EVENTS.onReferralCode as EventName<ReferralCodeEvent>,
    onReferralError: EVENTS.onReferralError as EventName<ReferralErrorEvent>,
  },
  displayName: 'referral-widget',
});

/** The props of <ReferralWidget>: the element's attributes, its events' handlers, and any element's props. */
export interface ReferralWidgetProps
  extends ReferralWidgetAttributes,
    ReferralWidgetEventHandlers,
    Omit<React.HTMLAttributes<ReferralWidgetElement>, keyof ReferralWidgetAttributes | keyof ReferralWidgetEventHandlers> {}

/** <referral-widget> for React. */
export const ReferralWidget: React.ForwardRefExoticComponent<ReferralWidgetProps & React.RefAttributes<ReferralWidgetElement>> = React.forwardRef<
  ReferralWidgetElement,
  ReferralWidgetProps
>(function ReferralWidget(props, ref) {
  const { attributes, rest } = splitAttributes(props);
  return React.createElement(Element, { ...rest, ...attributes, ref } as React.ComponentProps<typeof Element>);
});
