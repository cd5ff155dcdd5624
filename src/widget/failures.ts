/**
 * What the visitor sees when a call fails: the widget state, and one sentence for the status line. Setup
 * mistakes (a refused page origin, an unknown campaign id) also tell the developer, in the console,
 * which attribute or setting to fix (./setup-advice.ts, loaded only then).
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

/** Failures a developer fixes in the page or the campaign: the console says how (./setup-advice.ts). */
export const SETUP_CODES = new Set(['missing_campaign_id', 'campaign_not_found', 'forbidden_origin']);
