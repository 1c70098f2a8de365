// The wire format real clients depend on, at our feature level (406): each case here is a
// difference from Zulip that a real client (zulip-terminal, the Python bindings, zulip_bots)
// tripped over, and every response is checked field by field against the response-schema
// registry (test/helpers/responses/).
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, events, expectError, register, sendToChannel, systemGroupId } from '../helpers/messages.js';
import { expectResponse } from '../helpers/responses/index.js';

let owner: Client;
let subdomain: string;
let bob: Client;
let channelId: number;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('wire'));
  bob = await knownUser('Bob Wire');
  channelId = await createChannel(owner, 'wired', {}, [bob.userId!]);
});

/** A user the running realm already knows (the server picks CLI-made users up on their first request). */
async function knownUser(name: string): Promise<Client> {
  const u = await newUser(subdomain, name);
  expect((await u.get('/users/me')).status).toBe(200);
  return u;
}

const MODERN = { client_capabilities: { notification_settings_null: true, user_settings_object: true } };

describe('POST /register', () => {
  it('sends exactly the keys Zulip sends at 406: none removed before it, none added after it', async () => {
    const reg = expectResponse('POST /register', await owner.post('/register', MODERN));
    for (const gone of ['dense_mode', 'is_billing_admin', 'can_subscribe_other_users', 'server_report_message_types',
      'max_channel_folder_name_length', 'realm_can_set_delete_message_policy_group']) {
      expect(reg).not.toHaveProperty(gone);
    }
    expect(reg.user_settings).not.toHaveProperty('dense_mode');
    expect(reg.realm_user_settings_defaults).not.toHaveProperty('dense_mode');
    // Deprecated keys Zulip still sends at 406, derived from their replacements.
    expect(reg.realm_create_public_stream_policy).toBe(1);
    expect(reg.realm_create_web_public_stream_policy).toBe(7);
    expect(reg.realm_wildcard_mention_policy).toBe(5);
    expect(reg.realm_is_zephyr_mirror_realm).toBe(false);
    expect(reg.stop_words).toContain('the');
  });

  it('sends muted_topics with user_topics when no event types are named, and only user_topics when both are', async () => {
    const all = (await register(bob)).body;
    expect(all.muted_topics).toEqual([]);
    expect(all.user_topics).toEqual([]);
    const both = (await register(bob, { event_types: ['user_topic', 'muted_topics'] })).body;
    expect(both).not.toHaveProperty('muted_topics');
    expect(both.user_topics).toEqual([]);
  });
});

describe('channels at 406', () => {
  it('carry no field of a later level, and refuse to set those settings', async () => {
    const streams = expectResponse('GET /streams', await owner.get('/streams')).streams;
    const mine = streams.find((s: { stream_id: number }) => s.stream_id === channelId);
    for (const later of ['can_delete_any_message_group', 'can_delete_own_message_group', 'can_create_topic_group']) {
      expect(mine).not.toHaveProperty(later);
    }
    expectResponse('GET /users/me/subscriptions', await owner.get('/users/me/subscriptions'));
    const members = await systemGroupId(owner, 'role:members');
    const r = await owner.patch(`/streams/${channelId}`, { can_delete_any_message_group: JSON.stringify({ new: members }) });
    // Not a parameter at 406: reported as ignored, nothing changes.
    expect(r.status).toBe(200);
    expect(r.body.ignored_parameters_unsupported).toEqual(['can_delete_any_message_group']);
    const after = expectResponse('GET /streams', await owner.get('/streams')).streams;
    expect(after.find((s: { stream_id: number }) => s.stream_id === channelId)).not.toHaveProperty('can_delete_any_message_group');
  });

  it('announce the deprecated is_announcement_only with stream_post_policy when posting is limited to admins', async () => {
    const id = await createChannel(owner, 'announcements', {}, [bob.userId!]);
    const q = await register(bob, { event_types: ['stream'] });
    const admins = await systemGroupId(owner, 'role:administrators');
    expect((await owner.patch(`/streams/${id}`, { can_send_message_group: JSON.stringify({ new: admins }) })).status).toBe(200);
    const updates = (await events(bob, q.queueId, 'stream')).filter((e) => e.op === 'update');
    expect(updates).toEqual(expect.arrayContaining([
      expect.objectContaining({ property: 'stream_post_policy', value: 2, stream_id: id }),
      expect.objectContaining({ property: 'is_announcement_only', value: true, stream_id: id }),
    ]));
    const sub = (await bob.get('/users/me/subscriptions')).body.subscriptions.find((s: { stream_id: number }) => s.stream_id === id);
    expect(sub).toMatchObject({ is_announcement_only: true, stream_post_policy: 2 });
    // Sent, but no longer accepted (feature level 333): ignored, nothing changes.
    const legacy = await owner.patch(`/streams/${id}`, { is_announcement_only: false, stream_post_policy: 1 });
    expect(legacy.body.ignored_parameters_unsupported).toEqual(['is_announcement_only', 'stream_post_policy']);
    expect((await owner.get(`/streams/${id}`)).body.stream).toMatchObject({ is_announcement_only: true, stream_post_policy: 2 });
  });
});

