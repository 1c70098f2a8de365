// The apply-events property for a user's own things and the message actions clients added
// lately: muting and unmuting users (their unread messages become read), statuses seen by
// others, the moderation request channel, reports, typing while editing, and deleting a topic.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../helpers/client.js';
import { channelId, closeWatchers, newOrganization, ok, openWatchers, verify, type Watcher } from './support.js';

let owner: Client;
let bob: Client;
let carol: Client;
let guest: Client;
let all: Watcher[];
let lobby: number;

beforeAll(async () => {
  ({ owner, bob, carol, guest } = await newOrganization('appers', ['bob', 'carol', 'guest']));
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }], principals: [owner.userId, bob.userId, carol.userId, guest.userId] }));
  lobby = await channelId(owner, 'lobby');
  all = await openWatchers({ owner, bob, guest });
});

afterAll(() => closeWatchers(all));

describe('muted users', () => {
  it('muting a user reads their unread messages; unmuting shortens the list', async () => {
    ok(await carol.post('/messages', { type: 'direct', to: [bob.userId], content: 'unread until muted' }));
    ok(await carol.post('/messages', { type: 'stream', to: 'lobby', topic: 'chat', content: 'channel message' }));
    await verify(all, async () => ok(await carol.post('/messages', { type: 'direct', to: [bob.userId], content: 'one more' })));
    const { outcomes } = await verify(all, async () => ok(await bob.post(`/users/me/muted_users/${carol.userId}`)));
    expect(outcomes.get(all[1]!)!.events.map((e) => e.type)).toEqual(['update_message_flags', 'muted_users']);
    await verify(all, async () => ok(await carol.post('/messages', { type: 'direct', to: [bob.userId], content: 'arrives read' })));
    await verify(all, async () => ok(await bob.delete(`/users/me/muted_users/${carol.userId}`)));
  });
});

describe('user status', () => {
  it('set, changed part by part, and cleared', async () => {
    await verify(all, async () => ok(await bob.post('/users/me/status', { status_text: 'in a meeting', emoji_name: 'calendar' })));
    await verify(all, async () => ok(await bob.post('/users/me/status', { away: true })));
    await verify(all, async () => ok(await bob.post('/users/me/status', { emoji_name: '' })));
    await verify(all, async () => ok(await bob.post('/users/me/status', { status_text: '', away: false })));
  });
});

describe('message actions', () => {
  it('a moderation request channel set, and a report posted to it', async () => {
    ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'moderation' }], invite_only: true }));
    const mods = await channelId(owner, 'moderation');
    await verify(all, async () => ok(await owner.patch('/realm', { moderation_request_channel_id: mods })));
    const id = ok(await carol.post('/messages', { type: 'stream', to: 'lobby', topic: 'reports', content: 'reported' })).id;
    await verify(all, async () => ok(await bob.post(`/messages/${id}/report`, { report_type: 'spam' })));
  });

  it('typing while editing changes no state', async () => {
    const id = (await verify(all, async () => ok(await bob.post('/messages', { type: 'stream', to: 'lobby', topic: 'edits', content: 'typo' })))).result.id;
    const { outcomes } = await verify(all, async () => ok(await bob.post(`/messages/${id}/typing`, { op: 'start' })), { stateChange: false });
    expect(outcomes.get(all[2]!)!.events.map((e) => e.type)).toEqual(['typing_edit_message']);
  });

  it('a topic deleted', async () => {
    await verify(all, async () => {
      for (const n of [1, 2, 3]) ok(await carol.post('/messages', { type: 'stream', to: 'lobby', topic: 'doomed', content: `message ${n}` }));
    });
    await verify(all, async () => ok(await owner.post(`/streams/${lobby}/delete_topic`, { topic_name: 'doomed' })));
  });
});
