// The apply-events property for channels and subscriptions: creation through subscribing,
// every kind of channel property, archiving, default channels, subscribing and unsubscribing
// oneself and others, and personal subscription properties.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../helpers/client.js';
import { channelId, closeWatchers, newOrganization, ok, openWatchers, systemGroups, verify, type Watcher } from './support.js';

let owner: Client;
let bob: Client;
let guest: Client;
let all: Watcher[];
let groups: Record<string, number>;

const subscribe = (c: Client, names: string[], extra: Record<string, unknown> = {}) =>
  c.post('/users/me/subscriptions', { subscriptions: names.map((name) => ({ name })), ...extra });

beforeAll(async () => {
  ({ owner, bob, guest } = await newOrganization('apchan', ['bob', 'guest']));
  groups = await systemGroups(owner);
  all = await openWatchers({ owner, bob, guest });
});

afterAll(() => closeWatchers(all));

describe('creating channels', () => {
  it('a public channel the creator joins alone', async () => {
    await verify(all, async () => ok(await subscribe(owner, ['town square'])));
  });

  it('a public channel with a member and a guest', async () => {
    await verify(all, async () => ok(await subscribe(owner, ['garden'], { principals: [owner.userId, bob.userId, guest.userId] })));
  });

  it('a private channel with a member', async () => {
    await verify(all, async () => ok(await subscribe(owner, ['secret plans'], { invite_only: true, principals: [owner.userId, bob.userId] })));
  });

  it('a private channel with shared history and a description', async () => {
    await verify(all, async () =>
      ok(await subscribe(owner, ['open secrets'], { invite_only: true, history_public_to_subscribers: true, principals: [owner.userId, guest.userId] })),
    );
  });

  it('a web-public channel, a default channel, several at once', async () => {
    ok(await owner.patch('/realm', { enable_spectator_access: true }));
    await verify(all, async () => ok(await subscribe(owner, ['on the web'], { is_web_public: true })));
    await verify(all, async () => ok(await subscribe(owner, ['welcome'], { is_default_stream: true })));
    await verify(all, async () => ok(await subscribe(owner, ['first of two', 'second of two'], { principals: [owner.userId, bob.userId] })));
  });

  it('a member creating a channel', async () => {
    await verify(all, async () => ok(await subscribe(bob, ['bob room'])));
  });
});

describe('channel properties', () => {
  let id: number;
  beforeAll(async () => {
    ok(await subscribe(owner, ['workshop'], { principals: [owner.userId, bob.userId] }));
    id = await channelId(owner, 'workshop');
  });

  it('description and name', async () => {
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { description: 'Where **things** get made' })));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { new_name: 'factory' })));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { new_name: 'workshop', description: '' })));
  });

  it('privacy: private, public again, history, web-public', async () => {
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { is_private: true })));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { history_public_to_subscribers: true })));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { is_private: false })));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { is_web_public: true })));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { is_web_public: false })));
  });

  it('a private channel the guest is in becomes public', async () => {
    const secret = await channelId(owner, 'open secrets');
    await verify(all, async () => ok(await owner.patch(`/streams/${secret}`, { is_private: false })));
    await verify(all, async () => ok(await owner.patch(`/streams/${secret}`, { is_private: true })));
  });

  it('retention, topics policy, folder', async () => {
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { message_retention_days: 30 })));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { message_retention_days: 'unlimited' })));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { topics_policy: 'disable_empty_topic' })));
    const folder = ok(await owner.post('/channel_folders/create', { name: 'Projects', description: '' })).channel_folder_id as number;
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { folder_id: folder })));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { folder_id: null })));
  });

  it('group settings: a system group, an anonymous group, posting rights', async () => {
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { can_send_message_group: { new: groups['role:administrators'] } })));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { can_send_message_group: { new: groups['role:everyone'] } })));
    await verify(all, async () =>
      ok(await owner.patch(`/streams/${id}`, { can_administer_channel_group: { new: { direct_members: [bob.userId], direct_subgroups: [groups['role:moderators']] } } })),
    );
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { can_remove_subscribers_group: { new: groups['role:members'] } })));
  });

  it('every channel permission setting', async () => {
    const settings = [
      'can_add_subscribers_group',
      'can_move_messages_out_of_channel_group', 'can_move_messages_within_channel_group', 'can_resolve_topics_group', 'can_subscribe_group',
    ];
    for (const name of settings) {
      await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { [name]: { new: groups['role:moderators'] } })));
    }
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { is_default_stream: true })));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { is_default_stream: false, description: 'Not a default any more' })));
  });

  it('a private channel opened to a group that can subscribe gains viewers', async () => {
    const secret = await channelId(owner, 'secret plans');
    await verify(all, async () => ok(await owner.patch(`/streams/${secret}`, { can_subscribe_group: { new: { direct_members: [guest.userId], direct_subgroups: [] } } })));
    await verify(all, async () => ok(await owner.patch(`/streams/${secret}`, { can_subscribe_group: { new: groups['role:nobody'] } })));
  });
});

