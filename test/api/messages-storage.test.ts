// Storage of sends, on a server and database of this file's own (so that counting every row
// of every table is not disturbed by other test files): a plain send to a channel writes the
// same rows whatever the channel's size; concurrent sends are committed in batches; an
// idempotency key outlives a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { randomBytes } from 'node:crypto';
import { createDatabase, startServer, stopServer } from '../helpers/globalSetup.js';
import { httpRequest } from '../helpers/cluster.js';
import { admin, encodeForm, type Reply } from '../helpers/client.js';

let db: Awaited<ReturnType<typeof createDatabase>>;
let server: Awaited<ReturnType<typeof startServer>>;
let sql: postgres.Sql;
let owner: { email: string; api_key: string; user_id: number; realm_id: number };
const subdomain = 'storage';

function call(method: string, path: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<Reply> {
  const encoded = encodeForm(params);
  const inQuery = method === 'GET';
  return httpRequest(server.port, {
    method,
    path: `/api/v1${path}${inQuery && encoded ? `?${encoded}` : ''}`,
    host: `${subdomain}.localhost:${server.port}`,
    headers: {
      Authorization: 'Basic ' + Buffer.from(`${owner.email}:${owner.api_key}`).toString('base64'),
      ...(inQuery ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }),
      ...headers,
    },
    body: inQuery ? undefined : encoded,
  });
}

async function send(to: string, content: string, headers: Record<string, string> = {}): Promise<number> {
  const r = await call('POST', '/messages', { type: 'stream', to, topic: 'rows', content }, headers);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.id as number;
}

/** Rows of every table of the database. */
async function countAllRows(): Promise<Map<string, number>> {
  const tables = await sql<{ relname: string }[]>`SELECT relname FROM pg_stat_user_tables ORDER BY relname`;
  const out = new Map<string, number>();
  for (const { relname } of tables) {
    const [row] = await sql.unsafe<{ n: string }[]>(`SELECT count(*) AS n FROM "${relname}"`);
    out.set(relname, Number(row!.n));
  }
  return out;
}

function diff(before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [t, n] of after) if (n !== (before.get(t) ?? 0)) out[t] = n - (before.get(t) ?? 0);
  return out;
}

/** A channel with `n` subscribers besides the owner, written straight into the database. */
async function channelWithSubscribers(name: string, n: number): Promise<void> {
  const [stream] = await sql<{ id: number }[]>`
    INSERT INTO streams (realm_id, name, creator_id) VALUES (${owner.realm_id}, ${name}, ${owner.user_id}) RETURNING id`;
  const users = Array.from({ length: n }, (_, i) => ({
    realm_id: owner.realm_id,
    delivery_email: `${name}-${i}@${subdomain}.test`,
    full_name: `${name} member ${i}`,
    api_key: randomBytes(16).toString('hex'),
  }));
  const ids: number[] = [];
  for (let i = 0; i < users.length; i += 1000) {
    const rows = await sql<{ id: number }[]>`INSERT INTO users ${sql(users.slice(i, i + 1000))} RETURNING id`;
    ids.push(...rows.map((r) => r.id));
  }
  const subs = [owner.user_id, ...ids].map((user_id) => ({ user_id, stream_id: stream!.id }));
  for (let i = 0; i < subs.length; i += 1000) await sql`INSERT INTO subscriptions ${sql(subs.slice(i, i + 1000))}`;
}

beforeAll(async () => {
  db = await createDatabase('chat_msgstore');
  server = await startServer({ DATABASE_URL: db.url, DEMO_REALM: 'false' });
  sql = postgres(db.url, { max: 2, onnotice: () => undefined });
  owner = await admin(
    ['create-realm', '--subdomain', subdomain, '--name', 'Storage', '--owner-email', `owner@${subdomain}.test`,
      '--owner-password', 'owner-password-1', '--owner-name', 'Olivia Owner'],
    { DATABASE_URL: db.url },
  );
  // Before the realm's first request: the actor loads all of this when it activates.
  await channelWithSubscribers('big', 5000);
  await channelWithSubscribers('small', 5);
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  if (server) await stopServer(server.proc);
  await db?.drop();
});

