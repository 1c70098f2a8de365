// Push notifications end to end: a server of our own with PUSH_RELAY_URL pointing at a fake
// relay, once with in-process jobs and once with BullMQ on Redis. Direct messages and mentions
// to users with push devices reach the relay once each, with Zulip's payload; users' settings,
// muting and presence decide who gets one; a failing relay gets the notification on a later try.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser } from '../helpers/client.js';
import { FakeRelay } from './jobs-helpers.js';
import { OwnClient, redisKeys, startOwnServer, until, type OwnServer } from '../helpers/ownServer.js';

const E2EE = {
  token_kind: 'fcm',
  push_public_key: Buffer.from('client public key of 32 bytes!!!').toString('base64'),
  bouncer_public_key: Buffer.from('relay public key').toString('base64'),
  encrypted_push_registration: Buffer.from('{"token":"opaque ciphertext"}').toString('base64'),
};

describe.each([
  { mode: 'in-process jobs', redis: false },
  { mode: 'BullMQ jobs', redis: true },
])('push notifications with $mode', ({ redis }) => {
  let relay: FakeRelay;
  let server: OwnServer;
  let subdomain: string;
  let owner: OwnClient;
  let rita: OwnClient;
  let nora: OwnClient;
  let streamId: number;
  const stream = 'push-test';

  async function registerE2ee(c: OwnClient, accountId: number): Promise<void> {
    await c.ok('POST', '/mobile_push/register', { ...E2EE, push_account_id: accountId });
  }

  async function send(from: OwnClient, params: Record<string, unknown>): Promise<number> {
    const body = await from.ok('POST', '/messages', params);
    return body.id as number;
  }
  const dm = (from: OwnClient, to: OwnClient[], content: string) => send(from, { type: 'direct', to: to.map((u) => u.userId), content });
  const toChannel = (from: OwnClient, topic: string, content: string) => send(from, { type: 'stream', to: stream, topic, content });

  /** Waits until the relay delivered a notification of this message (and a little longer, for duplicates). */
  async function delivered(messageId: number, count = 1) {
    await until(() => relay.about(messageId).length >= count, `push of message ${messageId}`);
    await new Promise((r) => setTimeout(r, 150));
    return relay.about(messageId);
  }

  /**
   * Asserts that these messages caused no push: a direct message sent after them is delivered
   * first (jobs run concurrently, so a little time is left for stragglers too).
   */
  async function expectNoPush(messageIds: number[]): Promise<void> {
    const sentinel = await dm(owner, [rita], 'sentinel');
    await delivered(sentinel);
    await new Promise((r) => setTimeout(r, 300));
    for (const id of messageIds) expect(relay.about(id, false), `message ${id}`).toEqual([]);
  }

  beforeAll(async () => {
    relay = await FakeRelay.start();
    const relayUrl = new URL(relay.url);
    relayUrl.username = 'relay-user';
    relayUrl.password = 'relay-secret';
    relayUrl.pathname = '/relay-base/';
    server = await startOwnServer({ PUSH_RELAY_URL: relayUrl.toString() }, redis);
    const realm = await newRealm('push');
    subdomain = realm.subdomain;
    owner = new OwnClient(server.port, realm.owner);
    rita = new OwnClient(server.port, await newUser(subdomain, 'Rita Recipient'));
    nora = new OwnClient(server.port, await newUser(subdomain, 'Nora Nodevice'));
    await registerE2ee(rita, 7);
    await rita.ok('POST', '/users/me/apns_device_token', { token: 'abcdef0123', appid: 'org.zulip.Zulip' });
    // The sender has a device too: nobody is notified of their own message.
    await registerE2ee(owner, 1);
    await owner.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name: stream }], principals: [owner.userId, rita.userId, nora.userId] });
    streamId = (await owner.ok('GET', '/get_stream_id', { stream })).stream_id as number;
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await relay?.close();
  });

  it('sends a direct message to the relay once, with the payload and every device of the recipient', async () => {
    const before = Math.floor(Date.now() / 1000);
    const id = await dm(owner, [rita], 'Hello **Rita** & friends');
    const [req, ...more] = await delivered(id);
    expect(more).toEqual([]);
    expect(req!.method).toBe('POST');
    expect(req!.path).toBe('/relay-base/api/v1/remotes/push/notify');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers.authorization).toBe('Basic ' + Buffer.from('relay-user:relay-secret').toString('base64'));
    const url = `http://${subdomain}.localhost:${server.port}`;
    expect(req!.body.realm_url).toBe(url);
    expect(req!.body.user_id).toBe(rita.userId);
    expect(req!.body.devices).toEqual([
      { type: 'e2ee', token_kind: 'fcm', push_account_id: 7, push_public_key: E2EE.push_public_key, bouncer_public_key: E2EE.bouncer_public_key, encrypted_push_registration: E2EE.encrypted_push_registration },
      { type: 'legacy', token_kind: 'apns', token: 'abcdef0123', ios_app_id: 'org.zulip.Zulip' },
    ]);
    const payload = req!.body.payload;
    expect(payload).toEqual({
      event: 'message',
      server: `localhost:${server.port}`,
      realm_id: expect.any(Number),
      realm_name: `Realm ${subdomain}`,
      realm_uri: url,
      realm_url: url,
      user_id: rita.userId,
      sender_id: owner.userId,
      sender_email: owner.user.email,
      sender_full_name: 'Olivia Owner',
      zulip_message_id: id,
      recipient_type: 'private',
      content: 'Hello Rita & friends',
      content_truncated: false,
      time: expect.any(Number),
      trigger: 'direct_message',
    });
    expect(payload.time).toBeGreaterThanOrEqual(before - 1);
    expect(payload.time).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 1);
    // The job went through the runner this server was configured with.
    const queueKeys = (await redisKeys(`${server.prefix}jobs:`)).length;
    if (redis) expect(queueKeys).toBeGreaterThan(0);
    else expect(queueKeys).toBe(0);
  });

  it('names every participant of a group direct message; users without devices get nothing', async () => {
    const id = await dm(owner, [rita, nora], 'hi both');
    const [req, ...more] = await delivered(id);
    expect(more).toEqual([]);
    expect(req!.body.user_id).toBe(rita.userId);
    const ids = [owner.userId, rita.userId, nora.userId].sort((a, b) => a - b);
    expect(req!.body.payload).toMatchObject({ recipient_type: 'private', pm_users: ids.join(','), trigger: 'direct_message' });
  });

  it('sends personal, group and wildcard mentions in a channel, once each', async () => {
    const long = 'word '.repeat(60);
    const personal = await toChannel(owner, 'mentions', `@**Rita Recipient** look: ${long}`);
    const [p, ...pMore] = await delivered(personal);
    expect(pMore).toEqual([]);
    expect(p!.body.payload).toMatchObject({
      recipient_type: 'stream', stream, stream_id: streamId, topic: 'mentions', trigger: 'mentioned', content_truncated: true, user_id: rita.userId,
    });
    expect([...p!.body.payload.content]).toHaveLength(201);
    expect(p!.body.payload.content.startsWith('@Rita Recipient look: word word')).toBe(true);
    expect(p!.body.payload.content.endsWith('…')).toBe(true);

    await owner.ok('POST', '/user_groups/create', { name: 'pushers', description: 'people with phones', members: [rita.userId] });
    const group = await toChannel(owner, 'group', 'ping @*pushers*');
    const [g, ...gMore] = await delivered(group);
    expect(gMore).toEqual([]);
    expect(g!.body.payload).toMatchObject({ topic: 'group', trigger: 'mentioned', content: 'ping @pushers', user_id: rita.userId });

    const wildcard = await toChannel(owner, 'wildcard', 'attention @**all**');
    const [w, ...wMore] = await delivered(wildcard);
    expect(wMore).toEqual([]);
    expect(w!.body.payload).toMatchObject({ topic: 'wildcard', trigger: 'stream_wildcard_mentioned', user_id: rita.userId });
  });

  it('sends nothing for a channel message without a mention, nor to the sender or users without devices', async () => {
    const plain = await toChannel(owner, 'plain talk', 'just chatting');
    const toNora = await dm(owner, [nora], 'no phone here');
    const fromRita = await dm(rita, [owner], 'reply to the owner');
    const fromRitaDelivered = await delivered(fromRita);
    // The owner has a device: they are the recipient here, and get it.
    expect(fromRitaDelivered.map((r) => r.body.user_id)).toEqual([owner.userId]);
    await expectNoPush([plain, toNora]);
  });

  it('follows the settings: muted channels silence wildcards but not personal mentions; DMs need offline push', async () => {
    const mia = new OwnClient(server.port, await newUser(subdomain, 'Mia Muted'));
    await registerE2ee(mia, 3);
    await owner.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name: stream }], principals: [mia.userId] });
    await mia.ok('POST', '/users/me/subscriptions/properties', { subscription_data: [{ stream_id: streamId, property: 'is_muted', value: true }] });
    const wildcard = await toChannel(owner, 'muted wildcard', '@**all** anyone?');
    const personal = await toChannel(owner, 'muted mention', '@**Mia Muted** you?');
    const got = await delivered(personal);
    expect(got.filter((r) => r.body.user_id === mia.userId).map((r) => r.body.payload.trigger)).toEqual(['mentioned']);
    await expectNoPush([]);
    expect(relay.about(wildcard).map((r) => r.body.user_id)).toEqual([rita.userId]);

    // Per-channel push on: every message of the (unmuted) channel is pushed.
    await mia.ok('POST', '/users/me/subscriptions/properties', {
      subscription_data: [
        { stream_id: streamId, property: 'is_muted', value: false },
        { stream_id: streamId, property: 'push_notifications', value: true },
      ],
    });
    const chatter = await toChannel(owner, 'chatter', 'nothing special');
    expect((await delivered(chatter)).map((r) => [r.body.user_id, r.body.payload.trigger])).toEqual([[mia.userId, 'stream_push_notify']]);

    await mia.ok('PATCH', '/settings', { enable_offline_push_notifications: false });
    const quiet = await dm(owner, [mia], 'will you hear this?');
    await expectNoPush([quiet]);
  });

  it('pushes to an active user only when online push is on; once no client receives messages, the user counts as away', async () => {
    const otto = new OwnClient(server.port, await newUser(subdomain, 'Otto Online'));
    await registerE2ee(otto, 4);
    await otto.ok('PATCH', '/settings', { enable_online_push_notifications: false });
    const queue = await otto.ok('POST', '/register', { event_types: ['message'] });
    await otto.ok('POST', '/users/me/presence', { status: 'active' });
    const whileActive = await dm(owner, [otto], 'you are here');
    await expectNoPush([whileActive]);

    await otto.ok('DELETE', '/events', { queue_id: queue.queue_id });
    const whileAway = await dm(owner, [otto], 'you left');
    expect((await delivered(whileAway)).map((r) => r.body.user_id)).toEqual([otto.userId]);
  });

  it('retries a failing relay: two failures, then the third try delivers', async () => {
    relay.failNext(2);
    const id = await dm(owner, [rita], 'third time lucky');
    const ok = await delivered(id);
    expect(ok).toHaveLength(1);
    const tries = relay.about(id, false);
    expect(tries.map((r) => r.status)).toEqual([503, 503, 200]);
    // Exponential backoff: about 1 s, then about 2 s.
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(900);
    expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(1900);
  }, 20_000);

  it('pushes nothing of a message from a user the recipient muted', async () => {
    await rita.ok('POST', `/users/me/muted_users/${nora.userId}`);
    const muted = await dm(nora, [rita], 'you muted me');
    await expectNoPush([muted]);
    await rita.ok('DELETE', `/users/me/muted_users/${nora.userId}`);
    const unmuted = await dm(nora, [rita], 'not muted any more');
    expect((await delivered(unmuted)).map((r) => r.body.user_id)).toEqual([rita.userId]);
  });

  it('sends a test notification to one device by its token, or to every device of the user', async () => {
    const tests = (userId: number) => relay.requests.filter((r) => r.status === 200 && r.body.payload?.event === 'test' && r.body.user_id === userId);
    await rita.ok('POST', '/mobile_push/test_notification', { token: 'abcdef0123' });
    await until(() => tests(rita.userId).length === 1, 'test notification to one device');
    const [one] = tests(rita.userId);
    const url = `http://${subdomain}.localhost:${server.port}`;
    expect(one!.body.payload).toEqual({
      event: 'test', server: `localhost:${server.port}`, realm_id: expect.any(Number), realm_name: `Realm ${subdomain}`,
      realm_uri: url, realm_url: url, user_id: rita.userId,
    });
    expect(one!.body.devices).toEqual([{ type: 'legacy', token_kind: 'apns', token: 'abcdef0123', ios_app_id: 'org.zulip.Zulip' }]);
    await rita.ok('POST', '/mobile_push/test_notification');
    await until(() => tests(rita.userId).length === 2, 'test notification to every device');
    expect(tests(rita.userId)[1]!.body.devices.map((d: { type: string }) => d.type)).toEqual(['e2ee', 'legacy']);

    const unknown = await rita.post('/mobile_push/test_notification', { token: 'not-a-token-of-hers' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ result: 'error', code: 'INVALID_PUSH_DEVICE_TOKEN', msg: 'Device not recognized' });
    // Another user's token is not recognized either.
    expect((await nora.post('/mobile_push/test_notification', { token: 'abcdef0123' })).body.code).toBe('INVALID_PUSH_DEVICE_TOKEN');
    // A user without devices: nothing to send to, and nothing sent.
    await nora.ok('POST', '/mobile_push/test_notification');
    const sentinel = await dm(owner, [rita], 'after the tests');
    await delivered(sentinel);
    expect(tests(nora.userId)).toEqual([]);
    expect(tests(rita.userId)).toHaveLength(2);
  });
});
