// Editing, moving and deleting messages: permissions, history, and the events each causes
// (to the right users only).
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import {
  createChannel,
  events,
  expectError,
  fetchMessages,
  idsIn,
  patchRealm,
  register,
  sendDirect,
  sendToChannel,
  subscribe,
  systemGroupId,
  unsubscribe,
} from '../helpers/messages.js';

let owner: Client;
let bob: Client;
let carol: Client;
let dave: Client;
let guest: Client;
let subdomain: string;
let generalId: number;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('medit'));
  [bob, carol, dave, guest] = await Promise.all([
    newUser(subdomain, 'Bob Builder'),
    newUser(subdomain, 'Carol Cook'),
    newUser(subdomain, 'Dave Diver'),
    newUser(subdomain, 'Gus Guest', 600),
  ]);
  generalId = await createChannel(owner, 'general', {}, [bob.userId!, carol.userId!, guest.userId!]);
});

async function message(client: Client, id: number) {
  const r = await client.get(`/messages/${id}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.message;
}

describe('editing content', () => {
  it('the sender edits; subscribers get update_message with both versions; history is kept', async () => {
    const id = await sendToChannel(bob, 'general', 'edits', 'first version');
    const carolQ = await register(carol, { event_types: ['update_message'] });
    const daveQ = await register(dave, { event_types: ['update_message'] });
    const r = await bob.patch(`/messages/${id}`, { content: 'second version' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [e] = await events(carol, carolQ.queueId, 'update_message');
    expect(e).toMatchObject({
      message_id: id,
      message_ids: [id],
      user_id: bob.userId,
      stream_id: generalId,
      orig_content: 'first version',
      content: 'second version',
      rendered_content: '<p>second version</p>',
      rendering_only: false,
      flags: [],
    });
    expect(await events(dave, daveQ.queueId, 'update_message')).toEqual([]);
    const m = await message(carol, id);
    expect(m.content).toBe('<p>second version</p>');
    expect(m.last_edit_timestamp).toEqual(expect.any(Number));
    expect(m.edit_history).toEqual([expect.objectContaining({ user_id: bob.userId, prev_content: 'first version' })]);
  });

  it('only the sender may edit content, and not after the time limit', async () => {
    const id = await sendToChannel(bob, 'general', 'edits', 'bob wrote this');
    expectError(await owner.patch(`/messages/${id}`, { content: 'owner rewrites' }), 400, 'BAD_REQUEST', "You don't have permission to edit this message");
    expectError(await carol.patch(`/messages/${id}`, { content: 'carol rewrites' }), 400, 'BAD_REQUEST', "You don't have permission to edit this message");
    await patchRealm(owner, { message_content_edit_limit_seconds: 1 });
    await new Promise((r) => setTimeout(r, 1500));
    expectError(await bob.patch(`/messages/${id}`, { content: 'too late' }), 400, 'BAD_REQUEST', 'The time limit for editing this message has passed');
    await patchRealm(owner, { message_content_edit_limit_seconds: 600 });
  });

  it('refuses empty requests and propagate_mode without a topic change', async () => {
    const id = await sendToChannel(bob, 'general', 'edits', 'x');
    expectError(await bob.patch(`/messages/${id}`, {}), 400, 'BAD_REQUEST', 'Nothing to change');
    expectError(await bob.patch(`/messages/${id}`, { propagate_mode: 'change_all' }), 400, 'BAD_REQUEST', 'Invalid propagate_mode without topic edit');
    expectError(await bob.patch(`/messages/${id}`, { topic: 'y', propagate_mode: 'change_some' }), 400, 'BAD_REQUEST');
    expectError(await bob.patch('/messages/999999999', { content: 'x' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  });
});

describe('moving between topics', () => {
  it('change_one, change_later and change_all move the right messages', async () => {
    const t = [];
    for (let i = 0; i < 4; i++) t.push(await sendToChannel(bob, 'general', 'movable', `m${i}`));
    const q = await register(carol, { event_types: ['update_message'] });
    expect((await carol.patch(`/messages/${t[0]}`, { topic: 'one moved', send_notification_to_new_thread: false })).status).toBe(200);
    expect(await idsIn(bob, [['channel', 'general'], ['topic', 'one moved']])).toEqual([t[0]]);
    expect((await carol.patch(`/messages/${t[2]}`, { topic: 'later moved', propagate_mode: 'change_later', send_notification_to_new_thread: false })).status).toBe(200);
    expect(await idsIn(bob, [['channel', 'general'], ['topic', 'later moved']])).toEqual([t[2], t[3]]);
    expect((await carol.patch(`/messages/${t[3]}`, { topic: 'all moved', propagate_mode: 'change_all', send_notification_to_new_thread: false })).status).toBe(200);
    expect(await idsIn(bob, [['channel', 'general'], ['topic', 'all moved']])).toEqual([t[2], t[3]]);
    expect(await idsIn(bob, [['channel', 'general'], ['topic', 'movable']])).toEqual([t[1]]);
    const evs = await events(carol, q.queueId, 'update_message');
    expect(evs[1]).toMatchObject({ orig_subject: 'movable', subject: 'later moved', propagate_mode: 'change_later', message_ids: [t[2], t[3]] });
    const m = await message(bob, t[0]!);
    expect(m.last_moved_timestamp).toEqual(expect.any(Number));
    expect(m.edit_history[0]).toMatchObject({ prev_topic: 'movable', topic: 'one moved', user_id: carol.userId });
    const topics = await bob.get(`/users/me/${generalId}/topics`);
    expect(topics.body.topics.map((x: { name: string }) => x.name)).toContain('all moved');
  });

  it('needs can_move_messages_between_topics_group; resolving needs can_resolve_topics_group', async () => {
    const id = await sendToChannel(bob, 'general', 'locked', 'x');
    await patchRealm(owner, { can_move_messages_between_topics_group: { new: await systemGroupId(owner, 'role:administrators') } });
    expectError(await carol.patch(`/messages/${id}`, { topic: 'elsewhere' }), 400, 'BAD_REQUEST', "You don't have permission to edit this message");
    // Resolving is a separate permission (everyone by default) and is not a move.
    expect((await carol.patch(`/messages/${id}`, { topic: '✔ locked' })).status).toBe(200);
    expect((await message(bob, id)).last_moved_timestamp).toBeUndefined();
    expect((await owner.patch(`/messages/${id}`, { topic: 'elsewhere' })).status).toBe(200);
    await patchRealm(owner, { can_move_messages_between_topics_group: { new: await systemGroupId(owner, 'role:everyone') } });
  });

  it('direct messages have no topics and cannot be moved to channels', async () => {
    const dm = await sendDirect(bob, [carol.userId!], 'dm');
    expectError(await bob.patch(`/messages/${dm}`, { topic: 'x' }), 400, 'BAD_REQUEST', 'Direct messages cannot have topics.');
    expectError(await bob.patch(`/messages/${dm}`, { stream_id: generalId }), 400, 'BAD_REQUEST', 'Direct messages cannot be moved to channels.');
  });
});

describe('moving between channels', () => {
  it('needs the permission and access to the destination, which is checked in the realm', async () => {
    const id = await sendToChannel(bob, 'general', 'traveller', 'x');
    const secretId = await createChannel(owner, 'secret-dest', { invite_only: true });
    expectError(await bob.patch(`/messages/${id}`, { stream_id: secretId }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await bob.patch(`/messages/${id}`, { stream_id: 999999 }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    const { owner: other } = await newRealm('meditx');
    const foreign = await createChannel(other, 'foreign');
    expectError(await bob.patch(`/messages/${id}`, { stream_id: foreign }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    const dest = await createChannel(owner, 'destination', {}, [bob.userId!, guest.userId!]);
    expectError(await guest.patch(`/messages/${id}`, { stream_id: dest }), 400, 'BAD_REQUEST', "You don't have permission to move this message");
    expectError(await bob.patch(`/messages/${id}`, { stream_id: dest, content: 'y' }), 400, 'BAD_REQUEST', 'Cannot change message content while changing channel');
    const r = await bob.patch(`/messages/${id}`, { stream_id: dest, topic: 'arrived' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await message(bob, id)).toMatchObject({ stream_id: dest, display_recipient: 'destination', subject: 'arrived' });
  });

  it('a message moved into a private channel is gone for those without access (CVE-2024-27286)', async () => {
    const id = await sendToChannel(bob, 'general', 'leak', 'sensitive words here');
    const privateId = await createChannel(owner, 'inner', { invite_only: true }, [bob.userId!]);
    // A flags row of Carol's (a star) must not keep the message readable for her.
    expect((await carol.post('/messages/flags', { messages: [id], op: 'add', flag: 'starred' })).status).toBe(200);
    const carolQ = await register(carol, { event_types: ['delete_message', 'update_message'] });
    const bulk = await register(carol, { event_types: ['delete_message'], client_capabilities: { bulk_message_deletion: true } });
    const bobQ = await register(bob, { event_types: ['update_message', 'delete_message'] });
    const r = await owner.patch(`/messages/${id}`, { stream_id: privateId });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expectError(await carol.get(`/messages/${id}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expect(await idsIn(carol, [{ operator: 'search', operand: 'sensitive' }])).toEqual([]);
    expect(await idsIn(carol, [])).not.toContain(id);
    expect(await idsIn(carol, [{ operator: 'channels', operand: 'public' }])).not.toContain(id);
    expect(await idsIn(carol, [{ operator: 'is', operand: 'starred' }])).not.toContain(id);
    expect((await register(carol, { fetch_event_types: ['starred_messages'] })).body.starred_messages).not.toContain(id);
    expect(await events(carol, carolQ.queueId)).toEqual([expect.objectContaining({ type: 'delete_message', message_id: id, message_type: 'stream' })]);
    expect(await events(carol, bulk.queueId)).toEqual([expect.objectContaining({ type: 'delete_message', message_ids: [id] })]);
    // Bob is in the private channel: he keeps it and hears of the move.
    expect((await carol.get(`/messages/${id}`)).status).toBe(400);
    expect((await bob.get(`/messages/${id}`)).status).toBe(200);
    expect(await events(bob, bobQ.queueId)).toEqual([expect.objectContaining({ type: 'update_message', new_stream_id: privateId, stream_id: generalId })]);
  });
});

