// The outgoing webhook protocol (requests, and what the bot says for each kind of answer) and
// the guarded HTTP call (disallowed addresses, redirects, timeouts, large answers).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRequest, outcomeOf, type OutgoingEvent } from '../../src/integrations/outgoing.js';
import { callService, isDisallowedAddress } from '../../src/worker/jobs/outgoingHttp.js';

const channelMessage = {
  id: 42,
  type: 'stream',
  content: '@**Pinger** ping',
  display_recipient: 'Verona',
  stream_id: 7,
  subject: 'Foo',
  timestamp: 1700000000,
  sender_id: 9,
  sender_full_name: 'Iago',
  rendered_content: '<p>ping</p>',
};

const event = (over: Partial<OutgoingEvent> = {}): OutgoingEvent => ({
  trigger: 'mention',
  message: channelMessage,
  botId: 11,
  botEmail: 'pinger-bot@zulip.example',
  botFullName: 'Pinger',
  token: 'abcdefabcdefabcdefabcdefabcdef12',
  interface: 1,
  realmId: 3,
  realmHost: 'zulip.example',
  ...over,
});

const answer = (status: number, body: string) => ({ kind: 'response' as const, status, body: Buffer.from(body) });

describe('requests', () => {
  it('generic: the JSON payload of Zulip', () => {
    const r = buildRequest(event());
    expect(r).toMatchObject({ contentType: 'application/json' });
    expect(JSON.parse((r as { body: string }).body)).toEqual({
      data: '@**Pinger** ping',
      message: channelMessage,
      bot_email: 'pinger-bot@zulip.example',
      bot_full_name: 'Pinger',
      token: 'abcdefabcdefabcdefabcdefabcdef12',
      trigger: 'mention',
    });
  });

  it("Slack: the form fields of Slack's outgoing webhooks, never for direct messages", () => {
    const r = buildRequest(event({ interface: 2 })) as { contentType: string; body: string };
    expect(r.contentType).toBe('application/x-www-form-urlencoded');
    expect([...new URLSearchParams(r.body)]).toEqual([
      ['token', 'abcdefabcdefabcdefabcdefabcdef12'],
      ['team_id', 'T3'],
      ['team_domain', 'zulip.example'],
      ['channel_id', 'C7'],
      ['channel_name', 'Verona'],
      ['thread_ts', '1700000000'],
      ['timestamp', '1700000000'],
      ['user_id', 'U9'],
      ['user_name', 'Iago'],
      ['text', '@**Pinger** ping'],
      ['trigger_word', 'mention'],
      ['service_id', '11'],
    ]);
    expect(buildRequest(event({ interface: 2, message: { ...channelMessage, type: 'private' } }))).toEqual({
      failure: "Slack outgoing webhooks don't support direct messages.",
    });
  });
});