describe('reactions', () => {
  it('carry the deprecated user object in events, and not in message objects', async () => {
    const messageId = await sendToChannel(owner, 'wired', 'reacting', 'react to me');
    const q = await register(owner, { event_types: ['reaction'] });
    expect((await bob.post(`/messages/${messageId}/reactions`, { emoji_name: 'smile' })).status).toBe(200);
    const [added] = await events(owner, q.queueId, 'reaction');
    expect(added).toMatchObject({
      op: 'add', message_id: messageId, user_id: bob.userId,
      user: { user_id: bob.userId, email: bob.email, full_name: 'Bob Wire' },
    });
    const fetched = expectResponse('GET /messages', await owner.get('/messages', { anchor: messageId, num_before: 0, num_after: 0 }));
    expect(fetched.messages[0].reactions[0]).toEqual({ emoji_name: 'smile', emoji_code: expect.any(String), reaction_type: 'unicode_emoji', user_id: bob.userId });
  });
});

describe('message edits', () => {
  it('update_message events name the channel the message was in (stream_name, still sent at 406)', async () => {
    const messageId = await sendToChannel(owner, 'wired', 'editing', 'before');
    const q = await register(bob, { event_types: ['update_message'] });
    expect((await owner.patch(`/messages/${messageId}`, { content: 'after' })).status).toBe(200);
    const [edit] = await events(bob, q.queueId, 'update_message');
    expect(edit).toMatchObject({ message_id: messageId, stream_id: channelId, stream_name: 'wired', content: 'after' });
  });
});

describe('GET /messages', () => {
  it('lets use_first_unread_anchor win over an anchor sent with it', async () => {
    const reader = await knownUser('Rhea Reader');
    const id = await createChannel(owner, 'unreads', {}, [reader.userId!]);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) ids.push(await sendToChannel(owner, id, 't', `m${i}`));
    expect((await reader.post('/messages/flags', { messages: JSON.stringify(ids.slice(0, 2)), op: 'add', flag: 'read' })).status).toBe(200);
    const narrow = JSON.stringify([{ operator: 'channel', operand: id }]);
    const r = expectResponse('GET /messages', await reader.get('/messages', {
      anchor: 'oldest', use_first_unread_anchor: true, num_before: 0, num_after: 1, narrow,
    }));
    expect(r.anchor).toBe(ids[2]);
    expect(r.messages.map((m: { id: number }) => m.id)).toEqual([ids[2], ids[3]]);
    expectError(await reader.get('/messages', { num_before: 0, num_after: 1 }), 400, 'BAD_REQUEST', "Missing 'anchor' argument");
  });
});

