// zulip-js, the official JavaScript client, unmodified from npm, against this server: it sends
// multipart bodies and JSON-encoded lists, and must be able to do a user's everyday work.
import { beforeAll, describe, expect, it } from 'vitest';
import zulipInit from 'zulip-js';
import { admin, port } from '../helpers/client.js';

// zulip-js addresses the server by URL; 127.0.0.1 does not match EXTERNAL_HOST, so the
// requests land in the root realm, which this file creates unless another file did.
async function rootRealmUser(): Promise<{ email: string; api_key: string }> {
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