describe('rows written by a send', () => {
  it('are the same for a channel of 5,000 subscribers as for one of 5', async () => {
    // First sends create each channel's conversation row; count the sends after them.
    await send('big', 'warm up');
    await send('small', 'warm up');
    const t0 = await countAllRows();
    await send('big', 'to five thousand');
    const t1 = await countAllRows();
    await send('small', 'to five');
    const t2 = await countAllRows();
    const big = diff(t0, t1);
    const small = diff(t1, t2);
    expect(big).toEqual(small);
    // The message and the sender's flags row.
    expect(big).toEqual({ messages: 1, message_flags: 1 });
  });

  it('the 5,000 subscribers still received it: it is unread for them', async () => {
    const [member] = await sql<{ email: string; api_key: string }[]>`
      SELECT delivery_email AS email, api_key FROM users WHERE delivery_email = ${`big-42@${subdomain}.test`}`;
    const r = await httpRequest(server.port, {
      method: 'POST',
      path: '/api/v1/register',
      host: `${subdomain}.localhost:${server.port}`,
      headers: {
        Authorization: 'Basic ' + Buffer.from(`${member!.email}:${member!.api_key}`).toString('base64'),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: encodeForm({ fetch_event_types: ['message', 'update_message_flags'] }),
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.unread_msgs.count).toBe(2);
    expect(r.body.unread_msgs.streams).toEqual([expect.objectContaining({ topic: 'rows', unread_message_ids: expect.any(Array) })]);
  });
});

describe('group commit', () => {
  it('commits concurrent sends together, all acknowledged, in order', async () => {
    const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => send('small', `burst ${i}`)));
    expect(new Set(ids).size).toBe(60);
    // Rows inserted by one transaction share xmin: fewer transactions than sends.
    const [row] = await sql<{ n: string }[]>`SELECT count(DISTINCT xmin::text) AS n FROM messages WHERE id = ANY(${ids}::int8[])`;
    expect(Number(row!.n)).toBeLessThan(60);
    const listed = await call('GET', '/messages', { anchor: 'newest', num_before: 60, narrow: [{ operator: 'channel', operand: 'small' }] });
    const fetched = (listed.body.messages as Array<{ id: number; content: string }>).map((m) => m.id);
    expect(fetched).toEqual([...ids].sort((a, b) => a - b));
  });
});

describe('an idempotency key', () => {
  it('is honoured after a restart of the server', async () => {
    const key = { 'Idempotency-Key': 'restart-proof' };
    const first = await send('small', 'once only', key);
    await stopServer(server.proc);
    server = await startServer({ DATABASE_URL: db.url, DEMO_REALM: 'false' });
    const again = await send('small', 'once only', key);
    expect(again).toBe(first);
    const [row] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM messages WHERE content = 'once only'`;
    expect(Number(row!.n)).toBe(1);
  });
});

describe('a batch of mixed sends', () => {
  it('stores every column as sent, whatever the text holds', async () => {
    const tricky = 'a "quoted" \\back\\slash {x,y} NULL, ünïcödé 🎉 \'single\' \t tab';
    const post = (params: Record<string, unknown>, headers: Record<string, string> = {}) => call('POST', '/messages', params, headers);
    const replies = await Promise.all([
      post({ type: 'stream', to: 'small', topic: 'odd "topic" \\ {}', content: tricky }),
      post({ type: 'stream', to: 'small', topic: 'me', content: '/me waves' }),
      post({ type: 'direct', to: JSON.stringify([owner.user_id]), content: 'NULL' }),
      post({ type: 'stream', to: 'small', topic: 'link', content: 'see https://example.com/x' }, { 'Idempotency-Key': 'mixed-batch' }),
      post({ type: 'stream', to: 'small', topic: 'all', content: '@**all** hello' }),
    ]);
    for (const r of replies) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const ids = replies.map((r) => r.body.id as number);
    const rows = await sql<Array<{
      id: string; stream_id: number | null; topic: string; content: string; is_me_message: boolean; has_link: boolean;
      idempotency_key: string | null; mentions_stream_wildcard: boolean; client: string; sender_id: number;
    }>>`SELECT id, stream_id, topic, content, is_me_message, has_link, idempotency_key, mentions_stream_wildcard, client, sender_id
        FROM messages WHERE id = ANY(${ids}::int8[]) ORDER BY id`;
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    const [odd, me, dm, link, all] = ids.map((id) => byId.get(id)!);
    expect(odd).toMatchObject({ topic: 'odd "topic" \\ {}', content: tricky, is_me_message: false, has_link: false, idempotency_key: null, sender_id: owner.user_id });
    expect(odd!.stream_id).not.toBeNull();
    expect(me).toMatchObject({ content: '/me waves', is_me_message: true });
    expect(dm).toMatchObject({ stream_id: null, content: 'NULL', topic: '' });
    expect(link).toMatchObject({ has_link: true, idempotency_key: 'mixed-batch' });
    expect(all).toMatchObject({ mentions_stream_wildcard: true });
    // And as the API gives them back.
    const fetched = await call('GET', `/messages/${ids[0]}`, { apply_markdown: 'false' });
    expect(fetched.body.message).toMatchObject({ content: tricky, subject: 'odd "topic" \\ {}' });
  });
});
