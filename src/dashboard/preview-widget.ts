/**
 * The widget itself, for the campaign editor's live preview: the real <referral-widget> code, whose client
 * answers from the draft being edited instead of the service, so every keystroke shows at once and the
 * preview never signs anybody up.
 */
import type { PropertyValues } from 'lit';
import { property } from 'lit/decorators.js';
import { RefkitClient, type Campaign, type WidgetSettings } from '../api/client.js';
import { ReferralWidget } from '../widget/referral-widget.js';

const json = (body: unknown) => Promise.resolve(new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } }));

export class PreviewWidget extends ReferralWidget {
  @property({ attribute: false }) draft: Campaign = {};
  /** The draft's currency or unit, share messages and look, as getWidgetSettings would answer once saved. */
  @property({ attribute: false }) draftSettings: WidgetSettings = { campaignId: 'preview', shareMessages: {} };
  #client: RefkitClient | undefined;

  override get client(): RefkitClient {
    this.#client ??= new RefkitClient({
      baseUrl: location.origin,
      fetch: (input, init) => {
        const url = new URL(String(input));
        if (url.pathname.endsWith('/getCampaign')) return json({ ...this.draft, status: 'Active', paused: false, ended: false });
        if (url.pathname.endsWith('/getWidgetSettings')) return json(this.draftSettings);
        if (url.pathname.endsWith('/validateCode')) return json(false);
        const body = JSON.parse(String(init?.body ?? '{}')) as { email?: string };
        const link = new URL(this.draft.hostURL || 'https://example.com/');
        link.searchParams.set('referralCode', 'PREVIEW2');
        return json({ email: body.email, referralCode: 'PREVIEW2', shareLink: link.href, referralRewardBalance: 0, refereeRewardBalance: 0, totalReferrals: 0 });
      },
    });
    return this.#client;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('draftSettings')) {
      if (this.campaign) this.settings = this.draftSettings;
      // The look being edited, through the element's public custom properties (the widget wears a saved
      // campaign's look when it loads).
      const look = this.draftSettings.look;
      for (const key of ['accent', 'radius', 'font'] as const) this.style.setProperty(`--referral-widget-${key}`, look?.[key] ?? '');
    }
    super.willUpdate(changed);
    // New texts show in whatever view the preview is in, without starting over.
    if (changed.has('draft') && this.campaign) this.campaign = { ...this.campaign, ...this.draft, status: 'Active', paused: false, ended: false };
  }
}

if (!customElements.get('rk-widget-preview')) customElements.define('rk-widget-preview', PreviewWidget);
