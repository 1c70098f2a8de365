// The apply-events property for a client that declares no capabilities (an old mobile app or
// a bot): settings in the top-level legacy keys and their legacy events, one delete_message
// per message, archived channels leaving its lists, notification settings filled in, no
// linkifiers, no subscriber lists, no client_gravatar.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { newUser, type Client } from '../helpers/client.js';
import { channelId, closeWatchers, newOrganization, ok, openWatchers, verify, type Watcher } from './support.js';

const LEGACY_REGISTER = {
  apply_markdown: false,
  client_gravatar: false,
  include_subscribers: false,
  client_capabilities: { notification_settings_null: false },
};

let owner: Client;
let bob: Client;
let all: Watcher[];

beforeAll(async () => {
  ({ owner, bob } = await newOrganization('aplegacy', ['bob']));
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }], principals: [owner.userId, bob.userId] }));
  all = await openWatchers({ 'owner (legacy)': owner, 'bob (legacy)': bob }, LEGACY_REGISTER);
});

afterAll(() => closeWatchers(all));

describe('a client without capabilities', () => {
  it('messages to the empty topic, and deleting several at once', async () => {
    await verify(all, async () => ok(await owner.post('/messages', { type: 'stream', to: 'lobby', topic: '', content: 'no topic' })));
    const ids: number[] = [];
    for (const content of ['one', 'two']) ids.push(ok(await owner.post('/messages', { type: 'stream', to: 'lobby', topic: 'gone', content })).id);
    ok(await owner.post('/messages', { type: 'stream', to: 'lobby', topic: 'stays', content: 'newest' }));
    await verify(all, async () => ok(await owner.delete(`/messages/${ids[0]}`)));
  });

  it('settings changes in the legacy keys', async () => {
    await verify(all, async () => ok(await bob.patch('/settings', { twenty_four_hour_time: true, default_language: 'es' })));
    await verify(all, async () => ok(await bob.patch('/settings', { enable_sounds: false, timezone: 'America/Lima' })));
  });

  it('archiving and unarchiving a channel the watchers are not in', async () => {
    // For its subscribers Zulip sends the same `stream create` on unarchiving and nothing
    // about their subscription, so a client without archived_channels cannot file it back
    // under its subscriptions: Zulip's own format, checked here for everyone else.
    const carol = await newUser(owner.subdomain, 'Carol Member');
    ok(await carol.get('/users/me'));
    ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'old project' }], principals: [carol.userId] }));
    const id = await channelId(owner, 'old project');
    await verify(all, async () => ok(await owner.delete(`/streams/${id}`)));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { is_archived: false })));
  });

  it('subscription properties', async () => {
    const id = await channelId(owner, 'lobby');
    await verify(all, async () => ok(await bob.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property: 'in_home_view', value: false }] })));
    await verify(all, async () => ok(await bob.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property: 'push_notifications', value: true }] })));
  });

  it('a linkifier: no events and no list for clients without URL templates', async () => {
    await verify(all, async () => ok(await owner.post('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' })), { stateChange: false });
  });

  it('a new member and a subscription of theirs', async () => {
    const { result } = await verify(all, async () => ok(await owner.post('/users', { email: 'eve@example.test', password: 'eve-password-1', full_name: 'Eve New' })));
    await verify(all, async () => ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }], principals: [result.user_id] })));
  });
});
