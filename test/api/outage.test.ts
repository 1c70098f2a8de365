// The database going away under a running server: its connections pass through a TCP relay
// the test cuts. Requests that need the database answer 503 with Retry-After (never 500),
// nothing is half-applied, and once the database is back a retry with the same
// Idempotency-Key is applied exactly once.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import postgres from 'postgres';
import { encodeForm, httpRequest, newRealm } from '../helpers/client.js';
import { freePort } from '../../scripts/freePort.js';
import { ownServer, PortClient } from './events-support.js';

/** A TCP relay to Postgres that can refuse and drop every connection, then come back. */
class Relay {
  private server: net.Server | null = null;
  get running(): boolean {
    return this.server !== null;
  }
  private readonly sockets = new Set<net.Socket>();

  constructor(readonly port: number, private readonly target: { host: string; port: number }) {}

  start(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    return new Promise((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }

  /** Refuses new connections and drops the open ones. */
  async cut(): Promise<void> {
    const closed = new Promise((r) => this.server?.close(r));
    for (const s of this.sockets) s.destroy();
    await closed;
    this.server = null;
  }
}

let relay: Relay;
let server: Awaited<ReturnType<typeof ownServer>>;
let owner: PortClient;
let sql: postgres.Sql;

beforeAll(async () => {
  const { owner: shared } = await newRealm('outage');
  expect((await shared.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }] })).status).toBe(200);
  const dbUrl = new URL(inject('databaseUrl'));
  relay = new Relay(await freePort(), { host: dbUrl.hostname, port: Number(dbUrl.port || 5432) });
  await relay.start();
  const viaRelay = new URL(dbUrl);
  viaRelay.port = String(relay.port);
  server = await ownServer({ DATABASE_URL: viaRelay.toString() });
  owner = PortClient.of(server.port, shared);
  sql = postgres(inject('databaseUrl'), { max: 1, onnotice: () => undefined });
});

afterAll(async () => {
  if (relay && !relay.running) await relay.start();
  await server?.stop();
  await relay?.cut();
  await sql?.end({ timeout: 5 });
});

const send = (content: string, key: string) =>
  httpRequest(server.port, {
    method: 'POST', path: '/api/v1/messages', host: owner.host, ownConnection: true,
    headers: {
      Authorization: 'Basic ' + Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64'),
      'Content-Type': 'application/x-www-form-urlencoded', 'Idempotency-Key': key,
    },
    body: encodeForm({ type: 'stream', to: 'general', topic: 'outage', content }),
  });

const stored = async (content: string) => Number((await sql<{ n: string }[]>`SELECT count(*) AS n FROM messages WHERE content = ${content}`)[0]!.n);

describe('the database out of reach', () => {
  it('answers 503 with Retry-After, writes nothing, and a retry with the same key lands once', async () => {
    expect((await owner.get('/users/me')).status).toBe(200); // the realm is loaded
    expect((await send('before the outage', 'k-before')).status).toBe(200);
    await relay.cut();
    const content = `during the outage ${Date.now()}`;
    const refused = await send(content, 'k-outage');
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ result: 'error', code: 'SERVER_NOT_READY' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    for (const r of [await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'new during outage' }] }), await owner.patch('/settings', { full_name: 'Renamed In Outage' })]) {
      expect(r.status, JSON.stringify(r.body)).toBe(503);
    }
    await relay.start();
    // Refused writes left memory as the database: neither the channel nor the name changed.
    expect((await owner.get('/users/me')).body.full_name).toBe('Olivia Owner');
    expect((await owner.get('/get_stream_id', { stream: 'new during outage' })).status).toBe(400);
    expect(await stored(content)).toBe(0);
    // The pool reconnects on demand: the client retries as Retry-After tells it.
    let retried = await send(content, 'k-outage');
    for (let i = 0; i < 20 && retried.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 250));
      retried = await send(content, 'k-outage');
    }
    expect(retried.status).toBe(200);
    expect((await send(content, 'k-outage')).body.id).toBe(retried.body.id);
    expect(await stored(content)).toBe(1);
  });
});
