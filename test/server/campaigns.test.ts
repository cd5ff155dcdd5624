import assert from 'node:assert/strict';
import { it } from 'node:test';
import { rejects } from './helpers/assert.js';
import { eachDatabase } from './helpers/suite.js';

eachDatabase('campaigns', (service) => {
  it('getCampaign answers every field from state, keyless, and counts participants', async () => {
    const s = service();
    const id = await s.campaign({
      campaignName: 'Spring',
      rewardType: 'credit',
      rewardHeader: 'RH',
      rewardDescription: 'RD',
      shareHeader: 'SH',
      shareDescription: 'SD',
    });
    const c = await s.browser.getCampaign(id);
    assert.deepEqual(
      { ...c, createdOn: undefined },
      {
        campaignId: id,
        campaignName: 'Spring',
        status: 'Active',
        createdOn: undefined,
        hostURL: 'https://shop.example/join',
        paused: false,
        ended: false,
        rewardHeader: 'RH',
        rewardDescription: 'RD',
        shareHeader: 'SH',
        shareDescription: 'SD',
        referrerRewardValue: 10,
        refereeRewardValue: 5,
        rewardType: 'credit',
        participants: 0,
      },
    );
    assert.ok(!('end' in c));
    await s.admin.addParticipant({ id, email: 'a@example.com' });
    await s.admin.addParticipant({ id, email: 'b@example.com' });
    assert.equal((await s.browser.getCampaign(id)).participants, 2);
    await rejects(() => s.browser.getCampaign('cmp_nope'), 404, 'campaign_not_found');
  });

  it('updateCampaign changes only the fields given; bad fields are 400 and change nothing', async () => {
    const s = service();
    const id = await s.campaign();
    const end = new Date(Date.now() + 86_400_000).toISOString();
    const c = await s.admin.updateCampaign({ id, shareHeader: 'New', end });
    assert.equal(c.shareHeader, 'New');
    assert.equal(c.end, end);
    assert.equal(c.campaignName, 'Test campaign');
    // The answer is the campaign's settings as listCampaigns shows them, every *Configured flag included.
    const secret = await s.admin.updateCampaign({ id, stripeWebhookSecret: 'whsec_test_settings_0123456789' });
    assert.equal(secret.stripeWebhookConfigured, true);
    assert.equal(secret.stripeRewardKeyConfigured, false);
    assert.deepEqual(secret, (await s.admin.listCampaigns()).find((x) => x.campaignId === id));
    assert.deepEqual(await s.admin.setCampaignStatus(id, 'Active'), secret);
    for (const bad of [{ hostURL: 'not a url' }, { rewardCurrency: 'usd' }, { referrerRewardValue: -1 }, { colour: 'red' }]) {
      await rejects(() => s.admin.updateCampaign({ id, ...bad } as never), 400, 'invalid_request');
    }
    assert.equal((await s.admin.getCampaign(id)).shareHeader, 'New');
    await rejects(() => s.admin.updateCampaign({ id: 'cmp_nope', shareHeader: 'x' }), 404, 'campaign_not_found');
    await rejects(() => s.admin.createCampaign({ campaignName: '', hostURL: 'https://x.example' }), 400, 'invalid_request');
  });

  it('moves Active <-> Pause -> End, and End is final', async () => {
    const s = service();
    const id = await s.campaign();
    let c = await s.admin.setCampaignStatus(id, 'Pause');
    assert.deepEqual([c.status, c.paused, c.ended], ['Pause', true, false]);
    c = await s.admin.setCampaignStatus(id, 'Active');
    assert.deepEqual([c.status, c.paused, c.ended], ['Active', false, false]);
    c = await s.admin.setCampaignStatus(id, 'End');
    assert.deepEqual([c.status, c.paused, c.ended], ['End', false, true]);
    await rejects(() => s.admin.setCampaignStatus(id, 'Active'), 409, 'invalid_transition');
    await rejects(() => s.admin.setCampaignStatus(id, 'Pause'), 409, 'invalid_transition');
    await rejects(() => s.admin.setCampaignStatus(id, 'Closed' as never), 400, 'invalid_request');
  });

  it('a paused campaign refuses sign-ups and qualification; reads keep working', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    await s.admin.addParticipant({ id, email: 'ben@example.com', referredByCode: ann.referralCode! });
    await s.admin.setCampaignStatus(id, 'Pause');
    await rejects(() => s.browser.addParticipant({ id, email: 'c@example.com' }), 409, 'campaign_paused');
    await rejects(() => s.admin.qualifyParticipant({ id, email: 'ben@example.com' }), 409, 'campaign_paused');
    assert.equal((await s.browser.getCampaign(id)).participants, 2);
    assert.equal((await s.admin.getParticipant(id, 'ann@example.com')).totalReferrals, 1);
    assert.equal((await s.admin.getAllParticipants(id)).length, 2);
    assert.equal(await s.browser.validateCode(id, ann.referralCode!), true);
    await s.admin.setCampaignStatus(id, 'End');
    await rejects(() => s.browser.addParticipant({ id, email: 'c@example.com' }), 409, 'campaign_ended');
    await rejects(() => s.admin.qualifyParticipant({ id, email: 'ben@example.com' }), 409, 'campaign_ended');
    assert.equal((await s.admin.getReferrals(id, 'ann@example.com')).length, 1);
  });

  it('a campaign whose end date has passed reads as End and refuses sign-ups', async () => {
    const s = service();
    const id = await s.campaign();
    await s.admin.updateCampaign({ id, end: new Date(Date.now() - 1000).toISOString() });
    const c = await s.browser.getCampaign(id);
    assert.deepEqual([c.status, c.ended, c.paused], ['End', true, false]);
    await rejects(() => s.browser.addParticipant({ id, email: 'late@example.com' }), 409, 'campaign_ended');
    await rejects(() => s.admin.setCampaignStatus(id, 'Active'), 409, 'invalid_transition');
    // Moving the end date out again reopens it: the stored status was never End.
    await s.admin.updateCampaign({ id, end: null });
    assert.equal((await s.browser.getCampaign(id)).status, 'Active');
  });
});

eachDatabase('validateCode', (service) => {
  it('answers a bare boolean, in any case, and counts browser impressions', async () => {
    const s = service();
    const id = await s.campaign();
    const ann = await s.admin.addParticipant({ id, email: 'ann@example.com' });
    const res = await fetch(`${s.url}/api/v1/validateCode?campaignId=${id}&code=${ann.referralCode}`);
    assert.equal(await res.text(), 'true');
    assert.equal(await s.browser.validateCode(id, ann.referralCode!.toLowerCase()), true);
    assert.equal(await s.browser.validateCode(id, 'NOPE2345'), false);
    assert.equal(await s.admin.validateCode(id, ann.referralCode!), true);
    await s.ctx.store.flushImpressions();
    const row = await s.ctx.store.findParticipantByEmail(id, 'ann@example.com');
    assert.equal(row!.impression_count, 1, 'two keyless checks by one visitor on one day: one impression');
    await rejects(() => s.browser.validateCode('cmp_nope', 'X'), 404, 'campaign_not_found');
    await rejects(() => fetch(`${s.url}/api/v1/validateCode?campaignId=${id}`).then(async (r) => {
      const { ApiError } = await import('../../src/api/client.js');
      const body = (await r.json()) as { error: { code: string; message: string } };
      throw new ApiError(r.status, body.error.code, body.error.message);
    }), 400, 'invalid_request');
  });
});
