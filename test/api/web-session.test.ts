// The web client's authentication: POST /json/login sets an HttpOnly session cookie and a
// CSRF token cookie; /json requests authenticate by the cookie and every non-GET one needs
// the token (Zulip's CSRF_FAILED otherwise); logout, deactivation and a changed password end
// sessions (Zulip's 401 with `WWW-Authenticate: Session`); login is rate limited together
// with /fetch_api_key; /api/v1 keeps HTTP Basic and knows no login.
import { beforeAll, describe, expect, it } from 'vitest';
import { httpRequest, newRealm, newUser, rawRequest, type Client, type Reply } from '../helpers/client.js';
import { startOwnServer } from '../helpers/ownServer.js';

const PASSWORD = 'user-password-1';

let owner: Client;
let subdomain: string;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('wsess'));
});

interface Session {
  cookie: string;
  csrf: string;
  reply: Reply;
}

const form = (params: Record<string, string>) => new URLSearchParams(params).toString();

function json(c: Client, method: string, path: string, opts: { cookie?: string; csrf?: string; origin?: string; body?: Record<string, string> } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (opts.cookie) headers.Cookie = opts.cookie;
  if (opts.csrf) headers['X-CSRFToken'] = opts.csrf;
  if (opts.origin) headers.Origin = opts.origin;
  if (opts.body) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  return rawRequest({ method, path: `/json${path}`, host: c.host, headers, body: opts.body ? form(opts.body) : undefined });
}

async function login(c: Client, email: string, password = PASSWORD): Promise<Session> {
  const reply = await json(c, 'POST', '/login', { body: { username: email, password }, origin: `http://${c.host}` });
  const set = ([] as string[]).concat(reply.headers['set-cookie'] ?? []);
  const value = (name: string) => set.find((c) => c.startsWith(`${name}=`))?.split(';')[0]?.slice(name.length + 1) ?? '';
  return { cookie: `sessionid=${value('sessionid')}; csrftoken=${value('csrftoken')}`, csrf: value('csrftoken'), reply };
}

const sendVia = (c: Client, s: Session, csrf: string | undefined, content = 'hello') =>
  json(c, 'POST', '/messages', { cookie: s.cookie, csrf, body: { type: 'direct', to: JSON.stringify([owner.userId]), content } });

const expectSessionRequired = (r: Reply) => {
  expect(r.status).toBe(401);
  expect(r.body).toMatchObject({ result: 'error', code: 'UNAUTHORIZED', msg: 'Not logged in: API authentication or user session required' });
  expect(r.headers['www-authenticate']).toBe('Session realm="zulip"');
};

