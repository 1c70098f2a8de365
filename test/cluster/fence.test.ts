// Two workers contend for one realm: the lease's epoch, checked inside every write
// transaction, keeps the one that lost the realm from committing.
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { createDatabase } from '../helpers/globalSetup.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { insertRealm } from '../../src/db/realms.js';
import { log } from '../../src/log.js';
import { LeaseManager } from '../../cluster/leases.js';
import postgres from 'postgres';
import type { Sql } from '../../src/db/connect.js';
import { ensureConversation, insertMessageBatch, type NewMessage } from '../../src/db/messages.js';
import { insertUser } from '../../src/db/users.js';
import { statementFence } from '../../src/db/statementFence.js';

let db: Database;
let url: string;
let drop: () => Promise<void>;
const quiet = log.child({});
quiet.level = 'silent';
const TTL = { LEASE_TTL_MS: 400, LEASE_RENEW_MS: 100 };
/**
 * For tests not about a lease running out: long enough that a loaded machine does not lose it
 * between renewals (the holder renews it, see start()).
 */
const STEADY = { LEASE_TTL_MS: 3000, LEASE_RENEW_MS: 500 };

beforeAll(async () => {
  const created = await createDatabase('chat_fence');
  drop = created.drop;
  url = created.url;
  db = await connectDatabase({ databaseUrl: created.url, dataDir: '/nonexistent', role: 'server' });
});

afterAll(async () => {
  await db?.close();
  await drop?.();
});

async function newRealm(name: string) {
  return insertRealm(db.sql, { stringId: name, name });
}

/** A new realm held by worker 1 under a renewed STEADY lease (given up when the test ends), and its fenced sql. */
async function heldRealm(name: string) {
  const realm = await newRealm(name);
  const w1 = new LeaseManager(db.sql, 'worker-1', STEADY, quiet);
  await w1.tryAcquire(realm.id);
  w1.start();
  onTestFinished(() => w1.stop());
  return { realm, sql: w1.sqlFor(realm.id) };
}

/**
 * A realm whose holder (worker 1) is paused past its lease, still believing it holds the realm,
 * with a write transaction that passed its check and waits for `release` before it commits.
 */
async function pausedHolderWriting(name: string, beforeCommit: () => void = () => undefined) {
  const slow = { LEASE_TTL_MS: 1500, LEASE_RENEW_MS: 100 };
  const realm = await newRealm(name);
  const w1 = new LeaseManager(db.sql, 'worker-1', slow, quiet);
  const w2 = new LeaseManager(db.sql, 'worker-2', slow, quiet);
  const lease1 = await w1.tryAcquire(realm.id);
  lease1!.validUntil = Number.POSITIVE_INFINITY;
  await new Promise((r) => setTimeout(r, slow.LEASE_TTL_MS + 100));
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  let checked!: () => void;
  const fenced = new Promise<void>((r) => (checked = r));
  const write = w1.sqlFor(realm.id).begin(async (tx) => {
    await tx`UPDATE realms SET description = 'slow write' WHERE id = ${realm.id}`;
    checked();
    await hold;
    beforeCommit();
  });
  await fenced;
  return { realm, w1, w2, release, write };
}

const description = async (id: number) => (await db.sql<{ description: string }[]>`SELECT description FROM realms WHERE id = ${id}`)[0]!.description;

