// The inputs that once reached the database or threw: NUL in text parameters (sent as is or
// inside JSON), an expiry past any date, a 1 MB linkifier pattern, a 1 MB playground name.
// Each is refused with Zulip's JSON error and changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { newRealm, type Client } from '../helpers/client.js';
import { expectError } from '../helpers/messages.js';

let owner: Client;
let subdomain: string;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('inhard'));
  expect((await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }] })).status).toBe(200);
});

const NUL = 'bad\u0000value';

describe('NUL in text parameters', () => {
  it('is refused everywhere with the parameter named, before the handler runs', async () => {
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      ['POST', '/fetch_api_key', { username: `owner${NUL}@${subdomain}.test`, password: 'x' }, 'username'],
      ['POST', '/channel_folders/create', { name: NUL }, 'name'],
      ['POST', '/realm/profile_fields', { name: NUL, field_type: 1 }, 'name'],
      ['POST', '/user_groups/create', { name: NUL, description: 'd', members: [owner.userId] }, 'name'],
      ['POST', '/invites', { invitee_emails: `x${NUL}@example.com`, stream_ids: [] }, 'invitee_emails'],
      ['POST', '/users/me/android_gcm_reg_id', { token: NUL }, 'token'],
      ['POST', '/users/me/alert_words', { alert_words: [NUL] }, 'alert_words'],
      ['GET', '/messages/matches_narrow', { msg_ids: [1], narrow: [{ operator: 'search', operand: NUL }] }, 'narrow'],
    ];
    for (const [method, path, params, name] of cases) {
      const r = await owner.request(method, path, params);
      expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: `${name} contains NULL (0x00) characters.`, var_name: name });
    }
    const sent = await owner.post('/messages', { type: 'stream', to: 'general', topic: 't', content: NUL });
    expectError(sent, 400, 'BAD_REQUEST', 'Message must not contain null bytes');
    expect((await owner.get('/users/me/alert_words')).body.alert_words).toEqual([]);
    expect((await owner.get('/channel_folders')).body.channel_folders).toEqual([]);
  });

  it('keeps a backslash-u text that is not JSON as the text it is', async () => {
    const r = await owner.post('/channel_folders/create', { name: 'literally \\u0000' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const folders = (await owner.get('/channel_folders')).body.channel_folders as Array<{ name: string }>;
    expect(folders.map((f) => f.name)).toEqual(['literally \\u0000']);
  });
});

describe('values past their domain', () => {
  it('refuses an invitation expiring in 2^53−1 minutes', async () => {
    expectError(await owner.post('/invites/multiuse', { invite_expires_in_minutes: Number.MAX_SAFE_INTEGER }), 400, 'BAD_REQUEST', 'Invalid invite_expires_in_minutes');
    expectError(await owner.post('/invites/multiuse', { invite_expires_in_minutes: '9007199254740993' }), 400, 'BAD_REQUEST');
    expect((await owner.get('/invites')).body.invites).toEqual([]);
  });

  it('refuses integers past the exact range', async () => {
    const r = await owner.get('/messages', { anchor: 'newest', num_before: '99999999999999999999', num_after: 0 });
    expectError(r, 400, 'BAD_REQUEST', 'Invalid num_before');
  });

  it('refuses a 1 MB linkifier pattern with Zulip’s error, and a 1 MB playground name', async () => {
    const pattern = `(?P<id>${'a'.repeat(1_000_000)})`;
    const r = await owner.post('/realm/filters', { pattern, url_template: 'https://x.example/{id}' });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(400);
    expect(r.body.code).toBe('BAD_REQUEST');
    const nested = await owner.post('/realm/filters', { pattern: `${'('.repeat(20_000)}a${')'.repeat(20_000)}`, url_template: 'https://x.example/' });
    expectError(nested, 400, 'BAD_REQUEST', /^Bad regular expression/);
    const play = await owner.post('/realm/playgrounds', { name: 'p'.repeat(1_000_000), pygments_language: 'Rust', url_template: 'https://play.example/?c={code}' });
    expectError(play, 400, 'BAD_REQUEST', 'name is too long (limit: 100 characters)');
    expect((await owner.get('/realm/linkifiers')).body.linkifiers).toEqual([]);
  });
});
