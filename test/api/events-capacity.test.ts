// The memory bar: 1,000 queues parked on one server process cost under 10 MB together, and a
// heartbeat reaches each on time. Runs its own server so nothing else shares its memory.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, type Client } from '../helpers/client.js';
import { evaluateAfterGc, inspectorUrl, ownServer, PortClient } from './events-support.js';

const QUEUES = 1000;
const HEARTBEAT_SECONDS = 5;
/** The server adds up to 20 % (at most 10 s) of jitter to spread heartbeats. */
const LATEST_HEARTBEAT_MS = (HEARTBEAT_SECONDS * 1.2 + 2) * 1000;
const MB = 1024 * 1024;

let server: Awaited<ReturnType<typeof ownServer>>;
let owner: Client;
let auth: string;
let inspector: string;

beforeAll(async () => {
  // The inspector lets the test collect garbage in the server before each reading.
  server = await ownServer({
    HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
    LOG_LEVEL: 'error',
    NODE_OPTIONS: '--inspect=127.0.0.1:0',
  });
  inspector = await inspectorUrl(server.output);
  owner = PortClient.of(server.port, (await newRealm('cap')).owner);
  auth = 'Basic ' + Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64');
});

afterAll(async () => {
  await server?.stop();
});

interface Memory {
  rss: number;
  heapUsed: number;
}

/** The server's memory after a full garbage collection. */
async function memory(): Promise<Memory> {
  await sleep(300);
  return (await evaluateAfterGc(inspector, '({ rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed })')) as Memory;
}

/** One request on its own connection (no keep-alive, no socket pool). */
function request(method: string, path: string, body?: string): Promise<{ status: number; body: Record<string, any> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: server.port,
        method,
        path: `/api/v1${path}`,
        agent: false,
        headers: {
          Host: owner.host,
          Authorization: auth,
          ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

/** Runs tasks with bounded concurrency. */
async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('1,000 parked long-polls', () => {
  it('cost under 10 MB and each gets its heartbeat on time', async () => {
    await memory(); // the inspector's own first-use allocations
    const registerAll = async (count: number) => {
      const ids: string[] = [];
      await inBatches(Array.from({ length: count }, (_, i) => i), 50, async () => {
        const r = await request('POST', '/register', 'fetch_event_types=%5B%5D');
        expect(r.status).toBe(200);
        ids.push(r.body.queue_id);
      });
      return ids;
    };
    const pollAllNow = (ids: string[]) =>
      inBatches(ids, 100, async (q) => {
        const r = await request('GET', `/events?queue_id=${q}&last_event_id=-1&dont_block=true`);
        expect(r.status).toBe(200);
      });
    // Warm every path once (registering, polling, deleting) so first-use costs (compiled
    // code, grown heap spaces) are not counted against the queues.
    const warm = await registerAll(200);
    await pollAllNow(warm);
    await inBatches(warm, 100, async (q) => expect((await request('DELETE', `/events?queue_id=${q}`)).status).toBe(200));
    const empty = await memory();

    const queueIds = await registerAll(QUEUES);
    await pollAllNow(queueIds);
    const before = await memory();
    const started = new Map<string, number>();
    const polls = queueIds.map((q) => {
      started.set(q, Date.now());
      return request('GET', `/events?queue_id=${q}&last_event_id=-1`).then((r) => ({ q, r, at: Date.now() }));
    });
    // All 1,000 requests are out; give the server a moment to park them all.
    await sleep(1000);
    const parked = await memory();
    const mb = (n: number) => `${(n / MB).toFixed(2)} MB`;
    for (const key of ['rss', 'heapUsed'] as const) {
      console.log(
        `${key}: no queues ${mb(empty[key])}, ${QUEUES} idle queues ${mb(before[key])}, all polls parked ${mb(parked[key])}; ` +
          `queues and parked polls cost ${mb(parked[key] - empty[key])}`,
      );
      expect(parked[key] - empty[key]).toBeLessThan(10 * MB);
    }

    const results = await Promise.all(polls);
    let latest = 0;
    for (const { q, r, at } of results) {
      expect(r.status).toBe(200);
      expect(r.body.events).toEqual([{ type: 'heartbeat', id: 0 }]);
      const waited = at - started.get(q)!;
      // Nothing answered early: every poll was parked while memory was measured.
      expect(waited).toBeGreaterThanOrEqual(HEARTBEAT_SECONDS * 1000 - 50);
      latest = Math.max(latest, waited);
    }
    console.log(`slowest heartbeat after ${latest} ms`);
    expect(latest).toBeLessThan(LATEST_HEARTBEAT_MS);
  }, 60_000);
});
