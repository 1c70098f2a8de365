// Event queue copies in Redis when a realm leaves a worker with writes still under way: the
// next owner must not restore queues that may lack an event (their clients register again,
// as after a crash), and restores them as usual otherwise. Real Redis, under a key prefix of
// this test's own.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { QueueStore } from '../../cluster/queueStore.js';
import { redisKeys } from '../../cluster/redis.js';
import { EventHub } from '../../src/events/hub.js';
import { realmUserAddEvent } from '../../src/events/catalog/index.js';
import type { QueueOptions } from '../../src/events/queue.js';
import type { RealmActor } from '../../src/realm/actor.js';
import { REDIS_URL, removeRedisKeys } from '../helpers/ownServer.js';

const prefix = `test-qs-${process.pid}-${Date.now()}:`;
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
const keys = redisKeys(prefix);
const options = { QUEUE_SNAPSHOT_MS: 60_000, QUEUE_SNAPSHOT_MAX_EVENTS: 1000, QUEUE_SNAPSHOT_TTL_SECONDS: 60 };
const limits = { heartbeatSeconds: 60, maxEvents: 100, maxBytes: 1_000_000 };
let realmId = 1;

afterEach(async () => {
  await removeRedisKeys(prefix);
});

afterAll(async () => {
  await removeRedisKeys(prefix);
  redis.disconnect();
});

function queueOptions(userId: number): QueueOptions {
  return {
    userId, eventTypes: null, messageFilter: null, clientCapabilities: {}, applyMarkdown: true, clientGravatar: false,
    allPublicStreams: false, includeSubscribers: 'partial', slimPresence: true, lifespanSeconds: 600, clientName: 'test',
  };
}

const actorOf = (id: number) => ({ realm: { id, stringId: `r${id}` }, events: new EventHub(limits) }) as unknown as RealmActor;

/** A realm held at epoch 1 with two queues, copied to Redis; then the next owner's store. */
async function heldWithCopies() {
  const id = realmId++;
  const store = new QueueStore(redis, keys, options, pino({ level: 'silent' }));
  const actor = actorOf(id);
  await store.restore(actor, 1);
  const queues = [actor.events.create(queueOptions(1)), actor.events.create(queueOptions(2))];
  await store.flushAll();
  const next = async (stale = false) => {
    const taker = new QueueStore(redis, keys, options, pino({ level: 'silent' }));
    const result = await taker.restore(actorOf(id), 2, stale);
    // What the taker's metrics count.
    expect(taker.restores).toEqual({ restored: result.restored, notRestored: result.dropped });
    return result;
  };
  return { id, store, actor, queues, next };
}

describe('queue copies the previous holder said are stale', () => {
  it('are not restored from crash copies', async () => {
    const { id, store, next } = await heldWithCopies();
    store.forget(id);
    expect(await next(true)).toEqual({ restored: 0, dropped: 2, adopted: true });
  });

  it('are restored when they were handed over complete', async () => {
    const { actor, store, next } = await heldWithCopies();
    expect(await store.handOver(actor, 1)).toBe(true);
    expect(await next(true)).toEqual({ restored: 2, dropped: 0, adopted: true });
  });

  it('are reported when dirty marks cannot reach Redis: once, and again if the report did not get through', async () => {
    // Nothing listens on this port: every command fails at once.
    const down = new Redis({ port: 1, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    down.on('error', () => undefined);
    const store = new QueueStore(down, keys, options, pino({ level: 'silent' }));
    const reports: boolean[] = [];
    let answer = true;
    store.onMarksLost = async () => {
      reports.push(answer);
      return answer;
    };
    const actor = actorOf(realmId++);
    await store.restore(actor, 1); // fails: served without old queues
    const users = [1, 2, 3];
    for (const u of users) actor.events.create(queueOptions(u));
    /** An event to a queue not marked yet, then time for its mark to fail. */
    const markFails = async (user: number) => {
      actor.events.publish(realmUserAddEvent({ user_id: 100 + user }), [user]);
      await new Promise((r) => setTimeout(r, 60));
    };
    await markFails(1);
    await markFails(2); // another queue's mark fails too: reported already
    expect(reports).toEqual([true]);
    // The report did not get through (Postgres unreachable, say): the next lost mark tries again.
    const fresh = new QueueStore(down, keys, options, pino({ level: 'silent' }));
    const failing: boolean[] = [];
    fresh.onMarksLost = async () => {
      failing.push(false);
      return false;
    };
    const other = actorOf(realmId++);
    await fresh.restore(other, 1);
    for (const u of users) other.events.create(queueOptions(u));
    for (const u of users) {
      other.events.publish(realmUserAddEvent({ user_id: 100 + u }), [u]);
      await new Promise((r) => setTimeout(r, 60));
    }
    expect(failing).toEqual([false, false, false]);
    answer = false;
    down.disconnect();
  });
});

describe('queue copies of a realm that leaves with writes under way', () => {
  it('are restored by the next owner after a crash copy when nothing was under way', async () => {
    const { id, store, next } = await heldWithCopies();
    store.forget(id);
    expect(await next()).toEqual({ restored: 2, dropped: 0, adopted: true });
  });

  it('are marked stale when the lease is lost with a write under way', async () => {
    const { id, store, queues, next } = await heldWithCopies();
    store.forget(id, true);
    await redis.ping(); // after the marks, on another connection: wait until they landed
    for (let i = 0; i < 50 && (await redis.scard(keys.dirtyQueues(id))) < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await redis.smembers(keys.dirtyQueues(id))).sort()).toEqual(queues.map((q) => q.id).sort());
    expect(await next()).toEqual({ restored: 0, dropped: 2, adopted: true });
  });

  it('go over as not movable when handed over with writes under way', async () => {
    const { actor, store, next } = await heldWithCopies();
    expect(await store.handOver(actor, 1, true)).toBe(true);
    expect(await next()).toEqual({ restored: 0, dropped: 2, adopted: true });
  });

  it('go over whole when handed over with nothing under way', async () => {
    const { actor, store, next } = await heldWithCopies();
    expect(await store.handOver(actor, 1)).toBe(true);
    expect(await next()).toEqual({ restored: 2, dropped: 0, adopted: true });
  });
});
