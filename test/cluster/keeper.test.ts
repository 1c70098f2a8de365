// The keeper thread renews a worker's membership key, realm leases and queue-shard leases
// while the worker's event loop is busy, and stops once the loop has stalled past
// STALL_LIMIT_MS, so that the other workers take over as they would after a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createDatabase } from '../helpers/globalSetup.js';
import { REDIS_URL, requireRedis } from '../helpers/cluster.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { insertRealm } from '../../src/db/realms.js';
import { log } from '../../src/log.js';
import { LeaseManager } from '../../cluster/leases.js';
import { Keeper } from '../../cluster/keeper/index.js';
import { announceMember, type MemberKeys } from '../../cluster/keeper/rounds.js';

const quiet = log.child({});
quiet.level = 'silent';
const TIMING = { MEMBER_TTL_MS: 600, HEARTBEAT_MS: 150, LEASE_TTL_MS: 600, LEASE_RENEW_MS: 150, STALL_LIMIT_MS: 2000 };
const prefix = `keeper${process.pid}x${Date.now().toString(36)}:`;

let db: Database;
let databaseUrl: string;
let drop: () => Promise<void>;
let redis: Redis;
let subscriber: Redis;
const joins: string[] = [];

/** The event loop does nothing else for `ms` (a register of a huge realm, say). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spinning
  }
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: () => boolean | Promise<boolean>, ms = 3000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await what())) {
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await settle(25);
  }
}

function startKeeper(owner: string): Promise<Keeper> {
  return Keeper.start({
    redisUrl: REDIS_URL, redisPrefix: prefix, databaseUrl, owner, timing: TIMING, log: quiet,
    threadFile: new URL('../../dist/cluster/keeper/thread.js', import.meta.url),
  });
}

/** A keeper thread for `owner` with a lease manager that uses it, for the length of `run`. */
async function withKeeper(owner: string, run: (k: { keeper: Keeper; leases: LeaseManager; lost: number[] }) => Promise<void>): Promise<void> {
  const keeper = await startKeeper(owner);
  const leases = new LeaseManager(db.sql, owner, TIMING, quiet);
  leases.useKeeper(keeper);
  const lost: number[] = [];
  leases.onLost = (id) => lost.push(id);
  leases.start();
  try {
    await run({ keeper, leases, lost });
  } finally {
    leases.stop();
    await keeper.close();
  }
}

function member(id: string): MemberKeys {
  return { key: `${prefix}member:${id}`, members: `${prefix}members`, channel: `${prefix}membership`, id, info: JSON.stringify({ id }) };
}

beforeAll(async () => {
  await requireRedis();
  const created = await createDatabase('chat_keeper');
  drop = created.drop;
  databaseUrl = created.url;
  db = await connectDatabase({ databaseUrl, dataDir: '/nonexistent', role: 'server' });
  redis = new Redis(REDIS_URL);
  subscriber = new Redis(REDIS_URL);
  subscriber.on('message', (_channel: string, text: string) => joins.push((JSON.parse(text) as { id: string }).id));
  await subscriber.subscribe(`${prefix}membership`);
});

afterAll(async () => {
  for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 })) if ((keys as string[]).length) await redis.del(...(keys as string[]));
  await Promise.all([redis?.quit(), subscriber?.quit()]);
  await db?.close();
  await drop?.();
});

