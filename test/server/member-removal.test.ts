/**
 * Removing or demoting an owner leaves them no way back (docs/team.md): the invitations they sent are
 * revoked, so one sent to another address of theirs no longer makes them a member; the keys they made
 * record them (listApiKeys' createdBy), and removeMember answers those keys, revoking them when asked.
 */
import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { RefkitClient } from '../../src/api/client.js';
import { createOwner } from '../../src/server/accounts/domain/owners.js';
import { DEFAULT_ACCOUNT } from '../../src/server/kernel/context.js';
import { rejects } from './helpers/assert.js';
import { signIn } from './helpers/owner.js';
import type { TestService } from './helpers/service.js';
import { startMailbox } from './helpers/smtp.js';
import { eachDatabase } from './helpers/suite.js';

const PASSWORD = 'correct horse battery';
const mailbox = await startMailbox();
after(() => mailbox.close());

/** The token of the invitation emailed to `address`. */
async function invitationToken(address: string): Promise<string> {
  const [mail] = (await mailbox.to(address)) as ParsedMail[];
  const m = /#\/join\?token=(\S+)/.exec(mail!.text ?? '');
  assert.ok(m, mail!.text);
  return decodeURIComponent(m[1]!);
}

async function owner(s: TestService, email: string) {
  await createOwner(s.ctx, email, PASSWORD, DEFAULT_ACCOUNT, 'owner');
  return (await signIn(s, { email, password: PASSWORD })).client;
}

eachDatabase('removing a member', (service) => {
  it('an owner removed, or demoted, has the invitations they sent revoked: none of them joins anyone', async () => {
    const s = service();
    const boss = await owner(s, 'boss@example.com');
    const leaving = await owner(s, 'leaving@example.com');
    const demoted = await owner(s, 'demoted@example.com');
    await leaving.inviteMember('leaving.other@example.com', 'owner');
    await demoted.inviteMember('demoted.other@example.com', 'owner');
    await boss.inviteMember('kept@example.com', 'viewer');
    const [leavingToken, demotedToken] = [await invitationToken('leaving.other@example.com'), await invitationToken('demoted.other@example.com')];

    const removed = await boss.removeMember('leaving@example.com');
    assert.deepEqual(removed, { email: 'leaving@example.com', keys: [] });
    await boss.changeMemberRole('demoted@example.com', 'admin');
    assert.deepEqual((await boss.listInvitations()).map((i) => i.email), ['kept@example.com'], "the boss's own invitation stands");

    const stranger = new RefkitClient({ baseUrl: s.url });
    for (const token of [leavingToken, demotedToken]) await rejects(() => stranger.acceptInvitation(token, PASSWORD), 404, 'link_not_found', 'token');
    assert.deepEqual((await boss.listMembers()).map((m) => m.email).sort(), ['boss@example.com', 'demoted@example.com']);
  });

  it('keys record who made them; removeMember answers them, and revokes them with revokeKeys', async () => {
    const s = service();
    const boss = await owner(s, 'boss@example.com');
    const dev = await owner(s, 'dev@example.com');
    const ops = await owner(s, 'ops@example.com');
    const devKey = await dev.createApiKey('dev laptop');
    const opsKey = await ops.createApiKey('ops script');
    const listed = await boss.listApiKeys();
    assert.equal(listed.find((k) => k.id === devKey.id)?.createdBy, 'dev@example.com');
    assert.equal(listed.find((k) => k.id === opsKey.id)?.createdBy, 'ops@example.com');
    // A key made by a key names that key's prefix.
    const byKey = await s.admin.createApiKey('made by a key');
    assert.equal(byKey.createdBy, (await s.admin.listApiKeys()).find((k) => k.id === byKey.id)!.createdBy);
    assert.match(byKey.createdBy!, /^sk_live_/);

    const kept = await boss.removeMember('dev@example.com');
    assert.deepEqual(kept.keys.map((k) => [k.id, k.revokedOn]), [[devKey.id, undefined]]);
    assert.equal((await new RefkitClient({ baseUrl: s.url, secretKey: devKey.key }).listCampaigns()).length, 0, "without revokeKeys the dev's key still works");

    const revoked = await boss.removeMember('ops@example.com', true);
    assert.equal(revoked.keys.length, 1);
    assert.equal(revoked.keys[0]!.id, opsKey.id);
    assert.ok(revoked.keys[0]!.revokedOn);
    await rejects(() => new RefkitClient({ baseUrl: s.url, secretKey: opsKey.key }).listCampaigns(), 401, 'unauthorized');
  });
}, { smtpUrl: mailbox.url });
