// zulip-js, the official JavaScript client, unmodified from npm, against this server: it sends
// multipart bodies and JSON-encoded lists, and must be able to do a user's everyday work.
import { beforeAll, describe, expect, it } from 'vitest';
import zulipInit from 'zulip-js';
import { admin, httpRequest, port } from '../helpers/client.js';
import { until } from '../helpers/ownServer.js';
import { expectBody } from '../helpers/responses/index.js';

// zulip-js addresses the server by URL; 127.0.0.1 does not match EXTERNAL_HOST, so the
// requests land in the root realm, which this file creates unless another file did.
async function rootRealmUser(): Promise<{ email: string; api_key: string; user_id: number }> {
  try {
    await admin(['create-realm', '--subdomain', '', '--name', 'Root', '--owner-email', 'root-owner@example.test', '--owner-password', 'owner-password-1']);
  } catch {
    // Already created by another test file: fine.
  }
  const email = `zulipjs-${process.pid}-${Date.now()}@example.test`;
  return admin(['create-user', '--realm', '', '--email', email, '--password', 'user-password-1', '--full-name', 'Js Client']);
}

describe('zulip-js', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let z: any;
  const channel = `zulip-js ${Date.now()}`;

  beforeAll(async () => {
    const user = await rootRealmUser();
    z = await zulipInit({ username: user.email, apiKey: user.api_key, realm: `http://127.0.0.1:${port()}` });
  });

  it('reads the current user', async () => {
    const me = await z.users.me.getProfile();
    expect(me.result).toBe('success');
    expect(me.full_name).toBe('Js Client');
  });

  it('creates a channel, sends, fetches, reacts and lists topics', async () => {
    const sub = await z.users.me.subscriptions.add({ subscriptions: JSON.stringify([{ name: channel }]) });
    expect(sub.result).toBe('success');

    const { stream_id: streamId } = await z.streams.getStreamId(channel);
    expect(typeof streamId).toBe('number');

    const sent = await z.messages.send({ to: channel, type: 'stream', topic: 'greetings', content: 'Hello **world**' });
    expect(sent.result).toBe('success');
    expect(typeof sent.id).toBe('number');

    const fetched = await z.messages.retrieve({
      anchor: 'newest',
      num_before: 10,
      num_after: 0,
      narrow: [{ operator: 'channel', operand: channel }],
    });
    expect(fetched.result).toBe('success');
    const msg = fetched.messages.find((m: { id: number }) => m.id === sent.id);
    expect(msg).toMatchObject({ subject: 'greetings', content: '<p>Hello <strong>world</strong></p>', type: 'stream', stream_id: streamId });

    const reacted = await z.reactions.add({ message_id: sent.id, emoji_name: 'octopus' });
    expect(reacted.result).toBe('success');
    const again = await z.messages.retrieve({ anchor: sent.id, num_before: 0, num_after: 0 });
    expect(again.messages[0].reactions).toEqual([
      expect.objectContaining({ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' }),
    ]);

    const topics = await z.streams.topics.retrieve({ stream_id: streamId });
    expect(topics.result).toBe('success');
    expect(topics.topics).toEqual([expect.objectContaining({ name: 'greetings', max_id: sent.id })]);
  });

  it('registers a queue and receives its own message as an event', async () => {
    const queue = await z.queues.register({ event_types: ['message'] });
    expect(queue.result).toBe('success');
    const sent = await z.messages.send({ to: channel, type: 'stream', topic: 'events', content: 'ping' });
    const events = await z.events.retrieve({ queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
    expect(events.result).toBe('success');
    expect(events.events).toEqual([expect.objectContaining({ type: 'message', message: expect.objectContaining({ id: sent.id }) })]);
  });
});

// Every zulip-js call whose endpoint this server serves, each answer checked against the
// response-schema registry where it has one. Not served, so not called: `users.me.pointer`
// (removed from Zulip long before our feature level); see README.
describe('zulip-js, every wrapped endpoint we serve', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let z: any;
  let user: { email: string; api_key: string; user_id: number };
  let other: { user_id: number };
  const channel = `zulip-js all ${Date.now()}`;

  beforeAll(async () => {
    user = (await rootRealmUser()) as typeof user;
    other = (await rootRealmUser()) as typeof other;
    // Users made by the admin CLI reach a running server through its change feed, which it
    // polls: wait until the second one is known before naming it as a recipient.
    const authorization = 'Basic ' + Buffer.from(`${user.email}:${user.api_key}`).toString('base64');
    await until(async () => (await httpRequest(port(), { method: 'GET', path: `/api/v1/users/${other.user_id}`, headers: { Authorization: authorization } })).status === 200, 'the server knows the second user');
    // With a password, zulip-js fetches the API key itself (accounts.retrieve).
    z = await zulipInit({ username: user.email, password: 'user-password-1', realm: `http://127.0.0.1:${port()}` });
  });

  it('accounts, server settings, users', async () => {
    expect(z.config.apiKey).toBe(user.api_key);
    expect(await z.accounts.retrieve()).toMatchObject({ result: 'success', api_key: user.api_key, email: user.email });
    expectBody('GET /server_settings', await z.server.settings());
    const me = expectBody('GET /users/me', await z.users.me.getProfile());
    expect(me).not.toHaveProperty('bot_type');
    expectBody('GET /users', await z.users.retrieve());
    expectBody('GET /realm/emoji', await z.emojis.retrieve());
    // Creating users needs an administrator with that permission: Zulip's error, through the client.
    expect(await z.users.create({ email: 'new@example.test', password: 'password-123', full_name: 'New' })).toMatchObject({
      result: 'error', code: 'UNAUTHORIZED_PRINCIPAL',
    });
    expect(await z.users.me.alertWords.retrieve()).toEqual({ result: 'success', msg: '', alert_words: [] });
  });

  it('channels and subscriptions', async () => {
    expect((await z.users.me.subscriptions.add({ subscriptions: JSON.stringify([{ name: channel }]) })).result).toBe('success');
    const { stream_id: streamId } = await z.streams.getStreamId(channel);
    const streams = expectBody('GET /streams', await z.streams.retrieve());
    expect(streams.streams.map((s: { stream_id: number }) => s.stream_id)).toContain(streamId);
    const subs = expectBody('GET /users/me/subscriptions', await z.streams.subscriptions.retrieve());
    expect(subs.subscriptions.map((s: { stream_id: number }) => s.stream_id)).toContain(streamId);
    expect((await z.users.me.subscriptions.remove({ subscriptions: JSON.stringify([channel]) })).result).toBe('success');
    expect((await z.users.me.subscriptions.add({ subscriptions: JSON.stringify([{ name: channel }]) })).result).toBe('success');
  });

  it('messages: send, render, fetch one, edit, edit history, flags, reactions, topics, delete', async () => {
    const { stream_id: streamId } = await z.streams.getStreamId(channel);
    const rendered = await z.messages.render('**bold**');
    expect(rendered).toMatchObject({ result: 'success', rendered: '<p><strong>bold</strong></p>' });
    const sent = await z.messages.send({ to: channel, type: 'stream', topic: 'all of it', content: 'first' });
    const one = await z.messages.getById({ message_id: sent.id });
    expect(one).toMatchObject({ result: 'success', message: expect.objectContaining({ id: sent.id, content: '<p>first</p>' }) });
    expect((await z.messages.update({ message_id: sent.id, content: 'edited' })).result).toBe('success');
    const history = expectBody('GET /messages/{id}/history', await z.messages.getHistoryById({ message_id: sent.id }));
    expect(history.message_history.map((e: { content: string }) => e.content)).toEqual(['first', 'edited']);
    expectBody('GET /messages', await z.messages.retrieve({ anchor: sent.id, num_before: 0, num_after: 0 }));

    expect((await z.messages.flags.add({ flag: 'starred', messages: [sent.id] })).result).toBe('success');
    let fetched = await z.messages.retrieve({ anchor: sent.id, num_before: 0, num_after: 0 });
    expect(fetched.messages[0].flags).toContain('starred');
    expect((await z.messages.flags.remove({ flag: 'starred', messages: [sent.id] })).result).toBe('success');
    fetched = await z.messages.retrieve({ anchor: sent.id, num_before: 0, num_after: 0 });
    expect(fetched.messages[0].flags).not.toContain('starred');

    expect((await z.reactions.add({ message_id: sent.id, emoji_name: 'tada' })).result).toBe('success');
    expect((await z.reactions.remove({ message_id: sent.id, emoji_name: 'tada' })).result).toBe('success');
    expect((await z.reactions.add({ message_id: sent.id, emoji_name: 'tada' })).result).toBe('success');
    expect((await z.messages.deleteReactionById({ message_id: sent.id, emoji_name: 'tada' })).result).toBe('success');
    fetched = await z.messages.retrieve({ anchor: sent.id, num_before: 0, num_after: 0 });
    expect(fetched.messages[0].reactions).toEqual([]);

    const topics = await z.streams.topics.retrieve({ stream_id: streamId });
    expect(topics.topics).toEqual([expect.objectContaining({ name: 'all of it', max_id: sent.id })]);
    const typed = await z.typing.send({ to: [other.user_id, user.user_id], op: 'start' });
    expect(typed.result, JSON.stringify(typed)).toBe('success');
    // One's own message, within the organization's time limit.
    expect((await z.messages.deleteById({ message_id: sent.id })).result).toBe('success');
    expect(await z.messages.getById({ message_id: sent.id })).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'Invalid message(s)' });
  });

  it('queues and events, linkifiers, archiving a channel one created', async () => {
    const queue = expectBody('POST /register', await z.queues.register({ client_capabilities: JSON.stringify({ notification_settings_null: true, user_settings_object: true }) }));
    const events = await z.events.retrieve({ queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
    expect(events).toMatchObject({ result: 'success', events: [] });
    expect((await z.queues.deregister({ queue_id: queue.queue_id })).result).toBe('success');
    expect(await z.events.retrieve({ queue_id: queue.queue_id, last_event_id: -1, dont_block: true })).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID' });
    expect(await z.filters.retrieve()).toMatchObject({ result: 'success', filters: expect.any(Array) });
    const { stream_id: streamId } = await z.streams.getStreamId(channel);
    const archived = await z.streams.deleteById({ stream_id: streamId });
    expect(archived.result, JSON.stringify(archived)).toBe('success');
  });
});
