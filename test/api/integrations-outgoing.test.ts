// Outgoing webhook bots: made with their service, triggered by mentions and direct messages,
// calling a small HTTP service of the test and posting what it answers; a service that fails
// or never answers is tried again, then the failure is told in the conversation and to the
// bot's owner. On the shared server (private addresses refused) the call is never made.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, type Client } from '../helpers/client.js';
import { startOwnServer, until, type OwnServer } from '../helpers/ownServer.js';
import { PortClient } from './events-support.js';
import { createChannel, expectError, ok, type Json } from './channels-helpers.js';
import { drain, openQueue } from './org-helpers.js';
import { DMS, latest, type Posted } from './integrations-support.js';

interface Call {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const calls: Call[] = [];
let service: http.Server;
let serviceUrl: string;

/** The test's bot service: what it answers depends on the path the bot was given. */
function answer(call: Call, res: http.ServerResponse): void {
  const json = (status: number, value: unknown): void => {
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
  };
  switch (call.path) {
    case '/reply':
      return json(200, { content: `pong: ${JSON.parse(call.body).data}` });
    case '/quiet':
      return json(200, { response_not_required: true });
    case '/slack':
      return json(200, { text: `slack says hi to ${new URLSearchParams(call.body).get('user_name')}` });
    case '/fail':
      res.writeHead(500).end('oops');
      return;
    case '/garbage':
      res.writeHead(200).end('not json');
      return;
    case '/hang':
      return; // never answers
    default:
      res.writeHead(404).end();
  }
}

beforeAll(async () => {
  service = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const call = { path: req.url ?? '', headers: req.headers, body };
      calls.push(call);
      answer(call, res);
    });
  });
  await new Promise<void>((r) => service.listen(0, '127.0.0.1', r));
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});

afterAll(async () => {
  service.closeAllConnections();
  await new Promise((r) => service.close(r));
});

const callsTo = (path: string) => calls.filter((c) => c.path === path);

async function makeBot(owner: Client, name: string, path: string, interfaceType = 1): Promise<{ id: number; email: string; token: string; name: string }> {
  const short = name.toLowerCase();
  const r = ok(await owner.post('/bots', { full_name: name, short_name: short, bot_type: 3, payload_url: JSON.stringify(`${serviceUrl}${path}`), interface_type: interfaceType }));
  const reg = ok(await owner.post('/register', { fetch_event_types: JSON.stringify(['realm_bot']) }));
  const bot = (reg.realm_bots as Json[]).find((b) => b.user_id === r.user_id)!;
  return { id: r.user_id as number, email: bot.email as string, token: bot.services[0].token as string, name };
}

/** The messages a bot sent that `reader` sees in `narrow`, waited for. */
async function fromBot(reader: Client, botId: number, narrow: Json[], count = 1): Promise<Posted[]> {
  const found = await until(async () => {
    const mine = (await latest(reader, 20, narrow)).filter((m) => m.sender_id === botId);
    return mine.length >= count ? mine : null;
  }, `${count} message(s) from bot ${botId}`, 15_000);
  return found!;
}

