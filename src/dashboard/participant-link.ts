/** A participant named in a list: a link to their page, or, once erased, "Deleted participant" (no page to open). */
import { html } from 'lit';
import { ERASED_NAME, isErasedEmail } from '../api/erased.js';
import { href } from './router.js';

export const participantLink = (campaignId: string, email: string) =>
  isErasedEmail(email) ? html`<span class="muted deleted">${ERASED_NAME}</span>` : html`<a href=${href.participant(campaignId, email)}>${email}</a>`;
