/**
 * What the widget reads beyond the interface: getWidgetSettings (currency, per-channel share messages,
 * the look, set through createCampaign/updateCampaign), getMyReferrals (proof required, any campaign state,
 * masked referees), CORS on error answers, the demo page's Open Graph preview, compressed bundles.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { it } from 'node:test';
import { WIDGET_FONTS } from '../../src/api/widget-style.js';
import { rejects } from './helpers/assert.js';
import { eachDatabase } from './helpers/suite.js';

const sign = (secret: string, email: string) => createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('hex');

eachDatabase('widget settings', (service) => {
  it('money rewards come with the campaign currency, others with their unit; messages are set, merged and cleared', async () => {
    const s = service();
    const id = await s.campaign({ rewardType: 'credit', rewardCurrency: 'EUR', shareMessages: { x: 'Try it {link}', email: 'Hi! {link}' } });
    assert.deepEqual(await s.browser.getWidgetSettings(id), {
      campaignId: id,
      rewardCurrency: 'EUR',
      shareMessages: { x: 'Try it {link}', email: 'Hi! {link}' },
      look: { accent: '#4f46e5', radius: '12px', font: WIDGET_FONTS.system },
      rules: { referrerRewardPercent: 0, commissionPayments: 0, milestones: [], maxReferralReward: null, holdDays: 0 },
    });
    // Channels given replace theirs, '' clears one, the rest stay.
    await s.admin.updateCampaign({ id, shareMessages: { x: '', whatsapp: 'Psst {link}', emailSubject: 'A gift' } });
    assert.deepEqual((await s.browser.getWidgetSettings(id)).shareMessages, { email: 'Hi! {link}', whatsapp: 'Psst {link}', emailSubject: 'A gift' });
    await s.admin.updateCampaign({ id, shareMessages: { email: ' ', whatsapp: '', emailSubject: '' } });
    assert.deepEqual((await s.browser.getWidgetSettings(id)).shareMessages, {});

    await s.admin.updateCampaign({ id, rewardType: 'points' });
    const points = await s.browser.getWidgetSettings(id);
    assert.equal(points.rewardUnit, 'points');
    assert.equal(points.rewardCurrency, undefined);
  });

  it('refuses unknown channels, overlong messages and unknown campaigns, changing nothing', async () => {
    const s = service();
    const id = await s.campaign({ shareMessages: { native: 'Join {link}' } });
    const bad = { id, shareMessages: { sms: 'x' } } as unknown as Parameters<typeof s.admin.updateCampaign>[0];
    await rejects(() => s.admin.updateCampaign(bad), 400, 'invalid_request', 'shareMessages.sms');
    await rejects(() => s.admin.updateCampaign({ id, shareMessages: { x: 'x'.repeat(281) } }), 400, 'invalid_request', 'shareMessages.x');
    assert.deepEqual((await s.browser.getWidgetSettings(id)).shareMessages, { native: 'Join {link}' });
    await rejects(() => s.browser.getWidgetSettings('cmp_nope'), 404, 'campaign_not_found');
  });
});

eachDatabase('widget style', (service) => {
  it('the look is kept on the campaign: set, read by the owner and the widget, replaced, cleared; getCampaign keeps its shape', async () => {
    const s = service();
    const id = await s.campaign({ widgetStyle: { accent: '#0E9384', radius: 20, font: 'serif' } });
    // The widget gets it as CSS values; the owner as set.
    assert.deepEqual((await s.browser.getWidgetSettings(id)).look, { accent: '#0E9384', radius: '20px', font: WIDGET_FONTS.serif });
    assert.deepEqual((await s.admin.listCampaigns()).find((c) => c.campaignId === id)!.widgetStyle, { accent: '#0E9384', radius: 20, font: 'serif' });
    assert.equal('widgetStyle' in (await s.browser.getCampaign(id)), false, "the interface's Campaign is unchanged");
    // Other changes leave it alone; a style given replaces the stored one whole; {} clears it.
    await s.admin.updateCampaign({ id, shareHeader: 'Pass it on' });
    assert.deepEqual((await s.browser.getWidgetSettings(id)).look, { accent: '#0E9384', radius: '20px', font: WIDGET_FONTS.serif });
    await s.admin.updateCampaign({ id, widgetStyle: { radius: 0 } });
    // The widget gets every value, the defaults where the campaign sets none.
    assert.deepEqual((await s.browser.getWidgetSettings(id)).look, { accent: '#4f46e5', radius: '0px', font: WIDGET_FONTS.system });
    assert.deepEqual((await s.admin.listCampaigns())[0]!.widgetStyle, { radius: 0 });
    await s.admin.updateCampaign({ id, widgetStyle: {} });
    assert.deepEqual((await s.admin.listCampaigns())[0]!.widgetStyle, {});
    assert.deepEqual((await s.browser.getWidgetSettings(id)).look, { accent: '#4f46e5', radius: '12px', font: WIDGET_FONTS.system });
  });

  it('refuses anything but a #rrggbb colour, a radius of 0 to 24 and a font of the set, changing nothing', async () => {
    const s = service();
    const id = await s.campaign({ widgetStyle: { accent: '#4f46e5' } });
    const bad: [unknown, string][] = [
      [{ accent: 'red' }, 'widgetStyle.accent'],
      [{ accent: '#fff; background: url(https://evil.example)' }, 'widgetStyle.accent'],
      [{ radius: 25 }, 'widgetStyle.radius'],
      [{ radius: -1 }, 'widgetStyle.radius'],
      [{ radius: 2.5 }, 'widgetStyle.radius'],
      [{ font: 'Comic Sans MS' }, 'widgetStyle.font'],
      [{ font: 'serif', background: '#000' }, 'widgetStyle.background'],
      ['#0e9384', 'widgetStyle'],
    ];
    for (const [widgetStyle, field] of bad) {
      await rejects(() => s.admin.updateCampaign({ id, widgetStyle } as never), 400, 'invalid_request', field);
      await rejects(() => s.admin.createCampaign({ campaignName: 'X', hostURL: 'https://x.example', widgetStyle } as never), 400, 'invalid_request', field);
    }
    assert.deepEqual((await s.admin.listCampaigns())[0]!.widgetStyle, { accent: '#4f46e5' });
    assert.equal((await s.admin.listCampaigns()).length, 1);
  });
});

eachDatabase('getMyReferrals', (service) => {
  it('needs proof; a token shows the own record (no fraudScore) and referees by first name or masked email', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.browser.signUp({ id, email: 'ann@example.com', firstName: 'Ann' });
    const code = ann.participant.referralCode!;
    await s.admin.addParticipant({ id, email: 'ben.smith@example.com', firstName: 'Ben Smith', referredByCode: code });
    await s.admin.addParticipant({ id, email: 'carla@example.org', referredByCode: code });
    await s.admin.qualifyParticipant({ id, email: 'carla@example.org' });

    await rejects(() => s.browser.getMyReferrals(id, {}), 401, 'unauthorized');
    await rejects(() => s.browser.getMyReferrals(id, { token: 'pt_' + 'A'.repeat(32) }), 401, 'unauthorized');

    const mine = await s.browser.getMyReferrals(id, { token: ann.token! });
    assert.equal(mine.participant.email, 'ann@example.com');
    assert.equal(mine.participant.firstName, 'Ann');
    assert.equal(mine.participant.totalReferrals, 2);
    assert.equal(mine.participant.referralRewardBalance, 10);
    assert.equal(mine.participant.fraudScore, undefined);
    assert.equal(mine.more, false);
    assert.deepEqual(
      mine.referrals.map(({ name, status }) => ({ name, status })),
      [
        { name: 'Ben', status: 'joined' },
        { name: 'c***@example.org', status: 'qualified' },
      ],
    );
    assert.match(mine.referrals[0]!.joinedOn, /^\d{4}-\d\d-\d\dT/);
    assert.doesNotMatch(JSON.stringify(mine.referrals), /ben\.smith|carla@|Smith/);
  });

  it('works while the campaign is paused and after it ended; a revoked token or another campaign proves nothing', async () => {
    const s = service();
    const id = await s.campaign();
    const other = await s.campaign();
    const ann = await s.browser.signUp({ id, email: 'ann@example.com' });
    await s.admin.setCampaignStatus(id, 'Pause');
    assert.equal((await s.browser.getMyReferrals(id, { token: ann.token! })).participant.shareLink, ann.participant.shareLink);
    await s.admin.setCampaignStatus(id, 'End');
    assert.equal((await s.browser.getMyReferrals(id, { token: ann.token! })).participant.referralCode, ann.participant.referralCode);
    await rejects(() => s.browser.getMyReferrals(other, { token: ann.token! }), 401, 'unauthorized');
    await s.admin.revokeParticipantTokens(id, 'ann@example.com');
    await rejects(() => s.browser.getMyReferrals(id, { token: ann.token! }), 401, 'unauthorized');
  });

  it("the host's email signature proves the email it signs; a wrong one is 401 invalid_signature", async () => {
    const s = service();
    const id = await s.campaign();
    await s.admin.addParticipant({ id, email: 'dan@example.com' });
    const { secret } = await s.admin.getSigningSecret(id);
    const mine = await s.browser.getMyReferrals(id, { emailSignature: sign(secret, 'dan@example.com') }, ' DAN@example.com');
    assert.equal(mine.participant.email, 'dan@example.com');
    await rejects(() => s.browser.getMyReferrals(id, { emailSignature: sign(secret, 'eve@example.com') }, 'dan@example.com'), 401, 'invalid_signature');
    await rejects(() => s.browser.getMyReferrals(id, { emailSignature: sign(secret, 'dan@example.com') }), 400, 'invalid_request', 'email');
    await rejects(() => s.browser.getMyReferrals(id, { emailSignature: sign(secret, 'nobody@example.com') }, 'nobody@example.com'), 404, 'participant_not_found');
  });

  it('a held referee shows as in review', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.browser.signUp({ id, email: 'ann@example.com' });
    // A browser sign-up with an alias of the referrer's address scores high and is held.
    await s.browser.signUp({ id, email: 'ann+2@example.com', referredByCode: ann.participant.referralCode! });
    const mine = await s.browser.getMyReferrals(id, { token: ann.token! });
    assert.deepEqual(mine.referrals.map((r) => r.status), ['in_review']);
  });
});

eachDatabase('setup errors a page can read', (service) => {
  const get = (url: string, origin: string) => fetch(url, { headers: { origin } });
  const code = async (res: Response) => ((await res.json()) as { error: { code: string } }).error.code;

  it('a refused origin and a mistyped campaign id get their error with CORS headers', async () => {
    const s = service();
    const id = await s.campaign({ hostURL: 'https://shop.example/join' });
    const refused = await get(`${s.url}/api/v1/getCampaign?id=${id}`, 'https://elsewhere.example');
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get('access-control-allow-origin'), 'https://elsewhere.example');
    assert.equal(await code(refused), 'forbidden_origin');
    const missing = await get(`${s.url}/api/v1/getCampaign?id=cmp_typo`, 'https://shop.example');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('access-control-allow-origin'), 'https://shop.example');
    assert.equal(await code(missing), 'campaign_not_found');
    const settings = await get(`${s.url}/api/v1/getWidgetSettings?id=${id}`, 'https://elsewhere.example');
    assert.equal(settings.status, 403);
    assert.equal(settings.headers.get('access-control-allow-origin'), 'https://elsewhere.example');
    // Secret routes give a page nothing to read.
    const secret = await get(`${s.url}/api/v1/getParticipant?id=${id}&email=a@example.com`, 'https://elsewhere.example');
    assert.equal(secret.status, 401);
    assert.equal(secret.headers.get('access-control-allow-origin'), null);
  });
});

eachDatabase('the demo landing page', (service) => {
  it('carries an Open Graph preview of the campaign the share link names, escaped', async () => {
    const s = service();
    const id = await s.campaign({ rewardHeader: 'Give $5, get "$10" <now>', rewardDescription: 'Friends & you' });
    const res = await fetch(`${s.url}/demo/?id=${id}&referralCode=ABCD2345`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /text\/html/);
    const html = await res.text();
    assert.match(html, /<meta property="og:title" content="Give \$5, get &quot;\$10&quot; &lt;now&gt;" \/>/);
    assert.match(html, /<meta property="og:description" content="Friends &amp; you" \/>/);
    assert.ok(html.includes(`<meta property="og:url" content="${s.url}/demo/?id=${id}&amp;referralCode=ABCD2345" />`));
    assert.match(html, /<referral-widget/);
    // Without a known campaign, the page is served as it is.
    assert.doesNotMatch(await (await fetch(`${s.url}/demo/?id=cmp_nope`)).text(), /og:title/);
    assert.equal((await fetch(`${s.url}/demo/demo.css`)).status, 200);
  });
}, { demo: true });
