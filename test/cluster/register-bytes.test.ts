// A large POST /register through a cluster: the worker sends the body as byte pieces (the
// kept user lists among them), the transport carries them as they are, and the front writes
// them to the client as the socket takes them. The client must get, whatever its pace, the
// bytes JSON.stringify gives for the answer; a client that leaves mid-body harms nothing.
import http from 'node:http';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster, type ClusterClient } from '../helpers/cluster.js';
import { createUsersInBulk } from '../../scripts/bulkUsers.js';

const USERS = 60_000;

let cluster: TestCluster;
let owner: ClusterClient;

beforeAll(async () => {
  cluster = await TestCluster.start({ fronts: 1, workers: ['w1'] });
  owner = await cluster.newRealm('bigreg');
  const sql = postgres(cluster.databaseUrl, { max: 2, onnotice: () => undefined });
  try {
    const [realm] = await sql<{ id: number }[]>`SELECT id FROM realms WHERE string_id = 'bigreg'`;
    await createUsersInBulk(sql, realm!.id, { count: USERS, emailPrefix: 'u', emailDomain: 'bigreg.test', fullNamePrefix: 'Ünïcode ✔ user', role: 400 });
  } finally {
    await sql.end();
  }
  // The worker reads the bulk creation from the change journal.
  for (let tries = 0; ; tries++) {
    const state = await owner.post('/register', { fetch_event_types: JSON.stringify(['realm_user']) });
    if (state.status === 200 && (state.body.realm_users as unknown[]).length === USERS + 1) break;
    if (tries > 100) throw new Error(`the worker did not load the users: ${JSON.stringify(state.body).slice(0, 200)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

/**
 * A full register read as raw bytes; `pauseMs` stops reading after the first chunk for that
 * long (the front's socket fills up), `abort` leaves after the first chunk.
 */
function rawRegister(opts: { pauseMs?: number; abort?: boolean } = {}): Promise<{ bytes: Buffer; length: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: owner.port,
        method: 'POST',
        path: '/api/v1/register',
        agent: false,
        headers: {
          Host: `${owner.subdomain}.localhost:${owner.port}`,
          Authorization: 'Basic ' + Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64'),
          'Content-Length': '0',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let paused = false;
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          if (opts.abort) {
            req.destroy();
            resolve({ bytes: Buffer.concat(chunks), length: Number(res.headers['content-length']) });
            return;
          }
          if (opts.pauseMs && !paused) {
            paused = true;
            res.pause();
            setTimeout(() => res.resume(), opts.pauseMs);
          }
        });
        res.on('end', () => resolve({ bytes: Buffer.concat(chunks), length: Number(res.headers['content-length']) }));
        res.on('error', reject);
      },
    );
    req.on('error', (err) => (opts.abort ? undefined : reject(err)));
    req.end();
  });
}

/** The answer without what differs between two registers (the queue, the clock). */
const withoutQueue = (text: string) =>
  text.replace(/"queue_id":"[^"]*"/, '').replace(/"last_event_id":-?\d+/, '').replace(/"server_timestamp":[\d.]+/, '');

describe('a large register through a cluster', () => {
  it('reaches the client as the bytes JSON.stringify gives, fast or slow reader', async () => {
    const fast = await rawRegister();
    expect(fast.bytes.length).toBe(fast.length);
    expect(fast.bytes.length).toBeGreaterThan(5_000_000);
    const text = fast.bytes.toString('utf8');
    const parsed = JSON.parse(text) as { realm_users: { full_name: string }[]; result: string };
    expect(parsed.result).toBe('success');
    expect(parsed.realm_users).toHaveLength(USERS + 1);
    expect(parsed.realm_users[USERS]!.full_name).toBe(`Ünïcode ✔ user ${USERS}`);
    expect(Buffer.from(JSON.stringify(parsed) + '\n', 'utf8').equals(fast.bytes)).toBe(true);

    // A reader that stops for a while: the rest waits for the socket, and arrives whole.
    const slow = await rawRegister({ pauseMs: 1500 });
    expect(slow.bytes.length).toBe(slow.length);
    // (Compared as a boolean: a failed comparison of two large texts prints both.)
    expect(withoutQueue(slow.bytes.toString('utf8')) === withoutQueue(text)).toBe(true);
  });

  it('keeps a slow reader\'s answer intact while other answers pass through the same front', async () => {
    // The front reads answers into buffers it uses again once an answer is written out: the
    // slow reader's must stay untouched while the fast ones come and go.
    const slow = rawRegister({ pauseMs: 2000 });
    const fast: string[] = [];
    for (let i = 0; i < 3; i++) fast.push(withoutQueue((await rawRegister()).bytes.toString('utf8')));
    const held = await slow;
    expect(held.bytes.length).toBe(held.length);
    expect(withoutQueue(held.bytes.toString('utf8')) === fast[0]).toBe(true);
    expect(fast[1] === fast[0] && fast[2] === fast[0]).toBe(true);
  });

  it('goes on serving after a client left in the middle of a body', async () => {
    const partial = await rawRegister({ abort: true });
    expect(partial.bytes.length).toBeLessThan(partial.length);
    const again = await rawRegister();
    expect(again.bytes.length).toBe(again.length);
    expect((await owner.get('/users/me')).status).toBe(200);
  });
});
