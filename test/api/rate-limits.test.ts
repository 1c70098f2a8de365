// API rate limits (RATE_LIMITS): a token bucket per user, per IP address without credentials,
// Zulip's 429 RATE_LIMIT_HIT with retry-after, and the X-RateLimit headers on every
// authenticated answer. Runs its own server with small budgets, and one with RATE_LIMITS=off,
// which answers without any X-RateLimit header, as Zulip does with rate limiting off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser } from '../helpers/client.js';
import { ownServer, PortClient } from './events-support.js';

let server: Awaited<ReturnType<typeof ownServer>>;
let owner: PortClient;
let member: PortClient;
let other: PortClient;
let anonymous: PortClient;

beforeAll(async () => {
  const { owner: shared } = await newRealm('rlim');
  const m = await newUser(shared.subdomain, 'Mia Member');
  const o = await newUser(shared.subdomain, 'Otto Other');
  server = await ownServer({ RATE_LIMITS: 'api_by_user=4/60,api_by_ip=3/60' });
  owner = PortClient.of(server.port, shared);
  member = PortClient.of(server.port, m);
  other = PortClient.of(server.port, o);
  anonymous = PortClient.of(server.port, shared.anonymous());
});

afterAll(async () => {
  await server?.stop();
});

describe('per user', () => {
  it('counts down in X-RateLimit headers, then answers 429 RATE_LIMIT_HIT with retry-after', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await member.get('/users/me');
      expect(r.status).toBe(200);
      expect(r.headers['x-ratelimit-limit']).toBe('4');
      remaining.push(Number(r.headers['x-ratelimit-remaining']));
      expect(Number(r.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    }
    expect(remaining).toEqual([3, 2, 1, 0]);
    const limited = await member.post('/messages', { type: 'stream', to: 'general', topic: 't', content: 'over budget' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ result: 'error', code: 'RATE_LIMIT_HIT', msg: 'API usage exceeded rate limit' });
    expect(limited.body['retry-after']).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('keeps each user to their own budget; errors carry the headers too', async () => {
    const bad = await other.get('/users/999999');
    expect(bad.status).toBe(400);
    expect(bad.headers['x-ratelimit-remaining']).toBe('3');
    expect((await member.get('/users/me')).status).toBe(429);
  });

  it('limits administrators and bots like everyone, as Zulip does', async () => {
    const bot = await owner.post('/bots', { full_name: 'Limit Bot', short_name: 'limitbot' });
    expect(bot.status).toBe(200);
    const listed = (await owner.get('/bots')).body.bots as { username: string; user_id: number }[];
    const email = listed.find((b) => b.user_id === bot.body.user_id)!.username;
    const botClient = new PortClient(server.port, owner.subdomain, email, bot.body.api_key as string, bot.body.user_id as number);
    // The owner spent two of four on the bot; two more pass.
    for (let i = 0; i < 2; i++) expect((await owner.get('/users/me')).status).toBe(200);
    expect((await owner.get('/users/me')).status).toBe(429);
    for (let i = 0; i < 4; i++) expect((await botClient.get('/users/me')).status).toBe(200);
    expect((await botClient.get('/users/me')).status).toBe(429);
  });
});

describe('per IP address without credentials', () => {
  it('counts failed credentials against the address', async () => {
    const guesser = new PortClient(server.port, owner.subdomain, member.email, 'not-the-key');
    const r = await guesser.get('/users/me');
    expect(r.status).toBe(401);
    expect(r.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('limits unauthenticated endpoints by address (the failed try above counted), without X-RateLimit headers', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await anonymous.get('/server_settings');
      expect(r.status).toBe(200);
      expect(r.headers['x-ratelimit-limit']).toBeUndefined();
    }
    const limited = await anonymous.get('/server_settings');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMIT_HIT');
    // Wrong credentials draw on the same address budget: API keys cannot be guessed unlimited.
    const guesser = new PortClient(server.port, owner.subdomain, member.email, 'not-the-key');
    expect((await guesser.get('/users/me')).status).toBe(429);
  });
});

describe('with RATE_LIMITS=off', () => {
  let offServer: Awaited<ReturnType<typeof ownServer>>;
  let offMember: PortClient;
  let offAnonymous: PortClient;

  beforeAll(async () => {
    offServer = await ownServer({ RATE_LIMITS: 'off' });
    offMember = PortClient.of(offServer.port, member);
    offAnonymous = PortClient.of(offServer.port, anonymous);
  });

  afterAll(async () => {
    await offServer?.stop();
  });

  it('sends no X-RateLimit headers on answers, errors or refused credentials, and limits nobody', async () => {
    const answers = [];
    // More requests than the limited server above allows a user (4) or an address (3).
    for (let i = 0; i < 6; i++) answers.push(await offMember.get('/users/me'));
    answers.push(await offMember.get('/users/999999'));
    answers.push(await new PortClient(offServer.port, member.subdomain, member.email, 'not-the-key').get('/users/me'));
    for (let i = 0; i < 4; i++) answers.push(await offAnonymous.get('/server_settings'));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 400, 401, 200, 200, 200, 200]);
    for (const r of answers) {
      expect(Object.keys(r.headers).filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
      expect(r.headers['retry-after']).toBeUndefined();
    }
  });
});

describe('authenticate_by_username in RATE_LIMITS', () => {
  let strictServer: Awaited<ReturnType<typeof ownServer>>;
  let strictAnonymous: PortClient;

  beforeAll(async () => {
    strictServer = await ownServer({ RATE_LIMITS: 'api_by_ip=off,authenticate_by_username=2/1800' });
    strictAnonymous = PortClient.of(strictServer.port, anonymous);
  });

  afterAll(async () => {
    await strictServer?.stop();
  });

  it('limits failed password checks per username to the rule given', async () => {
    const username = other.email;
    const tries = [];
    for (const password of ['wrong-1', 'wrong-2', 'wrong-3']) tries.push(await strictAnonymous.post('/fetch_api_key', { username, password }));
    expect(tries.map((r) => [r.status, r.body.code])).toEqual([
      [401, 'AUTHENTICATION_FAILED'],
      [401, 'AUTHENTICATION_FAILED'],
      [429, 'RATE_LIMIT_HIT'],
    ]);
    // Another username is not affected.
    const theirs = await strictAnonymous.post('/fetch_api_key', { username: member.email, password: 'wrong-1' });
    expect([theirs.status, theirs.body.code]).toEqual([401, 'AUTHENTICATION_FAILED']);
  });
});
