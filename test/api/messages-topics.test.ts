// Topics of a channel (GET /users/me/{stream_id}/topics) and topic visibility policies.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, events, expectError, register, sendToChannel, subscribe, unsubscribe } from '../helpers/messages.js';

let owner: Client;
let bob: Client;
let carol: Client;
let subdomain: string;
let generalId: number;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('mtopics'));
  [bob, carol] = await Promise.all([newUser(subdomain, 'Bob Builder'), newUser(subdomain, 'Carol Cook')]);
  generalId = await createChannel(owner, 'general', {}, [bob.userId!]);
});

describe('listing topics', () => {
  it('most recent first, with the empty topic under its display name unless asked', async () => {
    const a = await sendToChannel(owner, 'general', 'alpha', '1');
    await sendToChannel(owner, 'general', '', '2');
    const b = await sendToChannel(owner, 'general', 'beta', '3');
    const a2 = await sendToChannel(owner, 'general', 'ALPHA', '4');
    const r = await bob.get(`/users/me/${generalId}/topics`);
    expect(r.status).toBe(200);
    expect(r.body.topics[0]).toEqual({ name: 'ALPHA', max_id: a2 });
    expect(r.body.topics[1]).toEqual({ name: 'beta', max_id: b });
    expect(r.body.topics[2].name).toBe('general chat');
    expect(a).toBeLessThan(a2);
    const raw = await bob.get(`/users/me/${generalId}/topics`, { allow_empty_topic_name: true });
    expect(raw.body.topics[2].name).toBe('');
  });

  it('shows only messages a protected-history subscriber received, and refuses inaccessible channels', async () => {
    const vault = await createChannel(owner, 'vault', { invite_only: true, history_public_to_subscribers: false });
    await sendToChannel(owner, 'vault', 'before', 'x');
    await subscribe(owner, 'vault', [carol.userId!]);
    const during = await sendToChannel(owner, 'vault', 'during', 'y');
    expect((await carol.get(`/users/me/${vault}/topics`)).body.topics).toEqual([{ name: 'during', max_id: during }]);
    expect((await owner.get(`/users/me/${vault}/topics`)).body.topics.map((t: { name: string }) => t.name)).toEqual(['during', 'before']);
    expectError(await bob.get(`/users/me/${vault}/topics`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await bob.get('/users/me/999999/topics'), 400, 'BAD_REQUEST', 'Invalid channel ID');
    await unsubscribe(owner, 'vault', [carol.userId!]);
    expectError(await carol.get(`/users/me/${vault}/topics`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  });
});

describe('topic visibility policies', () => {
  it('POST /user_topics sets and clears a policy with user_topic events', async () => {
    const q = await register(bob, { event_types: ['user_topic'] });
    const other = await register(carol, { event_types: ['user_topic'] });
    expect((await bob.post('/user_topics', { stream_id: generalId, topic: 'alpha', visibility_policy: 1 })).status).toBe(200);
    expect((await bob.post('/user_topics', { stream_id: generalId, topic: 'beta', visibility_policy: 3 })).status).toBe(200);
    const reg = await register(bob, { fetch_event_types: ['user_topic'] });
    expect(reg.body.user_topics).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ stream_id: generalId, topic_name: 'alpha', visibility_policy: 1 }),
        expect.objectContaining({ stream_id: generalId, topic_name: 'beta', visibility_policy: 3 }),
      ]),
    );
    expect((await bob.post('/user_topics', { stream_id: generalId, topic: 'alpha', visibility_policy: 0 })).status).toBe(200);
    const evs = await events(bob, q.queueId, 'user_topic');
    expect(evs.map((e) => [e.topic_name, e.visibility_policy])).toEqual([['alpha', 1], ['beta', 3], ['alpha', 0]]);
    expect(evs[0]!.last_updated).toEqual(expect.any(Number));
    expect(await events(carol, other.queueId, 'user_topic')).toEqual([]);
    // Legacy form of the same data.
    const legacy = await register(bob, { fetch_event_types: ['muted_topics'] });
    expect(legacy.body.muted_topics).toEqual([]);
  });

  it('refuses bad policies and channels the user cannot access', async () => {
    expectError(await bob.post('/user_topics', { stream_id: generalId, topic: 't', visibility_policy: 7 }), 400, 'BAD_REQUEST', 'Invalid visibility_policy');
    const hidden = await createChannel(owner, 'hidden', { invite_only: true });
    expectError(await bob.post('/user_topics', { stream_id: hidden, topic: 't', visibility_policy: 1 }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await bob.post('/user_topics', { stream_id: 999999, topic: 't', visibility_policy: 1 }), 400, 'BAD_REQUEST', 'Invalid channel ID');
  });

  it('is:followed and is:muted narrows follow the policies', async () => {
    const followed = await sendToChannel(owner, 'general', 'follow me', 'x');
    const muted = await sendToChannel(owner, 'general', 'mute me', 'y');
    await bob.post('/user_topics', { stream_id: generalId, topic: 'follow me', visibility_policy: 3 });
    await bob.post('/user_topics', { stream_id: generalId, topic: 'mute me', visibility_policy: 1 });
    const get = (narrow: unknown[]) => bob.get('/messages', { anchor: 'newest', num_before: 100, narrow });
    const followedIds = (await get([['is', 'followed']])).body.messages.map((m: { id: number }) => m.id);
    expect(followedIds).toContain(followed);
    expect(followedIds).not.toContain(muted);
    expect((await get([['is', 'muted']])).body.messages.map((m: { id: number }) => m.id)).toEqual([muted]);
    expect((await get([['in', 'home']])).body.messages.map((m: { id: number }) => m.id)).not.toContain(muted);
  });

  it('the legacy muted_topics endpoint mutes and unmutes', async () => {
    expect((await bob.patch('/users/me/subscriptions/muted_topics', { stream: 'general', topic: 'legacy', op: 'add' })).status).toBe(200);
    expectError(await bob.patch('/users/me/subscriptions/muted_topics', { stream_id: generalId, topic: 'legacy', op: 'add' }), 400, 'BAD_REQUEST', 'Topic already muted');
    const reg = await register(bob, { fetch_event_types: ['muted_topics'] });
    expect(reg.body.muted_topics).toEqual(expect.arrayContaining([['general', 'legacy', expect.any(Number)]]));
    expect((await bob.patch('/users/me/subscriptions/muted_topics', { stream_id: generalId, topic: 'legacy', op: 'remove' })).status).toBe(200);
    expectError(await bob.patch('/users/me/subscriptions/muted_topics', { stream_id: generalId, topic: 'legacy', op: 'remove' }), 400, 'BAD_REQUEST', 'Topic is not muted');
  });
});