describe('protected history', () => {
  it('edit events go only to those who can read the message (CVE-2022-31017)', async () => {
    await createChannel(owner, 'protected', { invite_only: true, history_public_to_subscribers: false }, [bob.userId!]);
    const id = await sendToChannel(bob, 'protected', 't', 'before carol joined');
    await subscribe(owner, 'protected', [carol.userId!]);
    const carolQ = await register(carol, { event_types: ['update_message', 'reaction'] });
    const ownerQ = await register(owner, { event_types: ['update_message'] });
    expect((await bob.patch(`/messages/${id}`, { content: 'edited secret' })).status).toBe(200);
    expect((await bob.post(`/messages/${id}/reactions`, { emoji_name: 'smile' })).status).toBe(200);
    expect(await events(carol, carolQ.queueId)).toEqual([]);
    expect(await events(owner, ownerQ.queueId, 'update_message')).toHaveLength(1);
  });

  it('former subscribers cannot edit or delete there (CVE-2023-32678)', async () => {
    await createChannel(owner, 'club', { invite_only: true }, [dave.userId!]);
    const id = await sendToChannel(dave, 'club', 'mine', 'dave wrote this');
    expect((await dave.get(`/messages/${id}`)).status).toBe(200);
    await unsubscribe(owner, 'club', [dave.userId!]);
    expectError(await dave.patch(`/messages/${id}`, { content: 'changed' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expectError(await dave.patch(`/messages/${id}`, { topic: 'moved' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expectError(await dave.delete(`/messages/${id}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expect((await owner.get(`/messages/${id}`)).body.message.content).toBe('<p>dave wrote this</p>');
  });
});

describe('deleting', () => {
  it('the sender may delete their own message; events go to its readers', async () => {
    const id = await sendToChannel(bob, 'general', 'deletions', 'regret');
    const carolQ = await register(carol, { event_types: ['delete_message'] });
    const daveQ = await register(dave, { event_types: ['delete_message'] });
    expect((await bob.delete(`/messages/${id}`)).status).toBe(200);
    expect(await events(carol, carolQ.queueId)).toEqual([expect.objectContaining({ message_id: id, message_type: 'stream', stream_id: generalId, topic: 'deletions' })]);
    expect(await events(dave, daveQ.queueId)).toEqual([]);
    expectError(await bob.get(`/messages/${id}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expectError(await bob.delete(`/messages/${id}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
  });

  it("others' messages need the organization's can_delete_any_message_group", async () => {
    const id = await sendToChannel(bob, 'general', 'deletions', 'bob says');
    expectError(await carol.delete(`/messages/${id}`), 400, 'BAD_REQUEST', "You don't have permission to delete this message");
    expect((await owner.delete(`/messages/${id}`)).status).toBe(200);
  });

  it('own messages need can_delete_own_message_group', async () => {
    const id = await sendToChannel(bob, 'general', 'deletions', 'stays');
    await patchRealm(owner, { can_delete_own_message_group: { new: await systemGroupId(owner, 'role:administrators') } });
    expectError(await bob.delete(`/messages/${id}`), 400, 'BAD_REQUEST', "You don't have permission to delete this message");
    await patchRealm(owner, { can_delete_own_message_group: { new: await systemGroupId(owner, 'role:everyone') } });
    expect((await bob.delete(`/messages/${id}`)).status).toBe(200);
    const body = await fetchMessages(bob, { narrow: [['topic', 'deletions']] });
    expect(body.messages.map((m: { id: number }) => m.id)).not.toContain(id);
  });
});
