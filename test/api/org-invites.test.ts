import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, port } from '../helpers/client.js';
import { closeTestDb, realmRow, testDb } from '../helpers/db.js';
import { drain, expectError, expectSuccess, knownUser, openQueue, systemGroupIds } from './org-helpers.js';

let owner: Client;
let subdomain: string;
let admin: Client;
let member: Client;
let sys: Record<string, number>;
let channelId: number;
let privateId: number;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('orginv'));
  admin = await knownUser(subdomain, 'Ada Admin', 200);
  member = await knownUser(subdomain, 'Mia Member');
  sys = await systemGroupIds(owner);
  expectSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'welcome' }] }));
  expectSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret' }], invite_only: true }));
  const streams = expectSuccess(await owner.get('/streams')).streams as { name: string; stream_id: number }[];
  channelId = streams.find((s) => s.name === 'welcome')!.stream_id;
  privateId = streams.find((s) => s.name === 'secret')!.stream_id;
});

afterAll(closeTestDb);

const keyOf = (link: string) => /\/join\/([a-z0-9]+)\/$/.exec(link)![1]!;

async function signUp(sub: string, key: string, email: string) {
  return new Client(sub).post('/register_with_invite', { key, email, password: 'new-password-1', full_name: 'New Person' });
}

describe('creating invitation links', () => {
  it('gives administrators a link into this realm, listed by GET /invites', async () => {
    const q = await openQueue(admin, { event_types: ['invites_changed'] });
    const r = expectSuccess(await admin.post('/invites/multiuse', { invite_as: 400 }));
    expect(r.invite_link).toMatch(new RegExp(`^http://${subdomain}\\.localhost:${port()}/join/[a-z0-9]{24}/$`));
    expect(await drain(q)).toEqual([expect.objectContaining({ type: 'invites_changed' })]);
    const list = expectSuccess(await admin.get('/invites')).invites as Record<string, unknown>[];
    const mine = list.find((i) => i.link_url === r.invite_link)!;
    expect(mine).toMatchObject({ invited_by_user_id: admin.userId, invited_as: 400, is_multiuse: true });
    const expiry = mine.expiry_date as number;
    expect(Math.abs(expiry - (Date.now() / 1000 + 14400 * 60))).toBeLessThan(120);
    expect(expectSuccess(await member.get('/invites')).invites).toEqual([]);
  });

  it('honours create_multiuse_invite_group and can_invite_users_group', async () => {
    expectError(await member.post('/invites/multiuse', {}), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectSuccess(await owner.patch('/realm', { create_multiuse_invite_group: { new: sys['role:members'] } }));
    expectSuccess(await member.post('/invites/multiuse', {}));
    expectSuccess(await owner.patch('/realm', { can_invite_users_group: { new: sys['role:administrators'] } }));
    expectError(await member.post('/invites/multiuse', {}), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectSuccess(await owner.patch('/realm', { can_invite_users_group: { new: sys['role:members'] } }));
    const guest = await knownUser(subdomain, 'Gwen Guest', 600);
    expectError(await guest.post('/invites/multiuse', {}), 400, 'BAD_REQUEST', 'Not allowed for guest users');
  });

  it('does not take welcome_message_custom_text, which came at feature level 416', async () => {
    const r = expectSuccess(await admin.post('/invites/multiuse', { welcome_message_custom_text: 'Hello there' }));
    expect(r.ignored_parameters_unsupported).toEqual(['welcome_message_custom_text']);
    expect(r.invite_link).toMatch(/\/join\/[a-z0-9]{24}\/$/);
  });

  it('never grants a role above the creator', async () => {
    expectError(await member.post('/invites/multiuse', { invite_as: 200 }), 400, 'BAD_REQUEST', 'Must be an organization administrator');
    expectError(await member.post('/invites/multiuse', { invite_as: 300 }), 400, 'BAD_REQUEST', 'Must be an organization administrator');
    expectError(await admin.post('/invites/multiuse', { invite_as: 100 }), 400, 'BAD_REQUEST', 'Must be an organization owner');
    expectError(await admin.post('/invites/multiuse', { invite_as: 250 }), 400, 'BAD_REQUEST', 'Invalid invite_as');
    expectSuccess(await member.post('/invites/multiuse', { invite_as: 600 }));
    expectSuccess(await owner.post('/invites/multiuse', { invite_as: 100 }));
  });

  it('checks channels and groups against what the creator may do (CVE-2024-21630)', async () => {
    expectError(await admin.post('/invites/multiuse', { stream_ids: [987654] }), 400, 'BAD_REQUEST', 'Invalid channel ID 987654. No invites were sent.');
    // A private channel the member cannot see is as good as missing.
    expectError(await member.post('/invites/multiuse', { stream_ids: [privateId] }), 400, 'BAD_REQUEST', `Invalid channel ID ${privateId}. No invites were sent.`);
    expectSuccess(await owner.patch('/realm', { can_add_subscribers_group: { new: sys['role:administrators'] } }));
    expectError(await member.post('/invites/multiuse', { stream_ids: [channelId] }), 400, 'BAD_REQUEST', 'You do not have permission to subscribe other users to channels.');
    // include_realm_default_subscriptions needs no such right.
    expectSuccess(await member.post('/invites/multiuse', { include_realm_default_subscriptions: true }));
    expectSuccess(await owner.patch('/realm', { can_add_subscribers_group: { new: sys['role:members'] } }));
    expectSuccess(await member.post('/invites/multiuse', { stream_ids: [channelId] }));

    const theirs = expectSuccess(await admin.post('/user_groups/create', { name: 'admins-only', description: '', members: [] })).group_id;
    expectError(await member.post('/invites/multiuse', { group_ids: [theirs] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectError(await member.post('/invites/multiuse', { group_ids: [sys['role:members']] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectError(await admin.post('/invites/multiuse', { invite_expires_in_minutes: 0 }), 400, 'BAD_REQUEST');
  });
});

describe('signing up with a link', () => {
  it('creates the account with the link role, channels and groups', async () => {
    const group = expectSuccess(await admin.post('/user_groups/create', { name: 'newcomers', description: '', members: [] })).group_id;
    const link = expectSuccess(await admin.post('/invites/multiuse', { invite_as: 300, stream_ids: [channelId], group_ids: [group], invite_expires_in_minutes: null })).invite_link;
    const watcher = await openQueue(owner, { event_types: ['realm_user', 'user_group', 'subscription'] });
    const r = await signUp(subdomain, keyOf(link), `newbie@${subdomain}.test`);
    const body = expectSuccess(r);
    expect(body).toMatchObject({ email: `newbie@${subdomain}.test` });
    const newbie = new Client(subdomain, body.email, body.api_key, body.user_id);
    expect(expectSuccess(await newbie.get('/users/me'))).toMatchObject({ role: 300, full_name: 'New Person' });
    const subs = expectSuccess(await newbie.get('/users/me/subscriptions')).subscriptions as { stream_id: number }[];
    expect(subs.map((s) => s.stream_id)).toEqual([channelId]);
    expect(expectSuccess(await newbie.get(`/user_groups/${group}/members`)).members).toEqual([body.user_id]);
    const events = await drain(watcher);
    expect(events).toContainEqual(expect.objectContaining({ type: 'realm_user', op: 'add', person: expect.objectContaining({ user_id: body.user_id }) }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'user_group', op: 'add_members', group_id: group, user_ids: [body.user_id] }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'subscription', op: 'peer_add', stream_ids: [channelId], user_ids: [body.user_id] }));
    // A reusable link works again; the same address does not.
    expectSuccess(await signUp(subdomain, keyOf(link), `second@${subdomain}.test`));
    expectError(await signUp(subdomain, keyOf(link), `newbie@${subdomain}.test`), 400, 'BAD_REQUEST');
  });

  it('works only in the realm of the link (CVE-2022-21706, CVE-2017-0910)', async () => {
    const link = expectSuccess(await admin.post('/invites/multiuse', { invite_as: 200 })).invite_link;
    const other = await newRealm('orginvx');
    expectError(await signUp(other.subdomain, keyOf(link), `hop@${other.subdomain}.test`), 400, 'BAD_REQUEST', 'Invalid invitation link.');
    const users = expectSuccess(await other.owner.get('/users')).members as { email: string }[];
    expect(users.map((u) => u.email)).not.toContain(`hop@${other.subdomain}.test`);
    expectError(await signUp(subdomain, 'notarealkey000000000000', `nobody@${subdomain}.test`), 400, 'BAD_REQUEST', 'Invalid invitation link.');
  });

  it('refuses revoked links, and links of deactivated creators', async () => {
    const link = expectSuccess(await member.post('/invites/multiuse', {})).invite_link;
    const id = (expectSuccess(await member.get('/invites')).invites as { id: number; link_url: string }[]).find((i) => i.link_url === link)!.id;
    const otherMember = await knownUser(subdomain, 'Ona Other');
    expectError(await otherMember.delete(`/invites/multiuse/${id}`), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectSuccess(await member.delete(`/invites/multiuse/${id}`));
    expectError(await member.delete(`/invites/multiuse/${id}`), 400, 'BAD_REQUEST');
    expectError(await signUp(subdomain, keyOf(link), `late@${subdomain}.test`), 400, 'BAD_REQUEST', 'Invalid invitation link.');

    const leaver = await knownUser(subdomain, 'Les Leaver');
    const link2 = expectSuccess(await leaver.post('/invites/multiuse', {})).invite_link;
    expectSuccess(await admin.delete(`/users/${leaver.userId}`));
    expectError(await signUp(subdomain, keyOf(link2), `ghost@${subdomain}.test`), 400, 'BAD_REQUEST');

    const ownerLink = expectSuccess(await owner.post('/invites/multiuse', { invite_as: 100 })).invite_link;
    const ownerLinkId = (expectSuccess(await owner.get('/invites')).invites as { id: number; link_url: string }[]).find((i) => i.link_url === ownerLink)!.id;
    expectError(await admin.delete(`/invites/multiuse/${ownerLinkId}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
    const foreign = await newRealm('orginvy');
    expectError(await foreign.owner.delete(`/invites/multiuse/${ownerLinkId}`), 400, 'BAD_REQUEST', 'No such invitation');
  });

  it('refuses expired links (CVE-2021-43791)', async () => {
    // Written before the realm's first request, so the realm loads it as it is.
    const fresh = await newRealm('orginvexp');
    const realm = await realmRow(fresh.subdomain);
    await testDb()`
      INSERT INTO multiuse_invites (realm_id, invite_key, referred_by, invited_as, expires_at)
      VALUES (${realm!.id as number}, 'expiredkey00000000000000', ${fresh.ownerInfo.user_id}, 400, now() - interval '1 minute')`;
    const r = await signUp(fresh.subdomain, 'expiredkey00000000000000', `late@${fresh.subdomain}.test`);
    expectError(r, 400, 'BAD_REQUEST', 'The confirmation link has expired or been deactivated.');
    expect(expectSuccess(await fresh.owner.get('/invites')).invites).toEqual([]);
  });
});
