// POST /register keeps derived views (user texts, channel views, subscriber counts, group
// memberships, subscription logs) between calls: each must follow the change that affects it.
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, ok, systemGroupIds, type Json } from './channels-helpers.js';

let owner: Client;
let subdomain: string;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('regcache'));
});

const register = async (client: Client, params: Record<string, unknown> = {}): Promise<Json> => ok(await client.post('/register', params));
const group = (state: Json, id: number): Json => (state.realm_user_groups as Json[]).find((g) => g.id === id)!;
const sub = (state: Json, streamId: number): Json => (state.subscriptions as Json[]).find((s) => s.stream_id === streamId)!;

describe('register after changes', () => {
  it('shows role changes in users and system groups, and deactivation in lists and counts', async () => {
    const sys = await systemGroupIds(subdomain);
    const u = await newUser(subdomain, 'Cass Cache');
    // Its first request makes the server read the CLI's journal (the user is known from then on).
    ok(await u.get('/users/me'));
    const streamId = await createChannel(owner, 'cache-counts');
    let state = await register(owner);
    expect(sub(state, streamId).subscriber_count).toBe(1);
    expect(group(state, sys['role:members']!).members).toContain(u.userId);

    ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'cache-counts' }], principals: [u.userId] }));
    state = await register(owner);
    expect(sub(state, streamId).subscriber_count).toBe(2);

    ok(await owner.patch(`/users/${u.userId}`, { role: 300 }));
    state = await register(owner);
    expect(group(state, sys['role:moderators']!).members).toContain(u.userId);
    expect(group(state, sys['role:members']!).members).not.toContain(u.userId);
    expect((state.realm_users as Json[]).find((p) => p.user_id === u.userId)).toMatchObject({ role: 300, full_name: 'Cass Cache' });

    ok(await owner.delete(`/users/${u.userId}`));
    state = await register(owner);
    expect(sub(state, streamId).subscriber_count).toBe(1);
    expect(group(state, sys['role:moderators']!).members).not.toContain(u.userId);
    expect((state.realm_users as Json[]).map((p) => p.user_id)).not.toContain(u.userId);
    expect((state.realm_non_active_users as Json[]).map((p) => p.user_id)).toContain(u.userId);
  });

  it('counts as unread only what arrived while subscribed, after leaving and rejoining', async () => {
    const reader = await newUser(subdomain, 'Rhea Reader');
    ok(await reader.get('/users/me'));
    const streamId = await createChannel(owner, 'cache-unreads');
    ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'cache-unreads' }], principals: [reader.userId], send_new_subscription_messages: false }));
    const send = async (content: string) =>
      ok(await owner.post('/messages', { type: 'stream', to: streamId, topic: 'cache', content })).id as number;
    const before = await send('first');
    let state = await register(reader);
    expect(state.unread_msgs.count).toBe(1);

    ok(await reader.delete('/users/me/subscriptions', { subscriptions: ['cache-unreads'] }));
    const missed = await send('while away');
    ok(await reader.post('/users/me/subscriptions', { subscriptions: [{ name: 'cache-unreads' }] }));
    const after = await send('back again');
    state = await register(reader);
    const ids = (state.unread_msgs.streams as Json[]).flatMap((s) => s.unread_message_ids as number[]);
    expect(ids).toEqual([before, after]);
    expect(ids).not.toContain(missed);
  });
});
