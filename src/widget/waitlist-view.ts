/**
 * The participant's place on the campaign's waitlist in the share view (getMyReferrals `waitlist`):
 * "You are #120 of 4,503", how far each friend moves them, or "You're in" once let in. Shown only to a
 * browser that proved it is the participant, like their balances. A polite live region, so that a
 * screen reader hears the position when the share view appears.
 */
import { html } from 'lit';
import { msg, str } from '@lit/localize';
import type { MyWaitlist } from '../api/widget-schemas.js';

export function waitlistView(w: MyWaitlist, counts: 'signups' | 'qualified', count: (n: number) => string) {
  if (w.granted) {
    return html`<section part="waitlist" data-granted="true" role="status">
      <p part="waitlist-granted"><strong>${msg("You're in!")}</strong> ${msg('You have access now. Keep sharing your link: your friends count.')}</p>
    </section>`;
  }
  const spots = count(w.spotsPerReferral);
  return html`<section part="waitlist" data-granted="false" role="status">
    <p part="waitlist-position">${msg(str`You are #${count(w.position ?? 0)} of ${count(w.of)} on the waitlist.`)}</p>
    <p part="waitlist-hint">
      ${counts === 'qualified'
        ? w.spotsPerReferral === 1
          ? msg('Each friend who qualifies moves you up 1 place.')
          : msg(str`Each friend who qualifies moves you up ${spots} places.`)
        : w.spotsPerReferral === 1
          ? msg('Each friend who signs up with your link moves you up 1 place.')
          : msg(str`Each friend who signs up with your link moves you up ${spots} places.`)}
    </p>
  </section>`;
}