describe('with a service on this machine (OUTGOING_WEBHOOK_ALLOW_PRIVATE)', () => {
  let server: OwnServer;
  let owner: PortClient;
  let member: PortClient;
  let subdomain: string;
  let veronaId: number;
  let pinger: Awaited<ReturnType<typeof makeBot>>;
  const topicNarrow = (topic: string) => [
    { operator: 'channel', operand: veronaId },
    { operator: 'topic', operand: topic },
  ];
  const say = (topic: string, content: string, as: Client = member) => as.post('/messages', { type: 'stream', to: 'Verona', topic, content });

  beforeAll(async () => {
    server = await startOwnServer({ OUTGOING_WEBHOOK_ALLOW_PRIVATE: 'true', OUTGOING_WEBHOOK_TIMEOUT_SECONDS: '0.5' }, false);
    const realm = await newRealm('outhooks');
    subdomain = realm.subdomain;
    owner = PortClient.of(server.port, realm.owner);
    member = PortClient.of(server.port, await newUser(subdomain, 'Iago Member'));
    veronaId = await createChannel(owner, 'Verona');
    await createChannel(member, 'Verona');
    pinger = await makeBot(owner, 'Pinger', '/reply');
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('makes bots with their service, announced with it', async () => {
    const queue = await openQueue(owner, { event_types: ['realm_bot'] });
    const bot = await makeBot(owner, 'Lookout', '/reply');
    expect(bot.token).toMatch(/^[A-Za-z0-9]{32}$/);
    const [add] = await drain(queue);
    expect(add).toMatchObject({ op: 'add', bot: { user_id: bot.id, bot_type: 3, services: [{ base_url: `${serviceUrl}/reply`, interface: 1, token: bot.token }] } });
    const r = ok(await owner.patch(`/bots/${bot.id}`, { service_payload_url: JSON.stringify(`${serviceUrl}/slack`), service_interface: 2 }));
    expect(r).toMatchObject({ service_payload_url: `${serviceUrl}/slack`, service_interface: 2 });
    expect(await drain(queue)).toEqual([
      { type: 'realm_bot', op: 'update', id: expect.any(Number), bot: { user_id: bot.id, services: [{ base_url: `${serviceUrl}/slack`, interface: 2, token: bot.token }] } },
    ]);
    expectError(await owner.post('/bots', { full_name: 'Bad', short_name: 'bad', bot_type: 3, payload_url: JSON.stringify('nope') }), 400, 'BAD_REQUEST', 'payload_url is not a URL');
    expectError(
      await owner.post('/bots', { full_name: 'Bad', short_name: 'bad', bot_type: 3, payload_url: JSON.stringify(serviceUrl), interface_type: 3 }),
      400,
      'BAD_REQUEST',
      'Invalid interface type',
    );
    expectError(await owner.patch(`/bots/${bot.id}`, { service_payload_url: JSON.stringify('ftp') }), 400, 'BAD_REQUEST', 'service_payload_url is not a URL');
  });

  it('a mention: the service gets Zulip’s payload, the bot replies in the topic', async () => {
    const sent = ok(await say('greetings', '@**Pinger** ping'));
    const [reply] = await fromBot(member, pinger.id, topicNarrow('greetings'));
    expect(reply).toMatchObject({ content: 'pong: @**Pinger** ping', client: 'OutgoingWebhookResponse', topic: 'greetings' });
    const call = callsTo('/reply').find((c) => JSON.parse(c.body).message.id === sent.id)!;
    expect(call.headers['user-agent']).toMatch(/^ZulipOutgoingWebhook\//);
    expect(call.headers['content-type']).toBe('application/json');
    const body = JSON.parse(call.body);
    expect(body).toMatchObject({ data: '@**Pinger** ping', trigger: 'mention', token: pinger.token, bot_email: pinger.email, bot_full_name: 'Pinger' });
    expect(body.message).toMatchObject({
      id: sent.id,
      type: 'stream',
      content: '@**Pinger** ping',
      display_recipient: 'Verona',
      stream_id: veronaId,
      subject: 'greetings',
      sender_id: member.userId,
      sender_full_name: 'Iago Member',
    });
    expect(body.message.rendered_content).toContain('user-mention');
  });

  it('a direct message: the bot answers in the conversation', async () => {
    const sent = ok(await member.post('/messages', { type: 'private', to: JSON.stringify([pinger.id]), content: 'hello there' }));
    const [reply] = await fromBot(member, pinger.id, DMS);
    expect(reply).toMatchObject({ content: 'pong: hello there', type: 'private' });
    const call = callsTo('/reply').find((c) => JSON.parse(c.body).message.id === sent.id)!;
    expect(JSON.parse(call.body).trigger).toBe('direct_message');
  });

  it('silent mentions, messages of bots and services that need not answer trigger no reply', async () => {
    const quiet = await makeBot(owner, 'Quiet', '/quiet');
    const helper = ok(await member.post('/bots', { full_name: 'Helper', short_name: 'helper' }));
    const helperClient = new PortClient(server.port, subdomain, `helper-bot@${subdomain}.localhost`, helper.api_key as string, helper.user_id as number);
    await createChannel(helperClient, 'Verona');
    const silent = ok(await say('quiet', '@_**Pinger** not you'));
    const byBot = ok(await say('quiet', '@**Pinger** from a bot', helperClient));
    ok(await say('quiet', '@**Quiet** hush'));
    await until(() => callsTo('/quiet').length > 0, 'the quiet service called');
    // A later reply shows the queue went past those messages.
    ok(await say('quiet', '@**Pinger** now you'));
    const replies = await fromBot(member, pinger.id, topicNarrow('quiet'));
    expect(replies.map((m) => m.content)).toEqual(['pong: @**Pinger** now you']);
    const seenIds = calls.map((c) => (c.path === '/slack' ? 0 : JSON.parse(c.body).message.id));
    expect(seenIds).not.toContain(silent.id);
    expect(seenIds).not.toContain(byBot.id);
    expect((await latest(member, 20, topicNarrow('quiet'))).filter((m) => m.sender_id === quiet.id)).toEqual([]);
  });

  it("a Slack-style service gets Slack's fields; it cannot take direct messages", async () => {
    const slacky = await makeBot(owner, 'Slacky', '/slack', 2);
    ok(await say('slack', '@**Slacky** hi'));
    const [reply] = await fromBot(member, slacky.id, topicNarrow('slack'));
    expect(reply!.content).toBe('slack says hi to Iago Member');
    const form = new URLSearchParams(callsTo('/slack').at(-1)!.body);
    expect(Object.fromEntries(form)).toEqual({
      token: slacky.token,
      team_id: expect.stringMatching(/^T\d+$/),
      team_domain: `${subdomain}.localhost:${server.port}`,
      channel_id: `C${veronaId}`,
      channel_name: 'Verona',
      thread_ts: form.get('timestamp'),
      timestamp: form.get('timestamp'),
      user_id: `U${member.userId}`,
      user_name: 'Iago Member',
      text: '@**Slacky** hi',
      trigger_word: 'mention',
      service_id: String(slacky.id),
    });
    expect(Number(form.get('timestamp'))).toBeGreaterThan(0);
    const before = callsTo('/slack').length;
    ok(await member.post('/messages', { type: 'private', to: JSON.stringify([slacky.id]), content: 'psst' }));
    const [failure] = await fromBot(member, slacky.id, DMS);
    expect(failure!.content).toBe("Failure! Slack outgoing webhooks don't support direct messages.");
    expect(callsTo('/slack').length).toBe(before);
  });

  it('a service answering 500 is tried four times, then the failure is told', async () => {
    const failing = await makeBot(owner, 'Failing', '/fail');
    const sent = ok(await say('broken', '@**Failing** help'));
    const [failure] = await fromBot(member, failing.id, topicNarrow('broken'));
    expect(failure!.content).toBe('Failure! Third party responded with 500');
    expect(callsTo('/fail').length).toBe(4);
    const [notice] = await fromBot(owner, failing.id, DMS);
    expect(notice!.content).toBe(
      `[A message](http://${subdomain}.localhost:${server.port}/#narrow/channel/${veronaId}-Verona/topic/broken/near/${sent.id}) to your bot @_**Failing** triggered an outgoing webhook.\nThe webhook got a response with status code *500*.\nThe response contains the following payload:\n\`\`\`\nb'oops'\n\`\`\``,
    );
  });

  it('a service that never answers: four tries, then "Bot is unavailable"', async () => {
    const hanging = await makeBot(owner, 'Sleepy', '/hang');
    ok(await say('asleep', '@**Sleepy** wake up'));
    const [failure] = await fromBot(member, hanging.id, topicNarrow('asleep'));
    expect(failure!.content).toBe('Failure! Bot is unavailable');
    expect(callsTo('/hang').length).toBe(4);
    const [notice] = await fromBot(owner, hanging.id, DMS);
    expect(notice!.content).toMatch(/^\[A message\]\(.*\/near\/\d+\) to your bot @_\*\*Sleepy\*\* triggered an outgoing webhook\.\nRequest timed out after 0\.5 seconds\.$/);
  });

  it('an answer that is not JSON', async () => {
    const garbled = await makeBot(owner, 'Garbled', '/garbage');
    ok(await say('garbled', '@**Garbled** speak'));
    const [failure] = await fromBot(member, garbled.id, topicNarrow('garbled'));
    expect(failure!.content).toBe('Failure! Invalid JSON in response');
    const [notice] = await fromBot(owner, garbled.id, DMS);
    expect(notice!.content).toContain(
      "triggered an outgoing webhook.\nThe outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> Invalid JSON in response\nThe response contains the following payload:\n```\n'not json'\n```",
    );
    expect(callsTo('/garbage').length).toBe(1);
  });
});

describe('on a server that refuses private addresses', () => {
  it('never calls the service, and says why', async () => {
    const { owner, subdomain } = await newRealm('outhooksprivate');
    const member = await newUser(subdomain, 'Pia Member');
    const veronaId = await createChannel(owner, 'Verona');
    await createChannel(member, 'Verona');
    const bot = await makeBot(owner, 'Inside', '/reply');
    const before = calls.length;
    const sent = ok(await member.post('/messages', { type: 'stream', to: 'Verona', topic: 'private', content: '@**Inside** hello' }));
    const [failure] = await fromBot(member, bot.id, [{ operator: 'channel', operand: veronaId }]);
    expect(failure!.content).toBe('Failure! Third party responded with 407');
    const [notice] = await fromBot(owner, bot.id, DMS);
    expect(notice!.content).toMatch(
      new RegExp(`/near/${sent.id}\\) to your bot @_\\*\\*Inside\\*\\* triggered an outgoing webhook\\.\\nThe URL configured for the webhook is for a private or disallowed network\\.$`),
    );
    expect(calls.length).toBe(before);
  });
});