describe('archiving and default channels', () => {
  it('default channel on and off', async () => {
    const id = await channelId(owner, 'garden');
    await verify(all, async () => ok(await owner.post('/default_streams', { stream_id: id })));
    await verify(all, async () => ok(await owner.delete('/default_streams', { stream_id: id })));
  });

  it('archiving a default channel and unarchiving it', async () => {
    const id = await channelId(owner, 'welcome');
    await verify(all, async () => ok(await owner.delete(`/streams/${id}`)));
    await verify(all, async () => ok(await owner.patch(`/streams/${id}`, { is_archived: false })));
  });

  it('archiving a private channel', async () => {
    const id = await channelId(owner, 'secret plans');
    await verify(all, async () => ok(await owner.delete(`/streams/${id}`)));
  });
});

describe('subscriptions', () => {
  it('subscribing oneself to an existing channel and leaving it', async () => {
    await verify(all, async () => ok(await subscribe(bob, ['town square'])));
    await verify(all, async () => ok(await bob.delete('/users/me/subscriptions', { subscriptions: ['town square'] })));
  });

  it('subscribing others and removing them', async () => {
    await verify(all, async () => ok(await subscribe(owner, ['town square'], { principals: [bob.userId, guest.userId] })));
    await verify(all, async () => ok(await owner.delete('/users/me/subscriptions', { subscriptions: ['town square'], principals: [guest.userId] })));
  });

  it('a guest leaving a public channel loses it', async () => {
    await verify(all, async () => ok(await guest.delete('/users/me/subscriptions', { subscriptions: ['garden'] })));
  });

  it('a member leaving a private channel and being added back', async () => {
    ok(await subscribe(owner, ['hideout'], { invite_only: true, principals: [owner.userId, bob.userId] }));
    await verify(all, async () => ok(await bob.delete('/users/me/subscriptions', { subscriptions: ['hideout'] })));
    await verify(all, async () => ok(await subscribe(owner, ['hideout'], { principals: [bob.userId] })));
  });

  it('personal properties: color, mute, pin, notifications', async () => {
    const id = await channelId(owner, 'garden');
    const change = (property: string, value: unknown) => bob.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property, value }] });
    await verify(all, async () => ok(await change('color', '#abcdef')));
    await verify(all, async () => ok(await change('is_muted', true)));
    await verify(all, async () => ok(await change('in_home_view', true)));
    await verify(all, async () => ok(await change('pin_to_top', true)));
    await verify(all, async () => ok(await change('desktop_notifications', true)));
    await verify(all, async () => ok(await change('push_notifications', false)));
    await verify(all, async () => ok(await change('wildcard_mentions_notify', false)));
    await verify(all, async () => ok(await bob.patch(`/users/me/subscriptions/${id}`, { property: 'audible_notifications', value: true })));
  });

  it('muting a channel with unread messages changes the unread count', async () => {
    ok(await owner.post('/messages', { type: 'stream', to: 'garden', topic: 'news', content: 'fresh news' }));
    const id = await channelId(owner, 'garden');
    const { outcomes } = await verify(all, async () =>
      ok(await bob.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property: 'is_muted', value: false }] })),
    );
    expect(outcomes.get(all[1]!)!.changed).toBe(true);
  });
});