describe('users', () => {
  it('GET /users/me has max_message_id and no bot_type for a human', async () => {
    const lastId = await sendToChannel(owner, 'wired', 'me', 'latest');
    const me = expectResponse('GET /users/me', await bob.get('/users/me'));
    expect(me).not.toHaveProperty('bot_type');
    expect(me).not.toHaveProperty('bot_owner_id');
    expect(me.max_message_id).toBe(lastId);
    // It follows new messages and deletions (the value is kept between requests).
    const newer = await sendToChannel(owner, 'wired', 'me', 'newer');
    expect((await bob.get('/users/me')).body.max_message_id).toBe(newer);
    expect((await owner.delete(`/messages/${newer}`)).status).toBe(200);
    expect((await bob.get('/users/me')).body.max_message_id).toBe(lastId);
    const listed = expectResponse('GET /users', await owner.get('/users')).members;
    expect(listed.find((u: { user_id: number }) => u.user_id === bob.userId)).not.toHaveProperty('bot_type');
    expectResponse('GET /users/{id}', await owner.get(`/users/${bob.userId}`));
  });

  it('GET /users/me follows the user\'s changes and reports ignored parameters (its answer is kept between requests)', async () => {
    const before = expectResponse('GET /users/me', await bob.get('/users/me'));
    expect((await bob.get('/users/me')).body).toEqual(before);
    const ignored = expectResponse('GET /users/me', await bob.get('/users/me', { colour: 'blue', size: 3 }));
    expect(ignored).toEqual({ ...before, ignored_parameters_unsupported: ['colour', 'size'] });
    expect(Object.keys(ignored).slice(-1)).toEqual(['ignored_parameters_unsupported']);
    expect((await bob.patch('/settings', { full_name: 'Bob Rewired' })).status).toBe(200);
    expect((await bob.get('/users/me')).body).toEqual({ ...before, full_name: 'Bob Rewired' });
    const field = (await owner.post('/realm/profile_fields', { name: 'Desk', field_type: 1 })).body.id as number;
    expect((await bob.patch('/users/me/profile_data', { data: [{ id: field, value: 'B-12' }] })).status).toBe(200);
    const withDesk = expectResponse('GET /users/me', await bob.get('/users/me'));
    expect(withDesk.profile_data).toEqual({ [field]: { value: 'B-12', rendered_value: '<p>B-12</p>' } });
    expect((await owner.delete(`/realm/profile_fields/${field}`)).status).toBe(200);
    expect((await bob.get('/users/me')).body.profile_data).toEqual({});
  });

  it('a bot keeps bot_type and bot_owner_id', async () => {
    const made = await owner.post('/bots', { full_name: 'Wire Bot', short_name: 'wirebot', bot_type: 1 });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const bot = expectResponse('GET /users/{id}', await owner.get(`/users/${made.body.user_id}`)).user;
    expect(bot).toMatchObject({ bot_type: 1, bot_owner_id: owner.userId });
  });

  it('PATCH /users/{email} changes the user that GET /users/{email} names', async () => {
    const target = await knownUser('Eve Emailed');
    expect((await owner.patch(`/users/${encodeURIComponent(target.email!)}`, { full_name: 'Eve Renamed' })).status).toBe(200);
    expect((await owner.get(`/users/${target.userId}`)).body.user.full_name).toBe('Eve Renamed');
    expectError(await owner.patch('/users/nobody%40nowhere.test', { full_name: 'X' }), 400, 'BAD_REQUEST', 'No such user');
    expectError(await bob.patch(`/users/${encodeURIComponent(target.email!)}`, { full_name: 'Nope' }), 400, 'UNAUTHORIZED_PRINCIPAL');
    expect((await owner.get(`/users/${target.userId}`)).body.user.full_name).toBe('Eve Renamed');
  });

  it('DELETE /users/{id} of the last owner answers a plain BAD_REQUEST', async () => {
    const r = await owner.delete(`/users/${owner.userId}`);
    expectError(r, 400, 'BAD_REQUEST', 'Cannot deactivate the only organization owner');
    expect(r.body).not.toHaveProperty('is_last_owner');
    expect(r.body).not.toHaveProperty('entity');
    // DELETE /users/me keeps its own error shape.
    const self = await owner.delete('/users/me');
    expectError(self, 400, 'CANNOT_DEACTIVATE_LAST_USER', 'Cannot deactivate the only organization owner.');
    expect(self.body).toMatchObject({ is_last_owner: true, entity: 'organization owner' });
  });
});

