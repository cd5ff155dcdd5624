/**
 * The dashboard's one client: the typed client of the API, on this origin. The session is the httpOnly
 * cookie the browser sends by itself; the CSRF token of the session is kept in memory only.
 */
import { ApiError, RefkitClient } from '../api/client.js';

let client = new RefkitClient({ baseUrl: location.origin });

export const api = () => client;

export function useSession(csrfToken: string | undefined): void {
  client = new RefkitClient({ baseUrl: location.origin, ...(csrfToken && { csrfToken }) });
}

/** A sentence for a failed call, for the page's alert line. */
export function describe(err: unknown): string {
  if (err instanceof ApiError) return err.isNetworkError ? 'The service could not be reached. Check your connection and try again.' : err.message;
  return err instanceof Error ? err.message : String(err);
}

export const isUnauthorized = (err: unknown) => err instanceof ApiError && err.status === 401;

export { ApiError };
