import { ApiError } from '../api/client.js';

/**
 * Calls `call`, and again after each delay while it gets no answer at all (a network error): a dropped
 * packet or a flaky mobile link should not cost a sign-up. Any HTTP answer, even an error, is final:
 * the service has decided, and sending the same request again would not change its mind.
 */
export async function withNetworkRetries<T>(
  call: () => Promise<T>,
  delaysMs: readonly number[],
  sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      const delay = delaysMs[attempt];
      if (!(err instanceof ApiError && err.isNetworkError) || delay === undefined) throw err;
      await sleep(delay);
    }
  }
}
