// Notification Bot: new-channel announcements, "you were subscribed" direct messages, and the
// notices posted when messages move.
import { beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, type Client } from '../helpers/client.js';
import { createChannel, events, fetchMessages, patchRealm, register, sendToChannel } from '../helpers/messages.js';

type Message = { id: number; content: string; sender_id: number; sender_full_name: string; subject: string; type: string; client: string };

async function messagesIn(client: Client, narrow: unknown[]): Promise<Message[]> {
  const body = await fetchMessages(client, { narrow, apply_markdown: false });
  return body.messages as Message[];
}

async function notificationBot(client: Client): Promise<Record<string, unknown> | undefined> {
  const r = await client.get('/users');
  expect(r.status).toBe(200);
  return (r.body.members as Array<Record<string, unknown>>).find((u) => u.full_name === 'Notification Bot');
}

const mention = (name: string, id: number | undefined) => `@_**${name}|${id}**`;

describe('announce on channel creation', () => {
  let owner: Client;
  let announcementsId: number;

  beforeAll(async () => {
    ({ owner } = await newRealm('nba'));
    announcementsId = await createChannel(owner, 'announcements');
  });

  it('posts nothing while the realm has no announcements channel', async () => {
    const r = await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'quiet one' }], announce: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.ignored_parameters_unsupported).toBeUndefined();
    expect(await messagesIn(owner, [{ operator: 'channel', operand: announcementsId }])).toEqual([]);
  });

  it('posts in the announcements channel when asked, as Notification Bot', async () => {
    await patchRealm(owner, { new_stream_announcements_stream_id: announcementsId });
    const reg = await owner.post('/register', { fetch_event_types: ['realm'] });
    expect(reg.body.realm_new_stream_announcements_stream_id).toBe(announcementsId);
    const { queueId } = await register(owner, { event_types: ['realm_user', 'message'] });

    const r = await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'design' }], announce: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const msgs = await messagesIn(owner, [{ operator: 'channel', operand: announcementsId }]);
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.subject).toBe('new channels');
    expect(msgs[0]!.content).toBe(`${mention('Olivia Owner', owner.userId)} created a new channel #**design**.`);
    expect(msgs[0]!.sender_full_name).toBe('Notification Bot');

    const bot = await notificationBot(owner);
    expect(bot).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: null, user_id: msgs[0]!.sender_id });
    // The bot was created for this message: everyone hears of it before its first message.
    const got = await events(owner, queueId);
    expect(got.map((e) => e.type)).toEqual(['realm_user', 'message']);
    expect(got[0]).toMatchObject({ op: 'add', person: { user_id: bot!.user_id, full_name: 'Notification Bot', is_bot: true } });
  });

  it('lists several channels created together', async () => {
    const r = await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'alpha' }, { name: 'beta' }], announce: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const msgs = await messagesIn(owner, [{ operator: 'channel', operand: announcementsId }]);
    expect(msgs.at(-1)!.content).toBe(`${mention('Olivia Owner', owner.userId)} created the following channels: #**alpha**, #**beta**.`);
  });

  it('posts nothing without announce, or when only subscribing', async () => {
    const before = (await messagesIn(owner, [{ operator: 'channel', operand: announcementsId }])).length;
    await createChannel(owner, 'unannounced');
    const again = await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'design' }], announce: true });
    expect(again.status).toBe(200);
    expect(await messagesIn(owner, [{ operator: 'channel', operand: announcementsId }])).toHaveLength(before);
  });

  it('refuses an announcements channel that does not exist', async () => {
    const r = await owner.patch('/realm', { new_stream_announcements_stream_id: 999999 });
    expect(r.status).toBe(400);
    expect(r.body.msg).toBe('Invalid channel ID');
  });
});