describe('POST /json/login', () => {
  it('sets an HttpOnly session cookie and a CSRF token cookie and answers with the user', async () => {
    const user = await newUser(subdomain, 'Lena Login');
    const s = await login(user, user.email!);
    expect(s.reply.status).toBe(200);
    expect(s.reply.body).toMatchObject({ result: 'success', user_id: user.userId, email: user.email, csrf_token: s.csrf });
    const set = ([] as string[]).concat(s.reply.headers['set-cookie'] ?? []);
    const session = set.find((c) => c.startsWith('sessionid='))!;
    const csrf = set.find((c) => c.startsWith('csrftoken='))!;
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Lax/);
    expect(session).toMatch(/; Path=\//);
    expect(session).not.toMatch(/Secure/); // served over plain HTTP here
    expect(csrf).not.toMatch(/HttpOnly/); // the page reads it
    const me = await json(user, 'GET', '/users/me', { cookie: s.cookie });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user_id: user.userId });
  });

  it('refuses a wrong password with the same error as /fetch_api_key', async () => {
    const user = await newUser(subdomain, 'Wrong Pass');
    const r = await login(user, user.email!, 'not-the-password');
    expect(r.reply.status).toBe(401);
    expect(r.reply.body).toMatchObject({ code: 'AUTHENTICATION_FAILED', msg: 'Your username or password is incorrect' });
    expect(r.reply.headers['set-cookie']).toBeUndefined();
    const unknown = await login(user, `nobody@${subdomain}.test`, 'whatever');
    expect(unknown.reply.body).toEqual(r.reply.body);
  });

  it('counts failures together with /fetch_api_key: five per username, then 429', async () => {
    const user = await newUser(subdomain, 'Rate Limited');
    for (let i = 0; i < 3; i++) expect((await login(user, user.email!, `bad-${i}`)).reply.status).toBe(401);
    for (let i = 0; i < 2; i++) {
      const r = await user.anonymous().post('/fetch_api_key', { username: user.email, password: `bad-api-${i}` });
      expect(r.status).toBe(401);
    }
    const limited = await login(user, user.email!);
    expect(limited.reply.status).toBe(429);
    expect(limited.reply.body).toMatchObject({ code: 'RATE_LIMIT_HIT', msg: 'API usage exceeded rate limit' });
    expect(Number(limited.reply.headers['retry-after'])).toBeGreaterThan(0);
    const viaApi = await user.anonymous().post('/fetch_api_key', { username: user.email, password: PASSWORD });
    expect(viaApi.status).toBe(429);
  });

  it('is not part of /api/v1, which keeps HTTP Basic', async () => {
    const user = await newUser(subdomain, 'Api Only');
    const r = await user.anonymous().post('/login', { username: user.email, password: PASSWORD });
    expect(r.status).toBe(404);
    // A session cookie does not authenticate /api/v1.
    const s = await login(user, user.email!);
    const viaApi = await rawRequest({ method: 'GET', path: '/api/v1/users/me', host: user.host, headers: { Cookie: s.cookie } });
    expect(viaApi.status).toBe(401);
    expect(viaApi.headers['www-authenticate']).toBe('Basic realm="zulip"');
    // And /json ignores an Authorization header.
    const basic = 'Basic ' + Buffer.from(`${user.email}:${user.apiKey}`).toString('base64');
    const viaJson = await rawRequest({ method: 'GET', path: '/json/users/me', host: user.host, headers: { Authorization: basic } });
    expectSessionRequired(viaJson);
  });

  it('refuses a login posted from another site', async () => {
    const user = await newUser(subdomain, 'Cross Site');
    const r = await json(user, 'POST', '/login', { body: { username: user.email!, password: PASSWORD }, origin: 'http://evil.example' });
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'CSRF_FAILED', reason: 'Origin checking failed - http://evil.example does not match any trusted origins.' });
  });
});

describe('CSRF on /json', () => {
  let user: Client;
  let s: Session;
  beforeAll(async () => {
    user = await newUser(subdomain, 'Csrf Checked');
    s = await login(user, user.email!);
  });

  it('refuses a POST without the token: 403 CSRF_FAILED, nothing sent', async () => {
    const r = await sendVia(user, s, undefined, 'no token');
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ result: 'error', code: 'CSRF_FAILED', msg: 'CSRF error: CSRF token missing.', reason: 'CSRF token missing.' });
    const wrong = await sendVia(user, s, 'x'.repeat(43), 'wrong token');
    expect(wrong.status).toBe(403);
    expect(wrong.body).toMatchObject({ code: 'CSRF_FAILED', reason: "CSRF token from the 'X-Csrftoken' HTTP header incorrect." });
    const otherSite = await json(user, 'POST', '/messages', {
      cookie: s.cookie,
      csrf: s.csrf,
      origin: 'https://evil.example',
      body: { type: 'direct', to: JSON.stringify([owner.userId]), content: 'from elsewhere' },
    });
    expect(otherSite.status).toBe(403);
    expect(otherSite.body).toMatchObject({ code: 'CSRF_FAILED' });
    const sent = await owner.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'dm', operand: [user.userId] }] });
    expect((sent.body.messages as { content: string }[]).map((m) => m.content)).toEqual([]);
  });

  it('accepts the token on POST, PATCH and DELETE, and GET without it', async () => {
    const sent = await sendVia(user, s, s.csrf, 'with token');
    expect(sent.status).toBe(200);
    const id = sent.body.id as number;
    const edit = await json(user, 'PATCH', `/messages/${id}`, { cookie: s.cookie, csrf: s.csrf, body: { content: 'edited' } });
    expect(edit.status).toBe(200);
    const get = await json(user, 'GET', `/messages/${id}`, { cookie: s.cookie });
    // Sent from the web app ("website"): read for its sender, as on Zulip.
    expect(get.body.message).toMatchObject({ content: '<p>edited</p>', client: 'website' });
    expect(get.body.message.flags).toContain('read');
    const del = await json(user, 'DELETE', `/messages/${id}`, { cookie: s.cookie, csrf: s.csrf });
    expect(del.status).toBe(200);
  });

  it("does not accept another session's token", async () => {
    const other = await login(user, user.email!);
    const r = await sendVia(user, s, other.csrf, 'borrowed token');
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ code: 'CSRF_FAILED' });
  });
});