describe('answers', () => {
  const generic = event();
  it('replies', () => {
    expect(outcomeOf(generic, answer(200, '{"content": "pong"}'), 10)).toEqual({ reply: 'pong', ownerDetails: null });
    expect(outcomeOf(generic, answer(200, '{"response_string": 5}'), 10)).toEqual({ reply: '5', ownerDetails: null });
    expect(outcomeOf(event({ interface: 2 }), answer(200, '{"text": "hi", "content": "no"}'), 10)).toEqual({ reply: 'hi', ownerDetails: null });
  });

  it('nothing to say', () => {
    for (const body of ['{"response_not_required": true, "content": "x"}', '""', '{}', '{"content": "   "}', '{"content": null}']) {
      expect(outcomeOf(generic, answer(200, body), 10)).toEqual({ reply: null, ownerDetails: null });
    }
    expect(outcomeOf(event({ interface: 2 }), answer(200, '{"content": "x"}'), 10)).toEqual({ reply: null, ownerDetails: null });
  });

  it('bad answers', () => {
    expect(outcomeOf(generic, answer(200, 'not json'), 10)).toEqual({
      reply: 'Failure! Invalid JSON in response',
      ownerDetails:
        "The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> Invalid JSON in response\nThe response contains the following payload:\n```\n'not json'\n```",
    });
    expect(outcomeOf(generic, answer(200, '[1]'), 10).reply).toBe('Failure! Invalid response format');
    expect(outcomeOf(generic, answer(404, "it's gone"), 10)).toEqual({
      reply: 'Failure! Third party responded with 404',
      ownerDetails: 'The webhook got a response with status code *404*.\nThe response contains the following payload:\n```\nb"it\'s gone"\n```',
    });
    expect(outcomeOf(generic, answer(500, ''), 10).ownerDetails).toBe('The webhook got a response with status code *500*.');
  });

  it('no answer', () => {
    expect(outcomeOf(generic, { kind: 'timeout' }, 0.5)).toEqual({ reply: 'Failure! Bot is unavailable', ownerDetails: 'Request timed out after 0.5 seconds.' });
    expect(outcomeOf(generic, { kind: 'connection_error' }, 10).ownerDetails).toBe('A connection error occurred. Is my bot server down?');
    expect(outcomeOf(generic, { kind: 'disallowed' }, 10)).toEqual({
      reply: 'Failure! Third party responded with 407',
      ownerDetails: 'The URL configured for the webhook is for a private or disallowed network.',
    });
  });
});

describe('addresses', () => {
  it('refuses private, loopback, link-local and reserved networks', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a00:1', 'localhost']) {
      expect(isDisallowedAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isDisallowedAddress(a), a).toBe(false);
  });
});

describe('calls', () => {
  let server: http.Server;
  let base: string;
  const seen: Array<{ method: string; url: string; body: string; agent: string }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, body, agent: req.headers['user-agent'] ?? '' });
        if (req.url === '/hang') return;
        if (req.url === '/keep') return res.writeHead(307, { Location: '/ok' }).end();
        if (req.url === '/see-other') return res.writeHead(303, { Location: '/ok' }).end();
        if (req.url === '/big') return res.end('x'.repeat(5000));
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ content: `${req.method} ${body}` }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const opts = { timeoutMs: 300, allowPrivate: true, userAgent: 'ZulipOutgoingWebhook/test', maxBytes: 1000 };
  const req = { contentType: 'application/json', body: '{"a":1}' };
  const text = (a: Awaited<ReturnType<typeof callService>>) => (a.kind === 'response' ? Buffer.from(a.body).toString() : a.kind);

  it('refuses private addresses, by name or number, unless allowed', async () => {
    expect(await callService(`${base}/ok`, req, { ...opts, allowPrivate: false })).toEqual({ kind: 'disallowed' });
    const port = (server.address() as AddressInfo).port;
    expect(await callService(`http://localhost:${port}/ok`, req, { ...opts, allowPrivate: false })).toEqual({ kind: 'disallowed' });
    expect(await callService(`http://[::1]:${port}/ok`, req, { ...opts, allowPrivate: false })).toEqual({ kind: 'disallowed' });
    const before = seen.length;
    expect(text(await callService(`${base}/ok`, req, opts))).toBe('{"content":"POST {\\"a\\":1}"}');
    expect(seen.length).toBe(before + 1);
    expect(seen.at(-1)!.agent).toBe('ZulipOutgoingWebhook/test');
  });

  it('follows redirects: 307 repeats the POST, 303 becomes a GET', async () => {
    expect(text(await callService(`${base}/keep`, req, opts))).toBe('{"content":"POST {\\"a\\":1}"}');
    expect(text(await callService(`${base}/see-other`, req, opts))).toBe('{"content":"GET "}');
  });

  it('times out, reads at most maxBytes, reports connection errors', async () => {
    expect(await callService(`${base}/hang`, req, opts)).toEqual({ kind: 'timeout' });
    const big = await callService(`${base}/big`, req, opts);
    expect(big.kind === 'response' && big.body.length).toBe(1000);
    expect(await callService('http://127.0.0.1:1/', req, opts)).toEqual({ kind: 'connection_error' });
  });
});