describe('realm leases with a fencing epoch', () => {
  it('lets only the holder write, and refuses the stale holder after a takeover', async () => {
    const realm = await newRealm('fence1');
    const w1 = new LeaseManager(db.sql, 'worker-1', TTL, quiet);
    const w2 = new LeaseManager(db.sql, 'worker-2', TTL, quiet);
    const lease1 = await w1.tryAcquire(realm.id);
    expect(lease1?.epoch).toBe(1);
    expect(await w2.tryAcquire(realm.id)).toBeNull();

    const sql1 = w1.sqlFor(realm.id);
    await sql1`UPDATE realms SET description = 'by worker 1' WHERE id = ${realm.id}`;
    expect(await description(realm.id)).toBe('by worker 1');

    // Worker 1 is paused past its lease but still believes it holds the realm.
    lease1!.validUntil = Number.POSITIVE_INFINITY;
    await new Promise((r) => setTimeout(r, TTL.LEASE_TTL_MS + 100));
    const lease2 = await w2.tryAcquire(realm.id);
    expect(lease2?.epoch).toBe(2);
    const sql2 = w2.sqlFor(realm.id);

    // The stale holder's transaction fails its fence check and commits nothing.
    const stale = sql1.begin(async (tx) => {
      await tx`UPDATE realms SET description = 'stale write' WHERE id = ${realm.id}`;
    });
    await expect(stale).rejects.toMatchObject({ code: 'REALM_NOT_HERE' });
    await expect(sql1`UPDATE realms SET description = 'stale too' WHERE id = ${realm.id}`).rejects.toMatchObject({ code: 'REALM_NOT_HERE' });
    expect(await description(realm.id)).toBe('by worker 1');
    // It also noticed: the lease is gone locally.
    expect(w1.valid(realm.id)).toBeNull();

    await sql2.begin(async (tx) => {
      await tx`UPDATE realms SET description = ${'by worker 2'} WHERE id = ${realm.id}`;
    });
    expect(await description(realm.id)).toBe('by worker 2');
  });

  it('makes a takeover wait for the old holder’s transaction in flight', async () => {
    const order: string[] = [];
    const { realm, w1, w2, release, write } = await pausedHolderWriting('fence2', () => order.push('old holder commits'));
    // The lease has expired, but the transaction that passed its check holds the row.
    expect(await w2.tryAcquire(realm.id)).toBeNull();
    const takeover = w2.acquire(realm.id, 5000).then((lease) => {
      order.push('takeover');
      return lease;
    });
    await new Promise((r) => setTimeout(r, 300));
    release();
    await write;
    expect((await takeover)?.epoch).toBe(2);
    expect(order).toEqual(['old holder commits', 'takeover']);
    expect(await description(realm.id)).toBe('slow write');
    await expect(w1.sqlFor(realm.id)`UPDATE realms SET description = 'late' WHERE id = ${realm.id}`).rejects.toMatchObject({ code: 'REALM_NOT_HERE' });
  });

  it('ends a stalled holder’s transaction after a lease’s time, committing nothing', async () => {
    const realm = await newRealm('fence2b');
    const w1 = new LeaseManager(db.sql, 'worker-1', TTL, quiet);
    const w2 = new LeaseManager(db.sql, 'worker-2', TTL, quiet);
    const lease1 = await w1.tryAcquire(realm.id);
    lease1!.validUntil = Number.POSITIVE_INFINITY;
    const write = w1.sqlFor(realm.id).begin(async (tx) => {
      await tx`UPDATE realms SET description = 'never committed' WHERE id = ${realm.id}`;
      await new Promise((r) => setTimeout(r, TTL.LEASE_TTL_MS * 3)); // the process stalls
    });
    const failed = write.then(() => 'committed', (err: Error) => err.message);
    expect((await w2.acquire(realm.id, 5000))?.epoch).toBe(2);
    expect(await failed).not.toBe('committed');
    expect(await description(realm.id)).toBe('');
  });

  it('reports a transaction ended while its COMMIT waited to be written as not committed', async () => {
    const realm = await newRealm('fence2c');
    const w1 = new LeaseManager(db.sql, 'worker-1', TTL, quiet);
    const lease1 = await w1.tryAcquire(realm.id);
    lease1!.validUntil = Number.POSITIVE_INFINITY;
    const write = w1.sqlFor(realm.id).begin(async (tx) => {
      await tx`UPDATE realms SET description = 'never committed' WHERE id = ${realm.id}`;
      // The process stalls after the work is done, before the driver writes COMMIT (it
      // writes on the next turn of the event loop): Postgres ends the idle session.
      setImmediate(() => {
        const until = Date.now() + TTL.LEASE_TTL_MS * 3;
        while (Date.now() < until);
      });
    });
    // Nothing committed, and the error says so: the front may send the request again.
    await expect(write).rejects.toMatchObject({ code: 'REALM_NOT_HERE' });
    expect(await description(realm.id)).toBe('');
  });

  it('renews, releases, and loses leases it cannot renew', async () => {
    const realm = await newRealm('fence3');
    const lost: number[] = [];
    const w1 = new LeaseManager(db.sql, 'worker-1', TTL, quiet);
    w1.onLost = (id) => lost.push(id);
    const w2 = new LeaseManager(db.sql, 'worker-2', TTL, quiet);
    await w1.tryAcquire(realm.id);
    w1.start();
    await new Promise((r) => setTimeout(r, TTL.LEASE_TTL_MS * 2));
    expect(w1.valid(realm.id)).not.toBeNull(); // renewed meanwhile
    expect(await w2.tryAcquire(realm.id)).toBeNull();
    await w1.release(realm.id);
    expect((await w2.acquire(realm.id, 1000))?.epoch).toBe(2);
    // worker 1 acquires again later only after worker 2's lease lapses
    await w1.tryAcquire(realm.id).then((l) => expect(l).toBeNull());
    w1.stop();

    // A lease taken over while held is noticed at the next renewal.
    const realm2 = await newRealm('fence4');
    await w1.tryAcquire(realm2.id);
    await db.sql`UPDATE realm_leases SET owner = 'worker-2', epoch = epoch + 1 WHERE realm_id = ${realm2.id}`;
    await w1.renew();
    expect(lost).toEqual([realm2.id]);
  });

  it('runs a one-statement write as one transaction, and a failed one leaves nothing behind', async () => {
    const { realm, sql } = await heldRealm('fence6');
    // The statement's rows come back through the transaction around it.
    const updated = await sql<{ id: number }[]>`UPDATE realms SET description = 'together' WHERE id = ${realm.id} RETURNING id`;
    expect(updated.map((r) => r.id)).toEqual([realm.id]);
    expect(await description(realm.id)).toBe('together');

    // A statement that fails (a duplicate key) commits nothing, and the connection it used is
    // back in the pool in a usable state: many one-statement writes after it all work.
    await expect(sql`INSERT INTO realms (id, string_id, name) VALUES (${realm.id}, 'dup', 'dup')`).rejects.toMatchObject({ code: '23505' });
    await Promise.all(Array.from({ length: 24 }, (_, i) => sql`UPDATE realms SET description = ${`write ${i}`} WHERE id = ${realm.id}`));
    expect(await description(realm.id)).toMatch(/^write \d+$/);
    const rows = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM realms WHERE string_id = 'dup'`;
    expect(rows[0]!.n).toBe(0);
  });

  it('reports a one-statement write whose session ended before its COMMIT as not committed, and writes on after it', async () => {
    const { realm, sql } = await heldRealm('fence7');
    const write = sql`UPDATE realms SET description = 'cut off' WHERE id = ${realm.id} AND pg_sleep(2) IS NOT NULL`.then(
      () => null,
      (err: unknown) => err,
    );
    // The session running it is ended from outside while the statement sleeps.
    let killed = 0;
    for (let i = 0; i < 100 && killed === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const rows = await db.sql`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
        WHERE query LIKE '%cut off%' AND query NOT LIKE '%pg_stat_activity%' AND pid <> pg_backend_pid()`;
      killed = rows.length;
    }
    expect(killed).toBe(1);
    // Nothing committed, and the error says so: the front may send the request again.
    expect(await write).toMatchObject({ code: 'REALM_NOT_HERE' });
    expect(await description(realm.id)).toBe('');
    // The pool connects again; one-statement writes and transactions go on.
    await Promise.all(Array.from({ length: 12 }, (_, i) => sql`UPDATE realms SET description = ${`after ${i}`} WHERE id = ${realm.id}`));
    await sql.begin(async (tx) => {
      await tx`UPDATE realms SET description = 'after all' WHERE id = ${realm.id}`;
    });
    expect(await description(realm.id)).toBe('after all');
  });

  it('passes helpers and fragments through the fenced sql', async () => {
    const { realm, sql } = await heldRealm('fence5');
    const where = sql`WHERE id = ${realm.id}`;
    await sql`UPDATE realms SET settings = ${sql.json({ a: 1 })} ${where}`;
    const rows = await sql<{ settings: unknown }[]>`SELECT settings FROM realms ${where}`;
    expect(rows[0]!.settings).toEqual({ a: 1 });
    const values = await sql`SELECT id, string_id FROM realms ${where}`.values();
    expect(values).toEqual([[realm.id, 'fence5']]);
    const cols = await sql`SELECT ${sql(['id', 'name'])} FROM realms ${where}`;
    expect(cols[0]).toEqual({ id: realm.id, name: 'fence5' });
  });
  it('writes a batch of sends as one statement that carries the check, and a stale holder’s batch writes nothing', async () => {
    const realm = await newRealm('fence8');
    const sender = await insertUser(db.sql, { realmId: realm.id, deliveryEmail: 'fence8@example.com', fullName: 'F', passwordHash: null, apiKey: 'k'.repeat(32), role: 400 });
    const recipientId = await ensureConversation(db.sql, realm.id, { userIds: [sender.id] });
    const message = (id: number): NewMessage => ({
      id, realmId: realm.id, senderId: sender.id, recipientId, streamId: null, topic: '', content: `m${id}`, renderedContent: `<p>m${id}</p>`,
      dateSent: new Date(), isMeMessage: false, hasLink: false, hasImage: false, hasAttachment: false, client: 'test', idempotencyKey: null,
      mentionsStreamWildcard: false,
    });
    const stored = async () => (await db.sql<{ id: string }[]>`SELECT id FROM messages WHERE realm_id = ${realm.id} ORDER BY id`).map((r) => Number(r.id));
    // The statements the worker's pool sends, as Postgres gets them, but for its lease renewals
    // and the driver's own first look at the types.
    const statements: string[] = [];
    const counted = (query: string) => !/^UPDATE realm_leases SET expires_at/.test(query) && !query.includes('pg_catalog');
    const pool = postgres(url, { max: 2, onnotice: () => undefined, debug: (_c, query) => counted(query.trim()) && statements.push(query.trim()) }) as unknown as Sql;
    try {
      const w1 = new LeaseManager(pool, 'worker-1', STEADY, quiet);
      const w2 = new LeaseManager(db.sql, 'worker-2', STEADY, quiet);
      const lease1 = await w1.tryAcquire(realm.id);
      w1.start(); // renewed until the pause below
      onTestFinished(() => w1.stop());
      const sql1 = w1.sqlFor(realm.id);
      expect(statementFence(sql1)).not.toBeNull();
      expect(statementFence(db.sql)).toBeNull();

      statements.length = 0;
      await insertMessageBatch(sql1, [message(1_000_001), message(1_000_002)], [{ userId: sender.id, messageId: 1_000_001, flags: 1 }], [], []);
      expect(await stored()).toEqual([1_000_001, 1_000_002]);
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(/^WITH m AS \(\s*INSERT INTO messages/);
      expect(statements[0]).toMatch(/FOR KEY SHARE/);

      // Taken over while worker 1 still believes it holds the realm: its batch fails the
      // check, nothing of it is stored, and worker 1 knows the realm is gone.
      w1.stop();
      lease1!.validUntil = Number.POSITIVE_INFINITY;
      await new Promise((r) => setTimeout(r, STEADY.LEASE_TTL_MS + 100));
      expect((await w2.tryAcquire(realm.id))?.epoch).toBe(2);
      await expect(insertMessageBatch(sql1, [message(1_000_003)], [], [], [])).rejects.toMatchObject({ code: 'REALM_NOT_HERE' });
      expect(w1.valid(realm.id)).toBeNull();
      // Known to be gone: refused without asking Postgres.
      statements.length = 0;
      await expect(insertMessageBatch(sql1, [message(1_000_004)], [], [], [])).rejects.toMatchObject({ code: 'REALM_NOT_HERE' });
      expect(statements).toEqual([]);
      expect(await stored()).toEqual([1_000_001, 1_000_002]);

      // The new holder writes; in one process (no fence) the statement is the plain one.
      w2.start();
      onTestFinished(() => w2.stop());
      await insertMessageBatch(w2.sqlFor(realm.id), [message(1_000_005)], [], [], []);
      await insertMessageBatch(db.sql, [message(1_000_006)], [], [], []);
      expect(await stored()).toEqual([1_000_001, 1_000_002, 1_000_005, 1_000_006]);
    } finally {
      await (pool as unknown as { end: () => Promise<void> }).end();
    }
  });

  it('passes word that the queue copies are stale to the next holders until one clears it', async () => {
    const realm = await newRealm('fence-stale');
    const w1 = new LeaseManager(db.sql, 'worker-1', STEADY, quiet);
    const w2 = new LeaseManager(db.sql, 'worker-2', STEADY, quiet);
    expect((await w1.tryAcquire(realm.id))?.queuesStale).toBe(false);
    expect(await w2.markQueuesStale(realm.id)).toBe(false); // not its lease
    expect(await w1.markQueuesStale(realm.id)).toBe(true);
    await w1.release(realm.id);
    expect(await w1.markQueuesStale(realm.id)).toBe(false); // given up
    expect(await w2.tryAcquire(realm.id)).toMatchObject({ epoch: 2, queuesStale: true });
    // Taken but not dealt with (say it moved on before restoring): the word stays.
    await w2.release(realm.id);
    expect(await w1.tryAcquire(realm.id)).toMatchObject({ epoch: 3, queuesStale: true });
    await w2.clearQueuesStale(realm.id); // not its lease: nothing changes
    await w1.clearQueuesStale(realm.id);
    await w1.release(realm.id);
    expect(await w2.tryAcquire(realm.id)).toMatchObject({ epoch: 4, queuesStale: false });
    await w2.release(realm.id);
  });

  it('does not let a holder whose lease was taken over mark the copies stale', async () => {
    const realm = await newRealm('fence-stale2');
    const w1 = new LeaseManager(db.sql, 'worker-1', TTL, quiet);
    const w2 = new LeaseManager(db.sql, 'worker-2', TTL, quiet);
    const lease1 = await w1.tryAcquire(realm.id);
    lease1!.validUntil = Number.POSITIVE_INFINITY; // paused: still believes it holds the realm
    await new Promise((r) => setTimeout(r, TTL.LEASE_TTL_MS + 100));
    expect(await w2.tryAcquire(realm.id)).toMatchObject({ epoch: 2, queuesStale: false });
    expect(await w1.markQueuesStale(realm.id)).toBe(false);
    await w2.release(realm.id);
    expect((await w1.tryAcquire(realm.id))?.queuesStale).toBe(false);
    await w1.release(realm.id);
  });

  it('gives a takeover that waited for the old holder’s write the word the old holder wrote meanwhile', async () => {
    const { realm, w1, w2, release, write } = await pausedHolderWriting('fence-stale3');
    const takeover = w2.acquire(realm.id, 5000);
    await new Promise((r) => setTimeout(r, 100));
    const marked = w1.markQueuesStale(realm.id); // does not wait for the write's row lock
    await new Promise((r) => setTimeout(r, 100));
    release();
    await write;
    const [told, lease2] = await Promise.all([marked, takeover]);
    // Whichever came first, a mark that was written is never lost.
    expect(lease2?.epoch).toBe(2);
    expect(lease2?.queuesStale).toBe(told);
    await w2.release(realm.id);
  });
});