describe('direct messages to users someone else subscribed', () => {
  let owner: Client;
  let bob: Client;
  let carol: Client;

  beforeAll(async () => {
    let subdomain: string;
    ({ owner, subdomain } = await newRealm('nbs'));
    bob = await newUser(subdomain, 'Bob Builder');
    carol = await newUser(subdomain, 'Carol Cook');
    await createChannel(owner, 'kitchen');
    await createChannel(owner, 'garden');
  });

  const dmsTo = (client: Client) => messagesIn(client, [{ operator: 'is', operand: 'dm' }]);

  it('tells each user about the existing channels they were added to', async () => {
    const { queueId } = await register(bob, { event_types: ['message'] });
    const r = await owner.post('/users/me/subscriptions', {
      subscriptions: [{ name: 'kitchen' }, { name: 'garden' }],
      principals: [bob.userId],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.new_subscription_messages_sent).toBe(true);
    const dms = await dmsTo(bob);
    expect(dms).toHaveLength(1);
    expect(dms[0]!.sender_full_name).toBe('Notification Bot');
    expect(dms[0]!.content).toBe(`${mention('Olivia Owner', owner.userId)} subscribed you to the following channels:\n\n* #**garden**\n* #**kitchen**`);
    const got = await events(bob, queueId, 'message');
    expect(got.map((e) => e.message.id)).toEqual([dms[0]!.id]);
  });

  it('names a single channel inline', async () => {
    await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'kitchen' }], principals: [carol.userId] });
    const dms = await dmsTo(carol);
    expect(dms.map((m) => m.content)).toEqual([`${mention('Olivia Owner', owner.userId)} subscribed you to #**kitchen**.`]);
  });

  it('sends nothing when send_new_subscription_messages is false', async () => {
    const r = await owner.post('/users/me/subscriptions', {
      subscriptions: [{ name: 'garden' }],
      principals: [carol.userId],
      send_new_subscription_messages: false,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.new_subscription_messages_sent).toBeUndefined();
    expect(r.body.ignored_parameters_unsupported).toBeUndefined();
    expect(await dmsTo(carol)).toHaveLength(1);
  });

  it('sends nothing for channels created by the request, nor to oneself', async () => {
    const before = (await dmsTo(bob)).length;
    await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'brand new' }], principals: [bob.userId, owner.userId] });
    await bob.post('/users/me/subscriptions', { subscriptions: [{ name: 'garden' }, { name: 'kitchen' }] });
    expect(await dmsTo(bob)).toHaveLength(before);
    expect(await dmsTo(owner)).toHaveLength(0);
  });

  it('lists the bot in GET /users once, as a bot without owner', async () => {
    const r = await carol.get('/users');
    const bots = (r.body.members as Array<Record<string, unknown>>).filter((u) => u.full_name === 'Notification Bot');
    expect(bots).toHaveLength(1);
    expect(bots[0]).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: null });
    expect(String(bots[0]!.email)).toMatch(/^notification-bot@/);
  });
});

describe('notices when messages move', () => {
  let owner: Client;
  let channelId: number;
  let otherId: number;

  beforeAll(async () => {
    ({ owner } = await newRealm('nbm'));
    channelId = await createChannel(owner, 'work');
    otherId = await createChannel(owner, 'archive room');
  });

  const topic = (name: string, id = channelId) => messagesIn(owner, [{ operator: 'channel', operand: id }, { operator: 'topic', operand: name }]);

  it('posts in the new thread by default, and in the old one when asked', async () => {
    const first = await sendToChannel(owner, channelId, 'draft', 'one');
    await sendToChannel(owner, channelId, 'draft', 'two');
    const r = await owner.patch(`/messages/${first}`, { topic: 'final', propagate_mode: 'change_all', send_notification_to_old_thread: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const moved = await topic('final');
    expect(moved.map((m) => m.content)).toEqual(['one', 'two', `This topic was moved here from #**work>draft** by ${mention('Olivia Owner', owner.userId)}.`]);
    expect(moved[2]!.sender_full_name).toBe('Notification Bot');
    const old = await topic('draft');
    expect(old.map((m) => m.content)).toEqual([`This topic was moved to #**work>final** by ${mention('Olivia Owner', owner.userId)}.`]);
  });

  it('links the message when one message joins an existing topic', async () => {
    await sendToChannel(owner, channelId, 'target', 'already here');
    const id = await sendToChannel(owner, channelId, 'stray', 'lost');
    await sendToChannel(owner, channelId, 'stray', 'stays');
    const r = await owner.patch(`/messages/${id}`, { topic: 'target', propagate_mode: 'change_one' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const contents = (await topic('target')).map((m) => m.content);
    expect(contents.slice(0, 2)).toEqual(['already here', 'lost']);
    expect(contents[2]).toMatch(/^\[A message\]\(http.*\/#narrow\/channel\/\d+-work\/topic\/target\/near\/\d+\) was moved here from #\*\*work>stray\*\* by @_\*\*Olivia Owner\|\d+\*\*\.$/);
    expect((await topic('stray')).map((m) => m.content)).toEqual(['stays']);
  });

  it('posts nothing when neither notice is asked for', async () => {
    const id = await sendToChannel(owner, channelId, 'silent', 'hush');
    const r = await owner.patch(`/messages/${id}`, {
      topic: 'silent moved',
      propagate_mode: 'change_all',
      send_notification_to_old_thread: false,
      send_notification_to_new_thread: false,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await topic('silent moved')).map((m) => m.content)).toEqual(['hush']);
    expect(await topic('silent')).toEqual([]);
  });

  it('counts the messages when only part of a topic moves to another channel', async () => {
    const a = await sendToChannel(owner, channelId, 'mixed', 'keep');
    const b = await sendToChannel(owner, channelId, 'mixed', 'go 1');
    await sendToChannel(owner, channelId, 'mixed', 'go 2');
    expect(a).toBeLessThan(b);
    const r = await owner.patch(`/messages/${b}`, {
      stream_id: otherId,
      propagate_mode: 'change_later',
      send_notification_to_old_thread: true,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const who = mention('Olivia Owner', owner.userId);
    expect((await topic('mixed', otherId)).map((m) => m.content)).toEqual([
      'go 1',
      'go 2',
      `2 messages were moved here from #**work>mixed** by ${who}.`,
    ]);
    expect((await topic('mixed')).map((m) => m.content)).toEqual(['keep', `2 messages were moved from this topic to #**archive room>mixed** by ${who}.`]);
  });
});
