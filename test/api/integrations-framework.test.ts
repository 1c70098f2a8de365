// The incoming webhook endpoint itself: who may post (Zulip's webhook authentication and its
// errors), where messages go (channel by name or id, topic, the bot's owner), what the owner
// is told when the tool is misconfigured, and what incoming webhook bots may not do.
import { beforeAll, describe, expect, it } from 'vitest';
import { port, rawRequest } from '../helpers/client.js';
import * as gh from '../fixtures/webhooks/github.js';
import { createChannel, expectError, ok } from './channels-helpers.js';
import { DMS, expectNothingPosted, expectPosted, hookRealm, inChannel, latest, newestId, postHook, withNewBot, type HookRealm } from './integrations-support.js';

let realm: HookRealm;

beforeAll(async () => {
  realm = await hookRealm('hooks');
});

const ping = { body: gh.ping, headers: { 'X-GitHub-Event': 'ping' } };
const PING_TEXT = 'GitHub webhook has been successfully configured by TomaszKolek.';

/** Pingdom's "up to down" alert as Pingdom sends it (Zulip's json fixture json_pingdom_http_up_to_down). */
const PINGDOM = `{
  "check_id": 2048467,
  "check_name": "Test check",
  "check_type": "HTTP",
  "check_params": {
    "basic_auth": false,
    "encryption": false,
    "full_url": "http:\\/\\/someurl.com\\/",
    "header": "User-Agent:Pingdom.com_bot_version_1.4_(http:\\/\\/www.pingdom.com\\/)",
    "hostname": "someurl.com",
    "ipv6": false,
    "port": 80,
    "url": "\\/"
  },
  "tags": [

  ],
  "previous_state": "UP",
  "current_state": "DOWN",
  "state_changed_timestamp": 1457939434,
  "state_changed_utc_time": "2016-03-14T07:10:34",
  "long_description": "Non-recoverable failure in name resolution",
  "description": "DNS error",
  "first_probe": {
    "ip": "85.17.156.99",
    "ipv6": "2001:1af8:4100:a09b::454",
    "location": "Amsterdam 5, Netherlands"
  },
  "second_probe": {
    "ip": "64.141.100.136",
    "ipv6": "",
    "location": "Calgary, Canada"
  }
}
`;

describe('authentication', () => {
  it('needs an api_key or Basic credentials', async () => {
    const r = await expectNothingPosted(realm, 'github', { ...ping, apiKey: null });
    expectError(r, 400, 'REQUEST_VARIABLE_MISSING', "Missing 'api_key' argument");
    expect(r.body.var_name).toBe('api_key');
  });

  it("answers wrong keys with Zulip's errors and posts nothing", async () => {
    expectError(await expectNothingPosted(realm, 'github', { ...ping, apiKey: 'short' }), 401, 'INVALID_API_KEY', 'Malformed API key');
    expectError(await expectNothingPosted(realm, 'github', { ...ping, apiKey: 'a'.repeat(32) }), 401, 'INVALID_API_KEY', 'Invalid API key');
    // A key of another realm is unknown here.
    const other = await hookRealm('hooksother');
    expectError(await expectNothingPosted(realm, 'github', { ...ping, apiKey: other.bot.apiKey }), 401, 'INVALID_API_KEY', 'Invalid API key');
  });

  it('accepts Basic credentials, and refuses wrong ones', async () => {
    const basic = (email: string, key: string) => ({ Authorization: 'Basic ' + Buffer.from(`${email}:${key}`).toString('base64') });
    const m = await expectPosted(realm, 'github', { ...ping, apiKey: null, headers: { ...ping.headers, ...basic(realm.bot.email, realm.bot.apiKey) } });
    expect(m.content).toBe(PING_TEXT);
    const r = await expectNothingPosted(realm, 'github', { ...ping, apiKey: null, headers: { ...ping.headers, ...basic(realm.bot.email, 'b'.repeat(32)) } });
    expect(r.status).toBe(401);
    expect(r.body.result).toBe('error');
  });

  it("lets any active account's key post, as Zulip does", async () => {
    ok(await postHook(realm, 'github', { ...ping, apiKey: realm.owner.apiKey, query: { stream: realm.channel } }));
    const [m] = await latest(realm.owner, 1, inChannel(realm));
    expect(m).toMatchObject({ sender_id: realm.owner.userId, content: PING_TEXT, topic: 'public-repo' });
  });

  it('refuses a deactivated bot', async () => {
    const r = ok(await realm.owner.post('/bots', { full_name: 'Old Hook', short_name: 'oldhook', bot_type: 2 }));
    ok(await realm.owner.delete(`/bots/${r.user_id}`));
    const res = await expectNothingPosted(realm, 'github', { ...ping, apiKey: r.api_key as string });
    expectError(res, 401, 'USER_DEACTIVATED', 'Account is deactivated');
  });

  it('404s under /json: webhooks are for tools, with an API key', async () => {
    const r = await rawRequest({
      method: 'POST',
      path: `/json/external/github?api_key=${realm.bot.apiKey}&stream=${realm.channel}`,
      host: `${realm.subdomain}.localhost:${port()}`,
      headers: { 'Content-Type': 'application/json', 'X-GitHub-Event': 'ping' },
      body: JSON.stringify(gh.ping),
    });
    expect(r.status).toBe(404);
    expect(r.body.result).toBe('error');
  });

  it('404s an unknown integration', async () => {
    const r = await postHook(realm, 'no-such-tool', { body: {} });
    expect(r.status).toBe(404);
    expect(r.body.result).toBe('error');
  });
});