describe('sessions that stop working', () => {
  it('answers /json without a session, or with an unknown one, with 401 Session', async () => {
    expectSessionRequired(await json(owner, 'GET', '/users/me'));
    expectSessionRequired(await json(owner, 'GET', '/users/me', { cookie: 'sessionid=made-up' }));
    expectSessionRequired(await json(owner, 'POST', '/messages', { cookie: 'sessionid=made-up', body: { type: 'stream', to: 'x', topic: 't', content: 'c' } }));
  });

  it('ends the session at logout', async () => {
    const user = await newUser(subdomain, 'Logs Out');
    const s = await login(user, user.email!);
    const out = await json(user, 'POST', '/logout', { cookie: s.cookie, csrf: s.csrf });
    expect(out.status).toBe(200);
    const cleared = ([] as string[]).concat(out.headers['set-cookie'] ?? []);
    expect(cleared.some((c) => c.startsWith('sessionid=;') && c.includes('Max-Age=0'))).toBe(true);
    expectSessionRequired(await json(user, 'GET', '/users/me', { cookie: s.cookie }));
    expectSessionRequired(await json(user, 'POST', '/logout', { cookie: s.cookie, csrf: s.csrf }));
  });

  it("ends a deactivated user's sessions, also after reactivation", async () => {
    const user = await newUser(subdomain, 'Soon Gone');
    const s = await login(user, user.email!);
    expect((await json(user, 'GET', '/users/me', { cookie: s.cookie })).status).toBe(200);
    expect((await owner.delete(`/users/${user.userId}`)).status).toBe(200);
    expectSessionRequired(await json(user, 'GET', '/users/me', { cookie: s.cookie }));
    expect((await owner.post(`/users/${user.userId}/reactivate`)).status).toBe(200);
    expectSessionRequired(await json(user, 'GET', '/users/me', { cookie: s.cookie }));
    expect((await login(user, user.email!)).reply.status).toBe(200);
  });

  it('keeps the session that changed the password and ends the others', async () => {
    const user = await newUser(subdomain, 'New Password');
    const a = await login(user, user.email!);
    const b = await login(user, user.email!);
    const r = await json(user, 'PATCH', '/settings', { cookie: a.cookie, csrf: a.csrf, body: { old_password: PASSWORD, new_password: 'another-password-2' } });
    expect(r.status).toBe(200);
    expect((await json(user, 'GET', '/users/me', { cookie: a.cookie })).status).toBe(200);
    expectSessionRequired(await json(user, 'GET', '/users/me', { cookie: b.cookie }));
    expect((await login(user, user.email!)).reply.status).toBe(401);
    expect((await login(user, user.email!, 'another-password-2')).reply.status).toBe(200);
  });

  it('is bound to its organization', async () => {
    const other = await newRealm('wsess2');
    const user = await newUser(subdomain, 'One Realm');
    const s = await login(user, user.email!);
    expectSessionRequired(await json(other.owner, 'GET', '/users/me', { cookie: s.cookie }));
  });
});

