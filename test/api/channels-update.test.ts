// PATCH /streams/{id} and DELETE /streams/{id}: who may change what, the rules of each
// property, and the events each change sends to whom.
import { beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, type Client } from '../helpers/client.js';
import { setRealmSettings } from '../helpers/db.js';
import { channel, createChannel, drain, expectError, ok, openQueue, systemGroupIds } from './channels-helpers.js';

let owner: Client;
let alice: Client;
let bob: Client;
let guest: Client;
let sys: Record<string, number>;
let otherOwner: Client;

beforeAll(async () => {
  const realm = await newRealm('chupdate');
  owner = realm.owner;
  alice = await newUser(realm.subdomain, 'Alice Member');
  bob = await newUser(realm.subdomain, 'Bob Member');
  guest = await newUser(realm.subdomain, 'Gina Guest', 600);
  sys = await systemGroupIds(realm.subdomain);
  otherOwner = (await newRealm('chupdatex')).owner;
});

describe('who may edit a channel', () => {
  it('the creator and organization administrators; others are told or see nothing', async () => {
    const pub = await createChannel(alice, 'editable');
    const priv = await createChannel(alice, 'hidden-edit', { invite_only: true });
    ok(await alice.patch(`/streams/${pub}`, { description: 'by the creator' }));
    ok(await owner.patch(`/streams/${pub}`, { description: 'by the owner' }));
    expectError(await bob.patch(`/streams/${pub}`, { description: 'x' }), 400, 'CANNOT_ADMINISTER_CHANNEL', 'You do not have permission to administer this channel.');
    expectError(await bob.patch(`/streams/${priv}`, { description: 'x' }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await guest.patch(`/streams/${pub}`, { description: 'x' }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await bob.delete(`/streams/${pub}`), 400, 'CANNOT_ADMINISTER_CHANNEL');
    expectError(await alice.patch('/streams/99999999', { description: 'x' }), 400, 'BAD_REQUEST', 'Invalid channel ID');
  });

  it('never across organizations', async () => {
    const id = await createChannel(alice, 'mine-only');
    expectError(await otherOwner.patch(`/streams/${id}`, { new_name: 'stolen' }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await otherOwner.delete(`/streams/${id}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await otherOwner.get(`/streams/${id}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expect((await channel(alice, id)).name).toBe('mine-only');
  });

  it('administrators not subscribed to a private channel may rename it but not change its permissions', async () => {
    const id = await createChannel(alice, 'private-admin', { invite_only: true });
    ok(await owner.patch(`/streams/${id}`, { new_name: 'private-admin-2' }));
    expectError(await owner.patch(`/streams/${id}`, { is_private: false }), 400, 'BAD_REQUEST', 'Channel content access is required.');
    expectError(
      await owner.patch(`/streams/${id}`, { can_remove_subscribers_group: { new: sys['role:members'] } }),
      400, 'BAD_REQUEST', 'Channel content access is required.',
    );
    expectError(
      await owner.patch(`/streams/${id}`, { can_send_message_group: { new: sys['role:members'] } }),
      400, 'BAD_REQUEST', 'Channel content access is required.',
    );
    ok(await alice.patch(`/streams/${id}`, { can_send_message_group: { new: sys['role:members'] } }));
  });
});

describe('name and description', () => {
  it('renames, with the old name in the event, to those who can see the channel', async () => {
    const id = await createChannel(alice, 'before');
    await createChannel(alice, 'taken');
    const [qb, qg] = await Promise.all([openQueue(bob), openQueue(guest)]);
    ok(await alice.patch(`/streams/${id}`, { new_name: '  after  ' }));
    expect(await drain(qb)).toEqual([expect.objectContaining({ type: 'stream', op: 'update', stream_id: id, property: 'name', value: 'after', name: 'before' })]);
    expect(await drain(qg)).toEqual([]);
    expectError(await alice.patch(`/streams/${id}`, { new_name: 'after' }), 400, 'BAD_REQUEST', 'Channel already has that name.');
    expectError(await alice.patch(`/streams/${id}`, { new_name: 'TAKEN' }), 400, 'BAD_REQUEST', "Channel 'TAKEN' already exists");
    expectError(await alice.patch(`/streams/${id}`, { new_name: 'y'.repeat(61) }), 400, 'BAD_REQUEST', 'Channel name too long (limit: 60 characters).');
    ok(await alice.patch(`/streams/${id}`, { new_name: 'AFTER' }));
    expect((await channel(alice, id)).name).toBe('AFTER');
  });

  it('renders descriptions on one line', async () => {
    const id = await createChannel(alice, 'described');
    const qb = await openQueue(bob);
    ok(await alice.patch(`/streams/${id}`, { description: 'line one\nline <two>' }));
    const s = await channel(alice, id);
    expect(s.description).toBe('line one line <two>');
    expect(s.rendered_description).toContain('&lt;two&gt;');
    expect(await drain(qb)).toEqual([
      expect.objectContaining({ property: 'description', value: 'line one line <two>', rendered_description: s.rendered_description }),
    ]);
    expectError(await alice.patch(`/streams/${id}`, { description: 'x'.repeat(1025) }), 400, 'BAD_REQUEST', /too long/);
  });
});

describe('privacy', () => {
  it('going public shows the channel and its subscribers to members; going private hides it again', async () => {
    const id = await createChannel(alice, 'flip', { invite_only: true });
    const [qa, qb, qg, qo] = await Promise.all([openQueue(alice), openQueue(bob), openQueue(guest), openQueue(owner)]);
    ok(await alice.patch(`/streams/${id}`, { is_private: false }));
    expect(await drain(qb)).toEqual([
      expect.objectContaining({ type: 'stream', op: 'create', streams: [expect.objectContaining({ stream_id: id, invite_only: false })] }),
      expect.objectContaining({ type: 'subscription', op: 'peer_add', stream_ids: [id], user_ids: [alice.userId] }),
    ]);
    const update = expect.objectContaining({ type: 'stream', op: 'update', property: 'invite_only', value: false, history_public_to_subscribers: true, is_web_public: false });
    expect(await drain(qa)).toEqual([update]);
    expect(await drain(qo)).toEqual([update]);
    expect(await drain(qg)).toEqual([]);
    expect(await channel(bob, id)).toMatchObject({ invite_only: false, history_public_to_subscribers: true });

    ok(await alice.patch(`/streams/${id}`, { is_private: true }));
    expect(await drain(qb)).toEqual([expect.objectContaining({ type: 'stream', op: 'delete', stream_ids: [id] })]);
    expect(await drain(qo)).toEqual([expect.objectContaining({ property: 'invite_only', value: true, history_public_to_subscribers: false })]);
    expectError(await bob.get(`/streams/${id}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  });

  it('keeps history shared for public channels', async () => {
    const id = await createChannel(alice, 'history-rule');
    expectError(await alice.patch(`/streams/${id}`, { history_public_to_subscribers: false }), 400, 'BAD_REQUEST', 'Invalid parameters');
    ok(await alice.patch(`/streams/${id}`, { is_private: true, history_public_to_subscribers: true }));
    expect(await channel(alice, id)).toMatchObject({ invite_only: true, history_public_to_subscribers: true });
    ok(await alice.patch(`/streams/${id}`, { history_public_to_subscribers: false }));
    expect(await channel(alice, id)).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
  });

  it('refuses web-public while spectator access is off', async () => {
    const id = await createChannel(owner, 'not-web');
    expectError(await owner.patch(`/streams/${id}`, { is_web_public: true }), 400, 'BAD_REQUEST', 'Web-public channels are not enabled.');
  });
});

describe('organization-level properties', () => {
  it('default channels: administrators only, never private', async () => {
    const id = await createChannel(alice, 'welcome');
    expectError(await alice.patch(`/streams/${id}`, { is_default_stream: true }), 400, 'BAD_REQUEST', 'You do not have permission to change default channels.');
    const qb = await openQueue(bob, { event_types: ['default_streams'] });
    ok(await owner.patch(`/streams/${id}`, { is_default_stream: true }));
    expect(await drain(qb)).toEqual([expect.objectContaining({ type: 'default_streams', default_streams: [id] })]);
    expectError(await alice.patch(`/streams/${id}`, { is_private: true }), 400, 'BAD_REQUEST', 'A default channel cannot be private.');
    expect(ok(await owner.get('/streams', { include_default: true })).streams.find((s: { stream_id: number }) => s.stream_id === id).is_default).toBe(true);
    ok(await owner.delete('/default_streams', { stream_id: id }));
    expect(await drain(qb)).toEqual([expect.objectContaining({ type: 'default_streams', default_streams: [] })]);
    ok(await owner.post('/default_streams', { stream_id: id }));
    expectError(await alice.post('/default_streams', { stream_id: id }), 400, 'BAD_REQUEST', 'You do not have permission to change default channels.');
  });

  it('message retention: owners only', async () => {
    const id = await createChannel(alice, 'retention');
    expectError(await alice.patch(`/streams/${id}`, { message_retention_days: 10 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
    const qa = await openQueue(alice);
    ok(await owner.patch(`/streams/${id}`, { message_retention_days: 'unlimited' }));
    expect(await drain(qa)).toEqual([expect.objectContaining({ property: 'message_retention_days', value: -1 })]);
    ok(await owner.patch(`/streams/${id}`, { message_retention_days: 10 }));
    expect((await channel(alice, id)).message_retention_days).toBe(10);
    ok(await owner.patch(`/streams/${id}`, { message_retention_days: 'realm_default' }));
    expect((await channel(alice, id)).message_retention_days).toBeNull();
    expectError(await owner.patch(`/streams/${id}`, { message_retention_days: 0 }), 400, 'REQUEST_VARIABLE_INVALID');
  });

  it('folder: an id of this organization, or null to remove it', async () => {
    const id = await createChannel(alice, 'foldered');
    const folder = ok(await owner.post('/channel_folders/create', { name: 'Projects' })).channel_folder_id as number;
    const foreign = ok(await otherOwner.post('/channel_folders/create', { name: 'Elsewhere' })).channel_folder_id as number;
    expectError(await alice.patch(`/streams/${id}`, { folder_id: 424242 }), 400, 'BAD_REQUEST', 'Invalid channel folder ID');
    expectError(await alice.patch(`/streams/${id}`, { folder_id: foreign }), 400, 'BAD_REQUEST', 'Invalid channel folder ID');
    const qb = await openQueue(bob);
    ok(await alice.patch(`/streams/${id}`, { folder_id: folder }));
    expect(await drain(qb)).toEqual([expect.objectContaining({ property: 'folder_id', value: folder })]);
    expect((await channel(alice, id)).folder_id).toBe(folder);
    ok(await alice.patch(`/streams/${id}`, { folder_id: null }));
    expect((await channel(alice, id)).folder_id).toBeNull();
    const created = await createChannel(alice, 'born-in-folder', { folder_id: folder });
    expect((await channel(alice, created)).folder_id).toBe(folder);
  });

  it('topics policy: empty_topic_only only while every message is in the empty topic', async () => {
    const id = await createChannel(alice, 'topics');
    const qb = await openQueue(bob);
    ok(await alice.patch(`/streams/${id}`, { topics_policy: 'empty_topic_only' }));
    expect(await drain(qb)).toEqual([expect.objectContaining({ property: 'topics_policy', value: 'empty_topic_only' })]);
    expectError(await alice.patch(`/streams/${id}`, { topics_policy: 'never' }), 400, 'BAD_REQUEST', 'Invalid topics_policy');
    const named = await createChannel(alice, 'named-topics');
    ok(await alice.post('/messages', { type: 'channel', to: String(named), topic: 'plans', content: 'hello' }));
    expectError(await alice.patch(`/streams/${named}`, { topics_policy: 'empty_topic_only' }), 400, 'BAD_REQUEST', /general chat/);
    ok(await alice.patch(`/streams/${named}`, { topics_policy: 'disable_empty_topic' }));
  });
});

describe('permission groups', () => {
  it('change with {new, old} and check old against the current value', async () => {
    const id = await createChannel(alice, 'perms');
    const qb = await openQueue(bob);
    expectError(
      await alice.patch(`/streams/${id}`, { can_send_message_group: { new: sys['role:administrators'], old: sys['role:members'] } }),
      400, 'EXPECTATION_MISMATCH',
    );
    ok(await alice.patch(`/streams/${id}`, { can_send_message_group: { new: sys['role:administrators'], old: sys['role:everyone'] } }));
    const events = await drain(qb);
    expect(events).toEqual([
      expect.objectContaining({ property: 'can_send_message_group', value: sys['role:administrators'] }),
      expect.objectContaining({ property: 'stream_post_policy', value: 2 }),
      expect.objectContaining({ property: 'is_announcement_only', value: true }),
    ]);
    // Setting the current value again changes nothing.
    ok(await alice.patch(`/streams/${id}`, { can_send_message_group: { new: sys['role:administrators'] } }));
    expect(await drain(qb)).toEqual([]);
    expectError(await alice.patch(`/streams/${id}`, { can_subscribe_group: { new: sys['role:everyone'] } }), 400, 'BAD_REQUEST', "'can_subscribe_group' setting cannot be set to 'role:everyone' group.");
    expectError(await alice.patch(`/streams/${id}`, { can_send_message_group: 5 }), 400, 'BAD_REQUEST');
  });

  it('handing over administration moves the right to edit', async () => {
    const id = await createChannel(alice, 'handover');
    ok(await alice.patch(`/streams/${id}`, {
      can_administer_channel_group: { new: { direct_members: [bob.userId], direct_subgroups: [] }, old: { direct_members: [alice.userId], direct_subgroups: [] } },
    }));
    expect((await channel(alice, id)).can_administer_channel_group).toEqual({ direct_members: [bob.userId], direct_subgroups: [] });
    ok(await bob.patch(`/streams/${id}`, { description: 'mine now' }));
    expectError(await alice.patch(`/streams/${id}`, { description: 'no longer' }), 400, 'CANNOT_ADMINISTER_CHANNEL');
  });

  it('granting administration of a private channel shows it; revoking hides it', async () => {
    const id = await createChannel(alice, 'private-grant', { invite_only: true });
    const qb = await openQueue(bob);
    ok(await alice.patch(`/streams/${id}`, { can_administer_channel_group: { new: { direct_members: [alice.userId, bob.userId], direct_subgroups: [] } } }));
    expect((await drain(qb)).map((e) => `${e.type}/${e.op}`)).toEqual(['stream/create', 'subscription/peer_add']);
    expect((await channel(bob, id)).name).toBe('private-grant');
    ok(await bob.patch(`/streams/${id}`, { description: 'administered from outside' }));
    ok(await alice.patch(`/streams/${id}`, { can_administer_channel_group: { new: { direct_members: [alice.userId], direct_subgroups: [] } } }));
    expect((await drain(qb)).filter((e) => e.op === 'delete')).toEqual([expect.objectContaining({ type: 'stream', op: 'delete', stream_ids: [id] })]);
    expectError(await bob.get(`/streams/${id}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  });
});

describe('archiving', () => {
  it('archives and unarchives, telling each client in the form it understands', async () => {
    const id = await createChannel(alice, 'old-project');
    ok(await owner.patch(`/streams/${id}`, { is_default_stream: true }));
    const [plain, modern] = await Promise.all([openQueue(bob), openQueue(bob, { client_capabilities: { archived_channels: true } })]);
    ok(await alice.delete(`/streams/${id}`));
    expect((await drain(plain)).filter((e) => e.type === 'stream')).toEqual([expect.objectContaining({ op: 'delete', stream_ids: [id], for_archiving: true })]);
    expect((await drain(modern)).filter((e) => e.type === 'stream')).toEqual([expect.objectContaining({ op: 'update', property: 'is_archived', value: true })]);
    expectError(await alice.delete(`/streams/${id}`), 400, 'BAD_REQUEST', 'Channel is already deactivated');
    expect(ok(await bob.get('/streams')).streams.map((s: { stream_id: number }) => s.stream_id)).not.toContain(id);
    const all = ok(await bob.get('/streams', { exclude_archived: false })).streams;
    expect(all.find((s: { stream_id: number }) => s.stream_id === id)).toMatchObject({ is_archived: true });
    expect(ok(await bob.post('/register', { fetch_event_types: ['default_streams'] })).realm_default_streams).not.toContain(id);
    expectError(await alice.patch(`/streams/${id}`, { is_archived: true }), 400, 'BAD_REQUEST');

    ok(await alice.patch(`/streams/${id}`, { is_archived: false }));
    expect((await drain(plain)).filter((e) => e.type === 'stream')).toEqual([expect.objectContaining({ op: 'create', for_unarchiving: true })]);
    expect((await drain(modern)).filter((e) => e.type === 'stream')).toEqual([expect.objectContaining({ op: 'update', property: 'is_archived', value: false })]);
    expect((await channel(bob, id)).is_archived).toBe(false);
    expectError(await alice.patch(`/streams/${id}`, { is_archived: false }), 400, 'BAD_REQUEST', 'Channel is not currently deactivated');
  });
});

describe('privacy changes follow the creation policy (CVE-2025-47930)', () => {
  let pOwner: Client;
  let pAdmin: Client;
  let pMember: Client;
  let groups: Record<string, number>;

  beforeAll(async () => {
    const realm = await newRealm('chpriv');
    pOwner = realm.owner;
    pAdmin = await newUser(realm.subdomain, 'Pat Admin', 200);
    pMember = await newUser(realm.subdomain, 'Pam Member');
    groups = await systemGroupIds(realm.subdomain);
    await setRealmSettings(realm.subdomain, {
      can_create_private_channel_group: groups['role:administrators'],
      can_create_public_channel_group: groups['role:administrators'],
    });
  });

  it('a channel administrator may not make a channel private or public against the policy', async () => {
    const member = { direct_members: [pMember.userId], direct_subgroups: [] };
    const pub = await createChannel(pOwner, 'pub', { can_administer_channel_group: member, principals: [pOwner.userId, pMember.userId] });
    ok(await pMember.patch(`/streams/${pub}`, { description: 'allowed' }));
    expectError(await pMember.patch(`/streams/${pub}`, { is_private: true }), 400, 'BAD_REQUEST', 'Insufficient permission');
    const priv = await createChannel(pAdmin, 'priv', { invite_only: true, can_administer_channel_group: member, principals: [pAdmin.userId, pMember.userId] });
    expectError(await pMember.patch(`/streams/${priv}`, { is_private: false }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expect(await channel(pMember, priv)).toMatchObject({ invite_only: true });
    ok(await pAdmin.patch(`/streams/${priv}`, { is_private: false }));
  });
});