describe('incoming webhook bots', () => {
  it('may send messages and post to webhooks, nothing else', async () => {
    const bot = realm.bot.client;
    ok(await bot.post('/messages', { type: 'stream', to: realm.channel, topic: 'direct', content: 'hello' }));
    expectError(await bot.get('/users/me'), 400, 'BAD_REQUEST', 'This API is not available to incoming webhook bots.');
    expectError(await bot.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'elsewhere' }]) }), 400, 'BAD_REQUEST');
  });
});

describe('destinations', () => {
  it('a channel by name or id, with the topic of the URL', async () => {
    let m = await expectPosted(realm, 'github', { ...ping, query: { topic: 'Deploys' } });
    expect(m.topic).toBe('Deploys');
    m = await expectPosted(realm, 'github', { ...ping, query: { stream: String(realm.channelId) } });
    expect(m.topic).toBe('public-repo');
  });

  it('without a channel, a direct message from the bot to its owner', async () => {
    const before = await newestId(realm);
    const r = await postHook(realm, 'github', ping);
    expect(r.body).toEqual({ result: 'success', msg: '' });
    expect(await newestId(realm)).toBe(before);
    const [dm] = await latest(realm.owner, 1, DMS);
    expect(dm).toMatchObject({ sender_id: realm.bot.id, type: 'private', content: PING_TEXT, client: 'ZulipGitHubWebhook' });
  });

  it('a channel that does not exist: nothing posted, the owner is told (at most once a minute)', async () => {
    const fresh = await withNewBot(realm, 'missing');
    const r = await postHook(fresh, 'github', { ...ping, query: { stream: 'nowhere' } });
    expect(r.body).toEqual({ result: 'success', msg: '' });
    const [notice] = await latest(fresh.owner, 1, DMS);
    expect(notice!.content).toBe(
      `Your bot \`${fresh.bot.email}\` tried to send a message to channel #**nowhere**, but that channel does not exist. Click [here](#channels/new) to create it.`,
    );
    expect(notice!.sender_id).not.toBe(fresh.bot.id);
    // A second attempt right away does not notify again.
    ok(await postHook(fresh, 'github', { ...ping, query: { stream: '999999' } }));
    expect((await latest(fresh.owner, 1, DMS))[0]!.id).toBe(notice!.id);
  });

  it('a channel id that does not exist', async () => {
    const fresh = await withNewBot(realm, 'missingid');
    ok(await postHook(fresh, 'github', { ...ping, query: { stream: '999999' } }));
    const [notice] = await latest(fresh.owner, 1, DMS);
    expect(notice!.content).toBe(`Your bot \`${fresh.bot.email}\` tried to send a message to channel ID 999999, but there is no channel with that ID.`);
  });

  it('a channel nobody is subscribed to: posted, and the owner is told', async () => {
    const fresh = await withNewBot(realm, 'empty');
    await createChannel(fresh.owner, 'lonely');
    ok(await fresh.owner.delete('/users/me/subscriptions', { subscriptions: JSON.stringify(['lonely']) }));
    ok(await postHook(fresh, 'github', { ...ping, query: { stream: 'lonely' } }));
    const [notice] = await latest(fresh.owner, 1, DMS);
    expect(notice!.content).toBe(
      `Your bot \`${fresh.bot.email}\` tried to send a message to channel #**lonely**. The channel exists but does not have any subscribers.`,
    );
    const id = ok(await fresh.owner.get('/get_stream_id', { stream: 'lonely' })).stream_id as number;
    const [m] = await latest(fresh.owner, 1, [{ operator: 'channel', operand: id }]);
    expect(m!.content).toBe(PING_TEXT);
  });
});

describe('payloads', () => {
  it('a body that is not JSON: 400, and the owner is told', async () => {
    const fresh = await withNewBot(realm, 'badjson');
    const r = await expectNothingPosted(fresh, 'github', { body: '{"zen": ', headers: { 'X-GitHub-Event': 'ping' } });
    expectError(r, 400, 'INVALID_JSON', 'Malformed JSON');
    const [notice] = await latest(fresh.owner, 1, DMS);
    expect(notice!.content).toBe(
      "Hi there! It looks like you tried to set up the Zulip GitHub integration,\nbut didn't correctly configure the webhook to send data in the JSON format\nthat this integration expects!",
    );
  });

  it('json: the payload pretty-printed as Python prints it', async () => {
    const m = await expectPosted(realm, 'json', { body: PINGDOM });
    expect(m.topic).toBe('JSON');
    // For this ASCII-only payload Python's json.dumps(indent=2) and JSON.stringify agree.
    expect(m.content).toBe('```json\n' + JSON.stringify(JSON.parse(PINGDOM), null, 2) + '\n```');
    expect(m.content).toContain('"full_url": "http://someurl.com/",\n');
    expect(m.content).toContain('"tags": [],\n');
  });

  it('json refuses what is not an object', async () => {
    expectError(await expectNothingPosted(realm, 'json', { body: '[1, 2]' }), 400, 'BAD_REQUEST', 'payload is not a dict');
    expectError(await expectNothingPosted(realm, 'json', { body: 'nope' }), 400, 'INVALID_JSON', 'Malformed JSON');
  });
});

describe('hosts', () => {
  it('a realm that does not exist', async () => {
    const r = await rawRequest({
      method: 'POST',
      path: `/api/v1/external/json?api_key=${realm.bot.apiKey}`,
      host: `nosuchrealm.localhost:${port()}`,
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('NONEXISTENT_SUBDOMAIN');
  });
});
