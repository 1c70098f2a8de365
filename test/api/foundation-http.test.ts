// The front tier: parameter parsing (query string, form-encoded, multipart, JSON inside form
// values, boolean strings), the response envelope, and the error responses every request
// can meet (missing/invalid parameters, 401, 404, 405, 413).
import http from 'node:http';
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser, port, rawRequest } from '../helpers/client.js';

let owner: Client;
let member: Client;
let subdomain: string;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('fhttp'));
  member = await newUser(subdomain, 'Mia Member');
});

function basic(c: Client): string {
  return 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64');
}

/** A multipart body as zulip-js builds it (FormData), with an optional file part. */
async function multipart(fields: Record<string, string>, file?: { name: string; content: string }) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append(file.name, new Blob([file.content]), `${file.name}.txt`);
  const req = new Request('http://multipart.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await req.arrayBuffer()), contentType: req.headers.get('content-type')! };
}

/** The raw response text and headers, for checks the JSON-parsing helper hides. */
function rawText(path: string, host: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: port(), path, method, headers: { Host: host, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Sends a body larger than the server's limit over a plain socket. The server answers before
 * it has read the whole body and may close the connection, which an HTTP client library
 * reports as a write error instead of the response; the socket keeps what arrived.
 */
function oversized(opts: { chunked: boolean; bytes: number }): Promise<{ status: number; body: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port(), '127.0.0.1');
    let received = '';
    const settle = () => {
      socket.destroy();
      const m = /^HTTP\/1\.1 (\d{3})[^]*?\r\n\r\n([^]*)$/.exec(received);
      if (!m) return reject(new Error(`no HTTP response: ${JSON.stringify(received.slice(0, 200))}`));
      resolve({ status: Number(m[1]), body: JSON.parse(m[2]!) as Record<string, unknown> });
    };
    socket.on('data', (d: Buffer) => {
      received += d.toString('utf8');
      // The response is complete once its JSON body (one line) has arrived.
      if (/\r\n\r\n[^]*\n$/.test(received)) settle();
    });
    socket.on('error', () => undefined); // the server may reset the connection: the response decides
    socket.on('close', () => (received ? settle() : reject(new Error('connection closed without a response'))));
    socket.write(
      `POST /api/v1/users HTTP/1.1\r\nHost: ${owner.host}\r\nAuthorization: ${basic(owner)}\r\n` +
        'Content-Type: application/x-www-form-urlencoded\r\n' +
        (opts.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${opts.bytes}`) + '\r\n\r\n',
    );
    const piece = Buffer.alloc(1024 * 1024, 'a');
    const frame = opts.chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
    let sent = 0;
    const pump = () => {
      while (sent < opts.bytes && !socket.destroyed) {
        sent += piece.length;
        if (!socket.write(frame)) return void socket.once('drain', pump);
      }
      if (opts.chunked && !socket.destroyed) socket.write('0\r\n\r\n');
    };
    pump();
  });
}

describe('parameters', () => {
  it('reads the query string, with JSON arrays and boolean strings inside values', async () => {
    const r = await owner.get('/users', { user_ids: JSON.stringify([member.userId]), client_gravatar: 'false' });
    expect(r.status).toBe(200);
    expect(r.body.members).toHaveLength(1);
    expect(r.body.members[0].user_id).toBe(member.userId);
    expect(typeof r.body.members[0].avatar_url).toBe('string');
    const gravatar = await owner.get('/users', { user_ids: JSON.stringify([member.userId]), client_gravatar: 'true' });
    expect(gravatar.body.members[0].avatar_url).toBeNull();
  });

  it('reads application/x-www-form-urlencoded bodies, decoding + and percent escapes', async () => {
    const email = `form.${Date.now()}@${subdomain}.test`;
    const body = `email=${encodeURIComponent(email)}&password=secret-pass-1&full_name=Ann+L%C3%A9e`;
    const r = await rawRequest({
      method: 'POST', path: '/api/v1/users', host: owner.host, body,
      headers: { Authorization: basic(owner), 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: 'success', msg: '', user_id: expect.any(Number) });
    const created = await owner.get(`/users/${r.body.user_id}`);
    expect(created.body.user.full_name).toBe('Ann Lée');
    expect(created.body.user.delivery_email).toBe(email);
  });

  it('reads multipart/form-data bodies as zulip-js sends them, skipping file parts', async () => {
    const email = `multi.${Date.now()}@${subdomain}.test`;
    const { body, contentType } = await multipart(
      { email, password: 'secret-pass-2', full_name: 'Zoë Multipart', nickname: 'zo' },
      { name: 'attachment', content: 'file contents are not a parameter' },
    );
    const r = await rawRequest({
      method: 'POST', path: '/api/v1/users', host: owner.host, body,
      headers: { Authorization: basic(owner), 'Content-Type': contentType },
    });
    expect(r.status).toBe(200);
    expect(r.body.result).toBe('success');
    expect(r.body.ignored_parameters_unsupported).toEqual(['nickname']);
    const created = await owner.get(`/users/${r.body.user_id}`);
    expect(created.body.user).toMatchObject({ full_name: 'Zoë Multipart', delivery_email: email });
  });

  it('reads JSON-encoded arrays and objects inside multipart values', async () => {
    const { body, contentType } = await multipart({
      fetch_event_types: JSON.stringify(['realm_user']),
      client_capabilities: JSON.stringify({ notification_settings_null: true }),
      apply_markdown: 'true',
    });
    const r = await rawRequest({
      method: 'POST', path: '/api/v1/register', host: owner.host, body,
      headers: { Authorization: basic(owner), 'Content-Type': contentType },
    });
    expect(r.status).toBe(200);
    expect(r.body.ignored_parameters_unsupported).toBeUndefined();
    expect(r.body.realm_users.map((u: { user_id: number }) => u.user_id)).toContain(member.userId);
    // Only the requested section was fetched: the array was understood.
    expect(r.body.realm_name).toBeUndefined();
    const bad = await multipart({ client_capabilities: '{"notification_settings_null": tru' });
    const rejected = await rawRequest({
      method: 'POST', path: '/api/v1/register', host: owner.host, body: bad.body,
      headers: { Authorization: basic(owner), 'Content-Type': bad.contentType },
    });
    expect(rejected.status).toBe(400);
    expect(rejected.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', var_name: 'client_capabilities' });
  });

  it('merges query-string parameters into a POST', async () => {
    const email = `query.${Date.now()}@${subdomain}.test`;
    const r = await rawRequest({
      method: 'POST', path: `/api/v1/users?full_name=Quentin+Query`, host: owner.host,
      body: new URLSearchParams({ email, password: 'secret-pass-3' }).toString(),
      headers: { Authorization: basic(owner), 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(200);
    expect((await owner.get(`/users/${r.body.user_id}`)).body.user.full_name).toBe('Quentin Query');
  });

  it('reads a chunked body sent without Content-Length, and a POST whose parameters are all in the query', async () => {
    const email = `chunked.${Date.now()}@${subdomain}.test`;
    const form = new URLSearchParams({ email, password: 'secret-pass-4', full_name: 'Chad Chunked' }).toString();
    const half = Math.floor(form.length / 2);
    const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port(), '127.0.0.1');
      let received = '';
      socket.on('data', (d: Buffer) => {
        received += d.toString('utf8');
        if (/\r\n\r\n[^]*\n$/.test(received)) {
          socket.destroy();
          resolve(received);
        }
      });
      socket.on('error', reject);
      socket.write(
        `POST /api/v1/users HTTP/1.1\r\nHost: ${owner.host}\r\nAuthorization: ${basic(owner)}\r\n` +
          'Content-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n' +
          chunk(form.slice(0, half)),
      );
      setTimeout(() => socket.write(chunk(form.slice(half)) + '0\r\n\r\n'), 50);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    const created = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { user_id: number };
    expect((await owner.get(`/users/${created.user_id}`)).body.user.full_name).toBe('Chad Chunked');

    const second = `empty.${Date.now()}@${subdomain}.test`;
    const query = new URLSearchParams({ email: second, password: 'secret-pass-5', full_name: 'Quinn Query' }).toString();
    const r = await rawRequest({
      method: 'POST', path: `/api/v1/users?${query}`, host: owner.host, body: '',
      headers: { Authorization: basic(owner), 'Content-Length': '0' },
    });
    expect(r.status).toBe(200);
    expect((await owner.get(`/users/${r.body.user_id}`)).body.user.full_name).toBe('Quinn Query');
  });

  it('decodes percent-escaped path parameters', async () => {
    const r = await owner.get(`/users/${encodeURIComponent(member.email!)}`);
    expect(r.status).toBe(200);
    expect(r.body.user.user_id).toBe(member.userId);
  });

  it('refuses booleans other than "true"/"false" with the parameter name', async () => {
    for (const value of ['yes', '1', 'True', '']) {
      const r = await owner.get('/users', { client_gravatar: value });
      expect(r.status, value).toBe(400);
      expect(r.body, value).toMatchObject({ result: 'error', code: 'BAD_REQUEST', var_name: 'client_gravatar' });
      expect(r.body.msg, value).toMatch(/client_gravatar/);
    }
  });

  it('refuses malformed or mistyped JSON arrays with the parameter name', async () => {
    for (const value of ['[1,', '["a"]', '5', '{"a":1}', '[1.5]']) {
      const r = await owner.get('/users', { user_ids: value });
      expect(r.status, value).toBe(400);
      expect(r.body, value).toMatchObject({ result: 'error', code: 'BAD_REQUEST', var_name: 'user_ids' });
    }
  });

  it('answers a missing required parameter with REQUEST_VARIABLE_MISSING and var_name', async () => {
    const r = await owner.post('/users', { email: `x.${Date.now()}@${subdomain}.test`, full_name: 'No Password' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      result: 'error', msg: "Missing 'password' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'password',
    });
    const anon = await owner.anonymous().post('/fetch_api_key', { username: owner.email });
    expect(anon.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'password' });
  });

  it('answers a malformed multipart body with a JSON error, and accepts an empty form', async () => {
    const r = await rawRequest({
      method: 'POST', path: '/api/v1/users', host: owner.host, body: 'this is not multipart at all',
      headers: { Authorization: basic(owner), 'Content-Type': 'multipart/form-data; boundary=xyz' },
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'Malformed multipart body' });
    // An empty form is not malformed.
    const empty = await multipart({});
    const registered = await rawRequest({
      method: 'POST', path: '/api/v1/register', host: owner.host, body: empty.body,
      headers: { Authorization: basic(owner), 'Content-Type': empty.contentType },
    });
    expect(registered.status).toBe(200);
    expect(registered.body.queue_id).toEqual(expect.any(String));
  });
});

describe('the envelope', () => {
  it('is JSON ending with a newline, with an empty msg on success', async () => {
    const r = await rawText('/api/v1/users/me', owner.host, { Authorization: basic(owner) });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.text.endsWith('\n')).toBe(true);
    const body = JSON.parse(r.text);
    expect(body.result).toBe('success');
    expect(body.msg).toBe('');
    expect(body).not.toHaveProperty('code');
    expect(body).not.toHaveProperty('ignored_parameters_unsupported');
  });

  it('ends with one newline also where the body is made as bytes: register, and a poll with events', async () => {
    const registered = await rawText('/api/v1/register', owner.host, { Authorization: basic(owner), 'Content-Type': 'application/x-www-form-urlencoded' }, 'POST', 'event_types=%5B%22message%22%5D');
    expect(registered.status).toBe(200);
    expect(registered.text.endsWith('}\n')).toBe(true);
    const queueId = JSON.parse(registered.text).queue_id as string;
    const sent = await owner.post('/messages', { type: 'direct', to: JSON.stringify([member.userId]), content: 'caf\u00e9 \u2603' });
    expect(sent.status).toBe(200);
    const polled = await rawText(`/api/v1/events?queue_id=${encodeURIComponent(queueId)}&last_event_id=-1&dont_block=true`, owner.host, { Authorization: basic(owner) });
    expect(polled.status).toBe(200);
    expect(polled.text.endsWith('}\n')).toBe(true);
    const body = JSON.parse(polled.text);
    expect(body.events.map((e: { type: string; message?: { id: number } }) => [e.type, e.message?.id])).toEqual([['message', sent.body.id]]);
    expect(body.events[0].message.content).toContain('caf\u00e9 \u2603');
    expect(polled.headers['content-length']).toBe(String(Buffer.byteLength(polled.text)));
  });

  it('lists unknown parameters in ignored_parameters_unsupported', async () => {
    const r = await owner.get('/users/me', { foo: 1, bar: 'x' });
    expect(r.status).toBe(200);
    expect(r.body.ignored_parameters_unsupported?.sort()).toEqual(['bar', 'foo']);
    const known = await owner.get('/users', { client_gravatar: 'false', also_unknown: 'x' });
    expect(known.body.ignored_parameters_unsupported).toEqual(['also_unknown']);
  });

  it('answers missing credentials with 401 UNAUTHORIZED and WWW-Authenticate', async () => {
    const r = await owner.anonymous().get('/users/me');
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Basic realm="zulip"');
    expect(r.body).toEqual({ result: 'error', code: 'UNAUTHORIZED', msg: 'Not logged in: API authentication or user session required' });
  });

  it('answers unknown routes with a JSON 404, inside and outside /api/v1', async () => {
    // `/` is the web client's page (test/api/web-files.test.ts).
    for (const path of ['/api/v1/no_such_endpoint', '/api/v1/users/me/nothing/here', '/api/v1', '/api/v2/users', '/favicon.ico', '/json/no_such_endpoint']) {
      const r = await rawText(path, owner.host);
      expect(r.status, path).toBe(404);
      expect(r.headers['content-type'], path).toMatch(/^application\/json/);
      expect(JSON.parse(r.text), path).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
    }
  });

  it('answers a wrong method with 405 and allowed_methods', async () => {
    const r = await owner.patch('/server_settings');
    expect(r.status).toBe(405);
    expect(r.body).toMatchObject({ result: 'error', msg: 'Method Not Allowed', allowed_methods: ['GET'] });
    const del = await owner.delete('/fetch_api_key');
    expect(del.status).toBe(405);
    expect(del.body.allowed_methods).toEqual(['POST']);
    const users = await owner.request('PUT', '/users');
    expect(users.status).toBe(405);
    expect([...users.body.allowed_methods].sort()).toEqual(['GET', 'POST']);
  });

  it('answers an oversized body with 413, whether announced by Content-Length or streamed', async () => {
    const bytes = 26 * 1024 * 1024; // the default limit is 25 MiB
    for (const chunked of [false, true]) {
      const r = await oversized({ chunked, bytes });
      expect(r.status, `chunked=${chunked}`).toBe(413);
      expect(r.body, `chunked=${chunked}`).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
    }
    // The server is still serving.
    expect((await owner.get('/users/me')).status).toBe(200);
  });
});