describe('settings', () => {
  it('the legacy PATCH /settings/display and /settings/notifications change settings as PATCH /settings does', async () => {
    const q = await register(bob, { event_types: ['user_settings'] });
    expect((await bob.patch('/settings/display', { left_side_userlist: true })).status).toBe(200);
    expect((await bob.patch('/settings/notifications', { enable_sounds: false })).status).toBe(200);
    const changed = (await events(bob, q.queueId, 'user_settings')).map((e) => [e.property, e.value]);
    expect(changed).toEqual([['left_side_userlist', true], ['enable_sounds', false]]);
    expectError(await bob.patch('/settings/display', { color_scheme: 9 }), 400, 'BAD_REQUEST', 'Invalid color_scheme');
    // dense_mode was removed at 364: ignored, not stored.
    const r = await bob.patch('/settings', { dense_mode: true });
    expect(r.body.ignored_parameters_unsupported).toEqual(['dense_mode']);
  });

  it('PATCH /realm/user_settings_defaults honours every setting, with one event each, for admins only', async () => {
    const watcher = await register(bob, { event_types: ['realm_user_settings_defaults'] });
    const r = await owner.patch('/realm/user_settings_defaults', {
      color_scheme: 3, enter_sends: true, web_home_view: 'all_messages', notification_sound: 'ding',
      web_left_sidebar_unreads_count_summary: false, email_address_visibility: 2,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).not.toHaveProperty('ignored_parameters_unsupported');
    const got = (await events(bob, watcher.queueId, 'realm_user_settings_defaults')).map((e) => [e.property, e.value]);
    expect(got).toEqual(expect.arrayContaining([
      ['color_scheme', 3], ['enter_sends', true], ['web_home_view', 'all_messages'], ['notification_sound', 'ding'],
      ['web_left_sidebar_unreads_count_summary', false], ['email_address_visibility', 2],
    ]));
    expect(got).toHaveLength(6);
    const defaults = (await register(owner, { fetch_event_types: ['realm_user_settings_defaults'] })).body.realm_user_settings_defaults;
    expect(defaults).toMatchObject({ color_scheme: 3, enter_sends: true, web_home_view: 'all_messages', notification_sound: 'ding' });
    // A new account starts with them.
    const fresh = await knownUser('Nina New');
    const settings = (await register(fresh, { fetch_event_types: ['user_settings'] })).body.user_settings;
    expect(settings).toMatchObject({ color_scheme: 3, enter_sends: true, web_home_view: 'all_messages', email_address_visibility: 2 });

    // Bad values and non-administrators change nothing.
    expectError(await owner.patch('/realm/user_settings_defaults', { color_scheme: 1, emojiset: 'comic' }), 400, 'BAD_REQUEST', 'Invalid emojiset');
    expectError(await bob.patch('/realm/user_settings_defaults', { color_scheme: 1 }), 400, 'UNAUTHORIZED_PRINCIPAL');
    const after = (await register(owner, { fetch_event_types: ['realm_user_settings_defaults'] })).body.realm_user_settings_defaults;
    expect(after.color_scheme).toBe(3);
  });
});

describe('GET /server_settings', () => {
  it('matches its schema', async () => {
    expectResponse('GET /server_settings', await new Client(subdomain).get('/server_settings'));
  });
});

describe('POST /register without credentials (spectators)', () => {
  it('is refused unless the organization allows public access, and then shows web-public channels only', async () => {
    const { owner: host, subdomain: sub } = await newRealm('spect');
    const anonymous = new Client(sub);
    expect((await host.patch('/realm', { enable_spectator_access: false })).status).toBe(200);
    expectError(await anonymous.post('/register'), 401, 'UNAUTHORIZED');

    expect((await host.patch('/realm', { enable_spectator_access: true })).status).toBe(200);
    const open = await createChannel(host, 'open to all', { is_web_public: true });
    const publicOnly = await createChannel(host, 'members only');
    const body = expectResponse('POST /register (spectator)', await anonymous.post('/register', { client_capabilities: MODERN.client_capabilities }));
    expect(body).toMatchObject({
      queue_id: null, user_id: 0, full_name: 'Anonymous User', email: 'username@example.com',
      is_guest: true, is_admin: false, can_create_streams: false, realm_allow_message_editing: false, realm_presence_disabled: true,
      presences: {}, alert_words: [], starred_messages: [], realm_bots: [], realm_default_streams: [], max_message_id: -1,
    });
    expect(body).not.toHaveProperty('last_event_id');
    expect(body.subscriptions.map((s: { stream_id: number }) => s.stream_id)).toEqual([open]);
    expect(body.streams.map((s: { stream_id: number }) => s.stream_id)).toEqual([open]);
    expect(body.never_subscribed).toEqual([]);
    expect(body.streams.map((s: { stream_id: number }) => s.stream_id)).not.toContain(publicOnly);
    // Public profiles only: no real addresses, no custom profile data.
    const ownerView = body.realm_users.find((u: { user_id: number }) => u.user_id === host.userId);
    expect(ownerView.delivery_email).toBeNull();
    expect(ownerView).not.toHaveProperty('profile_data');

    expectError(await anonymous.post('/register', { client_gravatar: true }), 400, 'BAD_REQUEST', "Invalid 'client_gravatar' parameter for anonymous request");
    expectError(await anonymous.post('/register', { include_subscribers: true }), 400, 'BAD_REQUEST', "Invalid 'include_subscribers' parameter for anonymous request");
    // Wrong credentials are not a spectator.
    expectError(await new Client(sub, host.email, 'not-the-key').post('/register'), 401, 'UNAUTHORIZED');
  });
});