describe('event queues registered through a session', () => {
  const register = async (user: Client, s: Session) => {
    const reg = await json(user, 'POST', '/register', { cookie: s.cookie, csrf: s.csrf, body: { event_types: JSON.stringify(['message']), fetch_event_types: '[]' } });
    expect(reg.status).toBe(200);
    return reg.body.queue_id as string;
  };
  const pollCode = async (user: Client, queueId: string) =>
    (await user.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true })).body.code ?? 'ok';

  it('end with the session at logout; the queues of other sessions and of the API stay', async () => {
    const user = await newUser(subdomain, 'Queue Logout');
    const a = await login(user, user.email!);
    const b = await login(user, user.email!);
    const [qa, qb] = [await register(user, a), await register(user, b)];
    const qApi = (await user.post('/register', { event_types: JSON.stringify(['message']) })).body.queue_id as string;
    expect(await pollCode(user, qa)).toBe('ok');
    expect((await json(user, 'POST', '/logout', { cookie: a.cookie, csrf: a.csrf })).status).toBe(200);
    expect([await pollCode(user, qa), await pollCode(user, qb), await pollCode(user, qApi)]).toEqual(['BAD_EVENT_QUEUE_ID', 'ok', 'ok']);
  });

  it('of other sessions end at a password change; the changing session keeps its queue', async () => {
    const user = await newUser(subdomain, 'Queue Password');
    const a = await login(user, user.email!);
    const b = await login(user, user.email!);
    const [qa, qb] = [await register(user, a), await register(user, b)];
    const r = await json(user, 'PATCH', '/settings', { cookie: a.cookie, csrf: a.csrf, body: { old_password: PASSWORD, new_password: 'another-password-3' } });
    expect(r.status).toBe(200);
    expect([await pollCode(user, qa), await pollCode(user, qb)]).toEqual(['ok', 'BAD_EVENT_QUEUE_ID']);
  });
});

describe('sessions in Postgres', () => {
  it('are honoured by another server process on the same database', async () => {
    const user = await newUser(subdomain, 'Two Servers');
    const s = await login(user, user.email!);
    const other = await startOwnServer({}, false);
    try {
      const r = await httpRequest(other.port, { method: 'GET', path: '/json/users/me', host: `${subdomain}.localhost:${other.port}`, headers: { Cookie: s.cookie } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ user_id: user.userId });
    } finally {
      await other.stop();
    }
  });
});

describe('the event queue over a session', () => {
  it('registers and polls on /json', async () => {
    const user = await newUser(subdomain, 'Poller');
    const s = await login(user, user.email!);
    const reg = await json(user, 'POST', '/register', { cookie: s.cookie, csrf: s.csrf, body: { event_types: JSON.stringify(['message']), fetch_event_types: JSON.stringify(['message', 'realm']) } });
    expect(reg.status).toBe(200);
    await owner.post('/messages', { type: 'direct', to: JSON.stringify([user.userId]), content: 'ping' });
    const poll = await rawRequest({
      method: 'GET',
      path: `/json/events?${form({ queue_id: reg.body.queue_id as string, last_event_id: '-1' })}`,
      host: user.host,
      headers: { Cookie: s.cookie },
    });
    expect(poll.status).toBe(200);
    expect((poll.body.events as { type: string }[]).map((e) => e.type)).toContain('message');
    // The emoji table the register response points to.
    const url = new URL(reg.body.server_emoji_data_url as string);
    const table = await rawRequest({ method: 'GET', path: url.pathname, host: user.host });
    expect(table.status).toBe(200);
    expect(table.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((table.body.code_to_names as Record<string, string[]>)['1f642']).toEqual(['smile', 'slightly_smiling_face']);
  });
});
