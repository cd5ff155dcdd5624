/**
 * The page's one client: the portal's routes on this origin (src/server/portal/routes/portal-api.ts). The
 * session is the httpOnly cookie the browser sends by itself to /api/v1/portal; its CSRF token is kept in
 * memory only, and sent with every POST.
 */
import { ApiError, type Participant } from '../api/client.js';
import type { PayoutMethodView, TaxDetailsView } from '../api/payout-schemas.js';
import type { PortalCsrf, PortalMe, PortalSetTaxDetailsBody } from '../api/portal-schemas.js';

export { ApiError };

export type TaxDetailsInput = Omit<PortalSetTaxDetailsBody, 'id'>;

export class PortalClient {
  #csrf = '';
  constructor(readonly campaignId: string) {}

  async #send<T>(method: 'GET' | 'POST', path: string, body?: object): Promise<T> {
    const headers: Record<string, string> = {};
    if (body) headers['content-type'] = 'application/json';
    if (method === 'POST' && this.#csrf) headers['x-csrf-token'] = this.#csrf;
    let res: Response;
    try {
      res = await fetch(`/api/v1/portal/${path}`, { method, headers, credentials: 'same-origin', ...(body && { body: JSON.stringify(body) }) });
    } catch (err) {
      throw new ApiError(0, 'network_error', String(err));
    }
    const answer = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string; field?: string } };
    if (!res.ok) {
      const e = answer.error ?? { code: 'internal', message: res.statusText };
      throw new ApiError(res.status, e.code, e.message, e.field, Number(res.headers.get('retry-after')) || undefined);
    }
    return answer as T;
  }

  signIn(email: string): Promise<{ sent: true }> {
    return this.#send('POST', 'signIn', { id: this.campaignId, email });
  }

  async verify(token: string): Promise<void> {
    this.#csrf = (await this.#send<PortalCsrf>('POST', 'verify', { id: this.campaignId, token })).csrfToken;
  }

  async me(): Promise<PortalMe> {
    const me = await this.#send<PortalMe>('GET', `me?id=${encodeURIComponent(this.campaignId)}`);
    this.#csrf = me.csrfToken;
    return me;
  }

  async signOut(): Promise<void> {
    await this.#send('POST', 'signOut', { id: this.campaignId });
    this.#csrf = '';
  }

  /** Gives the signed-in participant the referral code they chose (the old one keeps working). */
  setReferralCode(code: string): Promise<Participant> {
    return this.#send('POST', 'setReferralCode', { id: this.campaignId, code });
  }

  setPayoutMethod(method: PayoutMethodView['method'] & string, paypalEmail?: string): Promise<PayoutMethodView> {
    return this.#send('POST', 'setPayoutMethod', { id: this.campaignId, method, ...(paypalEmail && { paypalEmail }) });
  }

  connectStripe(): Promise<{ url: string }> {
    return this.#send('POST', 'connectStripe', { id: this.campaignId });
  }

  setTaxDetails(input: TaxDetailsInput): Promise<TaxDetailsView> {
    return this.#send('POST', 'setTaxDetails', { id: this.campaignId, ...input });
  }
}
