/**
 * What the visitor sees when a call fails: the widget state, and one sentence for the status line. Setup
 * mistakes (a refused page origin, an unknown campaign id) also tell the developer, in the console,
 * which attribute or setting to fix.
 */
import { msg, str } from '@lit/localize';
import { ApiError } from '../api/client.js';

export type FailureState = 'paused' | 'ended' | 'not-found' | 'not-allowed' | 'error' | 'offline';

export const pausedText = () => msg('This referral program is paused.');
export const endedText = () => msg('This referral program has ended.');

export function describeFailure(err: unknown, online: boolean): { state: FailureState; message: string; error: ApiError } {
  const error = err instanceof ApiError ? err : new ApiError(0, 'network_error', String(err));
  const say = (state: FailureState, message: string) => ({ state, message, error });
  switch (error.code) {
    case 'campaign_not_found':
      return say('not-found', msg('This referral program could not be found.'));
    case 'campaign_paused':
      return say('paused', pausedText());
    case 'campaign_ended':
      return say('ended', endedText());
    case 'rate_limited':
      return say(
        'error',
        error.retryAfter ? msg(str`Too many attempts. Please wait ${error.retryAfter} s and try again.`) : msg('Too many attempts. Please try again.'),
      );
    case 'forbidden_origin':
      return say('not-allowed', msg('This site is not allowed to use this referral program.'));
  }
  if (error.isNetworkError) {
    // No answer, and the browser knows it has no connection: wait for it instead of blaming the service.
    if (!online) return say('offline', msg('You seem to be offline. We will try again when you are back online.'));
    // Online but no readable answer: the service is down or unreachable.
    return say('error', msg('The referral service could not be reached. Please try again.'));
  }
  return say('error', msg('Something went wrong. Please try again.'));
}

const TAG = '<referral-widget>';

/** The console line that tells a developer how to fix a setup mistake; undefined for other failures. */
export function setupAdvice(code: string, campaignId: string, origin: string): string | undefined {
  switch (code) {
    case 'missing_campaign_id':
      return `${TAG}: the campaign-id attribute is missing. Set it to your campaign's id: <referral-widget campaign-id="...">.`;
    case 'campaign_not_found':
      return `${TAG}: no campaign has the id "${campaignId}" (the campaign-id attribute). Check it, e.g. with the id printed by "npx refkit campaign create".`;
    case 'forbidden_origin':
      return (
        `${TAG}: this page's origin ${origin} is not in the allowedOrigins of campaign "${campaignId}". ` +
        `Add it: npx refkit campaign update --id ${campaignId} --allowed-origin ${origin} (repeat --allowed-origin for each origin).`
      );
  }
  return undefined;
}