describe('the keeper thread', () => {
  it('keeps membership, a realm lease and a shard lease through a busy event loop', async () => {
    await withKeeper('w1', async ({ keeper, leases, lost }) => {
      const other = new LeaseManager(db.sql, 'w2', TIMING, quiet);
      const realm = await insertRealm(db.sql, { stringId: 'keeper1', name: 'keeper1' });
      const lease = await leases.tryAcquire(realm.id);
      expect(lease?.epoch).toBe(1);
      const m = member('w1');
      await announceMember(redis, m, TIMING.MEMBER_TTL_MS);
      keeper.keepMember(m);
      const shardKey = `${prefix}shard:keeper1~0:lease`;
      await redis.set(shardKey, 'w1', 'PX', TIMING.LEASE_TTL_MS);
      const holding = keeper.keepShard(shardKey);
      await until(() => joins.includes('w1'));
      joins.length = 0;

      busy(TIMING.LEASE_TTL_MS * 3); // three lifetimes without a turn of the event loop

      // Still trusted here the moment the loop turns again, and still ours everywhere.
      expect(leases.valid(realm.id)?.epoch).toBe(1);
      expect(await other.tryAcquire(realm.id)).toBeNull();
      expect(await redis.get(shardKey)).toBe('w1');
      expect(await redis.exists(m.key)).toBe(1);
      await settle(TIMING.LEASE_RENEW_MS * 3);
      expect(lost).toEqual([]);
      expect(joins).toEqual([]); // the membership never lapsed, so nobody saw a join again
      const writes = leases.sqlFor(realm.id);
      await writes`UPDATE realms SET description = 'after the busy spell' WHERE id = ${realm.id}`;

      // A shard lease taken by another worker is reported lost.
      const shardLost: [string, number][] = [];
      keeper.onShardLost = (key, seq) => shardLost.push([key, seq]);
      await redis.set(shardKey, 'w2', 'PX', 5000);
      await until(() => shardLost.length > 0);
      expect(shardLost).toEqual([[shardKey, holding]]);

      // A realm lease taken over is reported lost and is no longer trusted.
      await db.sql`UPDATE realm_leases SET owner = 'w2', epoch = epoch + 1 WHERE realm_id = ${realm.id}`;
      await until(() => lost.length > 0);
      expect(lost).toEqual([realm.id]);
      expect(leases.valid(realm.id)).toBeNull();
      leases.stop();

      // After leaving, no heartbeat brings the member back.
      await keeper.dropMember();
      await redis.del(m.key);
      await settle(TIMING.HEARTBEAT_MS * 3);
      expect(await redis.exists(m.key)).toBe(0);
      expect(joins).toEqual([]);
    });
  });

  it('renews a lease while the holder’s own write transaction is in flight', async () => {
    await withKeeper('w5', async ({ leases }) => {
      const realm = await insertRealm(db.sql, { stringId: 'keeper3', name: 'keeper3' });
      await leases.tryAcquire(realm.id);
      let checked!: () => void;
      const fenced = new Promise<void>((r) => (checked = r));
      // A write that holds the lease row (its fence check) for three lifetimes of the lease.
      const write = leases.sqlFor(realm.id).begin(async (tx) => {
        await tx`UPDATE realms SET description = 'long write' WHERE id = ${realm.id}`;
        checked();
        await tx`SELECT pg_sleep(${(TIMING.LEASE_TTL_MS * 3) / 1000})`;
      });
      await fenced;
      for (let i = 0; i < 6; i++) {
        await settle(TIMING.LEASE_TTL_MS / 2);
        expect(leases.valid(realm.id)?.epoch).toBe(1);
      }
      await write;
      const [row] = await db.sql<{ left: number }[]>`
        SELECT extract(epoch FROM expires_at - now()) * 1000 AS left FROM realm_leases WHERE realm_id = ${realm.id}`;
      expect(Number(row!.left)).toBeGreaterThan(0);
    });
  });

  it('lets everything lapse when the event loop stalls past STALL_LIMIT_MS', async () => {
    await withKeeper('w3', async ({ keeper, leases, lost }) => {
      const other = new LeaseManager(db.sql, 'w4', TIMING, quiet);
      const realm = await insertRealm(db.sql, { stringId: 'keeper2', name: 'keeper2' });
      await leases.tryAcquire(realm.id);
      const m = member('w3');
      await announceMember(redis, m, TIMING.MEMBER_TTL_MS);
      keeper.keepMember(m);
      await until(() => joins.includes('w3'));
      joins.length = 0;

      busy(TIMING.STALL_LIMIT_MS + TIMING.LEASE_TTL_MS + 500);

      // The lease lapsed in the database: this worker no longer trusts it, another takes it.
      expect(leases.valid(realm.id)).toBeNull();
      expect((await other.tryAcquire(realm.id))?.epoch).toBe(2);
      await expect(leases.sqlFor(realm.id)`UPDATE realms SET description = 'stale' WHERE id = ${realm.id}`).rejects.toMatchObject({ code: 'REALM_NOT_HERE' });
      await until(() => lost.includes(realm.id));
      // The membership key had expired too: once the loop turns again, the member joins again.
      await until(() => joins.includes('w3'));
    });
  });
});
