/** What the visitor sees when a call fails: the widget state, and one sentence for the status line. */
import { ApiError } from '../api/client.js';

export type FailureState = 'paused' | 'ended' | 'not-found' | 'error' | 'offline';

export const PAUSED_TEXT = 'This referral program is paused.';
export const ENDED_TEXT = 'This referral program has ended.';

export function describeFailure(err: unknown, online: boolean): { state: FailureState; message: string; error: ApiError } {
  const error = err instanceof ApiError ? err : new ApiError(0, 'network_error', String(err));
  const say = (state: FailureState, message: string) => ({ state, message, error });
  switch (error.code) {
    case 'campaign_not_found':
      return say('not-found', 'This referral program could not be found.');
    case 'campaign_paused':
      return say('paused', PAUSED_TEXT);
    case 'campaign_ended':
      return say('ended', ENDED_TEXT);
    case 'rate_limited':
      return say('error', `Too many attempts.${error.retryAfter ? ` Please wait ${error.retryAfter} s and` : ' Please'} try again.`);
    case 'forbidden_origin':
      return say('error', 'This page is not allowed to use this referral program.');
  }
  if (error.isNetworkError) {
    // No answer, and the browser knows it has no connection: wait for it instead of blaming the service.
    if (!online) return say('offline', 'You seem to be offline. We will try again when you are back online.');
    // Online but no readable answer: the service is down, or refused this page's origin (no CORS headers).
    return say('error', 'The referral service could not be reached. Please try again.');
  }
  return say('error', 'Something went wrong. Please try again.');
}
