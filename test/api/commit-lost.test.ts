// A send whose database connection breaks in the middle of its write: the write may have
// committed or not, and the server must find out which rather than answer an error for a
// stored message (or store it twice). The server here reaches Postgres through a TCP proxy
// that can cut every connection at once; a trigger holds the test's messages in their INSERT
// long enough to cut there.
import net from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newRealm } from '../helpers/client.js';
import { ownServer, PortClient } from './events-support.js';

const PROBE = 'commit-probe';

/** A TCP proxy to Postgres whose connections can all be cut. */
class CuttableProxy {
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  private readonly server = net.createServer((client) => {
    const target = new URL(inject('databaseUrl'));
    const upstream = net.connect({ host: target.hostname, port: Number(target.port || 5432) });
    const pair: [net.Socket, net.Socket] = [client, upstream];
    this.pairs.add(pair);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** Every connection ends at once, both ways; new ones are taken as before. */
  cut(): void {
    for (const [client, upstream] of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const proxy = new CuttableProxy();
const admin = postgres(inject('databaseUrl'), { max: 1, onnotice: () => undefined });
let server: Awaited<ReturnType<typeof ownServer>>;
let owner: PortClient;

beforeAll(async () => {
  await admin.unsafe(`
    CREATE OR REPLACE FUNCTION commit_probe_pause() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_sleep(1.5); RETURN NEW; END $$`);
  await admin.unsafe(`DROP TRIGGER IF EXISTS commit_probe ON messages`);
  await admin.unsafe(`
    CREATE TRIGGER commit_probe AFTER INSERT ON messages FOR EACH ROW
    WHEN (NEW.content LIKE '${PROBE}%') EXECUTE FUNCTION commit_probe_pause()`);
  const { owner: shared } = await newRealm('clost');
  const sub = await shared.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }] });
  expect(sub.status, JSON.stringify(sub.body)).toBe(200);
  const url = new URL(inject('databaseUrl'));
  url.hostname = '127.0.0.1';
  url.port = String(await proxy.listen());
  server = await ownServer({ DATABASE_URL: url.toString() });
  owner = PortClient.of(server.port, shared);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await proxy.close();
  await admin.unsafe(`DROP TRIGGER IF EXISTS commit_probe ON messages`);
  await admin.unsafe(`DROP FUNCTION IF EXISTS commit_probe_pause()`);
  await admin.end();
});

const pausedBackends = async () =>
  (await admin<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'PgSleep'`).map((r) => r.pid);

/** The backend of this database held in the trigger's pause, once there is one. */
async function pausedBackend(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const [pid] = await pausedBackends();
    if (pid !== undefined) return pid;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('no send reached its INSERT');
}

/** No write of an earlier test is still held in the pause (it would be taken for this test's). */
async function noneHeld(): Promise<void> {
  for (let i = 0; i < 200 && (await pausedBackends()).length > 0; i++) await new Promise((r) => setTimeout(r, 25));
  expect(await pausedBackends()).toEqual([]);
}

const stored = async (content: string) =>
  (await admin<{ n: number }[]>`SELECT count(*)::int AS n FROM messages WHERE content = ${content}`)[0]!.n;

const send = (content: string) => owner.post('/messages', { type: 'stream', to: 'general', topic: 'lost', content });

describe('a send whose database connection breaks mid-write', () => {
  it('is acknowledged when the write committed after all, and stored once', async () => {
    await noneHeld();
    const content = `${PROBE} committed`;
    const sending = send(content);
    await pausedBackend();
    // The server's side of the connection goes; Postgres finishes the INSERT and commits.
    proxy.cut();
    const r = await sending;
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await stored(content)).toBe(1);
    const fetched = await owner.get(`/messages/${r.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.raw_content).toBe(content);
  }, 30_000);

  it('is written again when the write did not commit, and stored once', async () => {
    await noneHeld();
    const content = `${PROBE} rolled back`;
    const sending = send(content);
    const pid = await pausedBackend();
    // Postgres ends that session: its transaction rolls back.
    await admin`SELECT pg_terminate_backend(${pid})`;
    const r = await sending;
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await stored(content)).toBe(1);
    const latest = await owner.get('/messages', { anchor: 'newest', num_before: 3, num_after: 0, narrow: [['channel', 'general']] });
    expect(latest.body.messages.filter((m: { content: string }) => m.content.includes(content))).toHaveLength(1);
  }, 30_000);
});
