// Event queues outside the worker, in Redis, so they outlive a move of their realm:
// - planned hand-off: the leaving worker writes every queue (handOver) before it releases
//   the lease; the next owner imports them before serving (restore), so queue ids keep
//   working and no event is lost;
// - crash: every QUEUE_SNAPSHOT_MS the owner copies the queues that changed. A queue that
//   got an event since its last copy is marked "dirty" in Redis at once (one command per
//   queue per copy interval, sent before the event can reach a client), and a restore leaves
//   dirty queues out: their clients get BAD_EVENT_QUEUE_ID and register again, instead of
//   silently missing events. Queues over QUEUE_SNAPSHOT_MAX_EVENTS are not copied either.
//   When marks cannot be written, the lease row says the copies are stale (onMarksLost), and
//   the next owner restores none of them.
// - writes still under way when a realm leaves (hand-off past DRAIN_MS, lease lost) could
//   publish events the copies miss: those copies are marked stale or not movable.
// Writes carry the lease epoch; Redis refuses copies from an older epoch (a worker that lost
// its realm cannot overwrite the new owner's copy).
import type { Redis } from 'ioredis';
import type { Logger } from '../src/log.js';
import type { RealmActor } from '../src/realm/actor.js';
import type { EventQueue, QueueSnapshot } from '../src/events/queue.js';
import type { RedisKeys } from './redis.js';

const FIELD = 'q:';
/** A queue with nothing new is still re-stamped this often, so its copy does not expire. */
const REFRESH_MS = 60_000;

// KEYS: queues hash, dirty set. ARGV: epoch, ttl ms, mode (incr|full|adopt), number of
// field/value pairs, the pairs, then fields to delete. Refuses writers from older epochs.
const WRITE = `
local cur = tonumber(redis.call('HGET', KEYS[1], 'epoch') or '0')
local mine = tonumber(ARGV[1])
if cur > mine then return 0 end
local mode = ARGV[3]
if mode == 'full' then
  redis.call('DEL', KEYS[1])
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[1], 'handoff', '1')
elseif mode == 'adopt' then
  redis.call('DEL', KEYS[2])
  redis.call('HDEL', KEYS[1], 'handoff')
end
redis.call('HSET', KEYS[1], 'epoch', ARGV[1])
local n = tonumber(ARGV[4])
local i = 5
for _ = 1, n do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('SREM', KEYS[2], string.sub(ARGV[i], 3))
  i = i + 2
end
while i <= #ARGV do
  redis.call('HDEL', KEYS[1], ARGV[i])
  redis.call('SREM', KEYS[2], string.sub(ARGV[i], 3))
  i = i + 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1`;

interface Tracked {
  actor: RealmActor;
  epoch: number;
  changed: Map<string, EventQueue>;
  /** Queues marked dirty in Redis since their last copy. */
  marked: Set<string>;
  toMark: string[];
  /** The next copy rewrites everything (a write failed, or the restore could not adopt). */
  needsFull: boolean;
  lastWrite: number;
  /** Queues restored from a crash copy whose first poll has not been checked yet. */
  restoredAfterCrash: Map<string, EventQueue>;
  /** Dirty marks failed to reach Redis (reported through onMarksLost). */
  marksLost: boolean;
}

export interface QueueStoreOptions {
  QUEUE_SNAPSHOT_MS: number;
  QUEUE_SNAPSHOT_MAX_EVENTS: number;
  QUEUE_SNAPSHOT_TTL_SECONDS: number;
}

export class QueueStore {
  private readonly tracked = new Map<number, Tracked>();
  private timer: NodeJS.Timeout | null = null;
  private markScheduled = false;
  private flushing = false;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly o: QueueStoreOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flushAll(), this.o.QUEUE_SNAPSHOT_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private get ttlMs() {
    return this.o.QUEUE_SNAPSHOT_TTL_SECONDS * 1000;
  }

  /**
   * A realm's dirty marks did not reach Redis: its copies may lack events from now on until
   * the next complete copy; the worker tells the realm's next holder (see leases.ts).
   */
  onMarksLost: ((realmId: number) => Promise<boolean>) | null = null;

  /** Queues taken up from copies since start, and those left out (their clients register again). */
  readonly restores = { restored: 0, notRestored: 0 };

  /**
   * Before a newly activated realm serves: imports the queues left by its previous owner.
   * `copiesStale`: the previous holder said its copies may lack events; unless it handed them
   * over complete, none is restored.
   */
  async restore(actor: RealmActor, epoch: number, copiesStale = false): Promise<{ restored: number; dropped: number; adopted: boolean }> {
    const realmId = actor.realm.id;
    const t: Tracked = {
      actor, epoch, changed: new Map(), marked: new Set(), toMark: [], needsFull: false,
      lastWrite: Date.now(), restoredAfterCrash: new Map(), marksLost: false,
    };
    let restored = 0;
    let adopted = false;
    const dropped: string[] = [];
    try {
      const [[e1, hash], [e2, dirty]] = (await this.redis
        .multi()
        .hgetall(this.keys.queues(realmId))
        .smembers(this.keys.dirtyQueues(realmId))
        .exec()) as [[Error | null, Record<string, string>], [Error | null, string[]]];
      if (e1 || e2) throw e1 ?? e2;
      const handoff = hash.handoff === '1';
      const dirtySet = new Set(dirty);
      const snaps: QueueSnapshot[] = [];
      for (const [field, value] of Object.entries(hash)) {
        if (!field.startsWith(FIELD)) continue;
        const id = field.slice(FIELD.length);
        const snap = JSON.parse(value) as QueueSnapshot | { unmovable: string };
        if (dirtySet.has(id) || 'unmovable' in snap || (copiesStale && !handoff)) {
          dropped.push(id);
          continue;
        }
        // A crash copy's lastConnection may be old (polls do not trigger copies): give the
        // queue a fresh lifespan rather than collecting it before its client returns.
        if (!handoff) snap.lastConnection = Date.now();
        snaps.push(snap);
      }
      restored = actor.events.importQueues(snaps);
      if (!handoff) {
        for (const snap of snaps) {
          for (const q of actor.events.queuesOf(snap.opts.userId)) if (q.id === snap.id) t.restoredAfterCrash.set(q.id, q);
        }
      }
      await this.write(realmId, epoch, 'adopt', [], dropped.map((id) => FIELD + id));
      adopted = true;
    } catch (err) {
      // Serving without the old queues beats not serving: their clients re-register. The
      // next copy replaces whatever is left in Redis.
      this.log.warn({ realmId, err: (err as Error).message }, 'event queues could not be restored');
      t.needsFull = true;
    }
    this.restores.restored += restored;
    this.restores.notRestored += dropped.length;
    actor.events.onQueueChange = (queue, change) => this.changed(t, queue, change);
    this.tracked.set(realmId, t);
    if (restored || dropped.length) this.log.info({ realm: actor.realm.stringId, restored, dropped: dropped.length }, 'event queues restored');
    return { restored, dropped: dropped.length, adopted };
  }

  /**
   * A crash-restored queue polled with an event id beyond what the copy holds: the client saw
   * events the copy missed, so the queue cannot continue; answer as for an unknown queue.
   */
  staleAfterCrash(realmId: number, queueId: string, lastEventId: number): boolean {
    const t = this.tracked.get(realmId);
    const queue = t?.restoredAfterCrash.get(queueId);
    if (!t || !queue) return false;
    t.restoredAfterCrash.delete(queueId);
    if (lastEventId <= queue.lastEventId) return false;
    t.actor.events.delete(queue);
    return true;
  }

  private changed(t: Tracked, queue: EventQueue, change: 'created' | 'event' | 'deleted'): void {
    t.changed.set(queue.id, queue);
    if (change === 'deleted') t.restoredAfterCrash.delete(queue.id);
    if (change !== 'event' || t.marked.has(queue.id)) return;
    t.marked.add(queue.id);
    t.toMark.push(queue.id);
    if (!this.markScheduled) {
      this.markScheduled = true;
      // Before the event can reach a client: the response goes out on a later tick.
      queueMicrotask(() => this.sendMarks());
    }
  }

  private sendMarks(): void {
    this.markScheduled = false;
    const pipe = this.redis.pipeline();
    const marked: Tracked[] = [];
    for (const [realmId, t] of this.tracked) {
      if (!t.toMark.length) continue;
      pipe.sadd(this.keys.dirtyQueues(realmId), ...t.toMark).pexpire(this.keys.dirtyQueues(realmId), this.ttlMs);
      t.toMark = [];
      marked.push(t);
    }
    pipe
      .exec()
      .then((results) => {
        if (results?.some(([err]) => err)) throw results.find(([err]) => err)![0]!;
      })
      .catch((err: unknown) => {
        this.log.warn({ err: (err as Error).message }, 'marking event queues failed; their copies are stale');
        for (const t of marked) {
          // The next copy is complete again; until then a crash copy may lack events. The
          // next holder learns of it once (the lease row keeps it until then).
          t.needsFull = true;
          if (t.marksLost || !this.onMarksLost) continue;
          t.marksLost = true;
          // Told again after the next lost mark if this telling did not get through.
          this.onMarksLost(t.actor.realm.id).then(
            (told) => (t.marksLost = told),
            () => (t.marksLost = false),
          );
        }
      });
  }

  /** Copies every realm's changed queues; runs on a timer. */
  async flushAll(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      const now = Date.now();
      const writes: Promise<void>[] = [];
      for (const [realmId, t] of this.tracked) {
        if (!t.changed.size && !t.needsFull && now - t.lastWrite < REFRESH_MS) continue;
        writes.push(this.flushRealm(realmId, t));
      }
      await Promise.all(writes);
    } finally {
      this.flushing = false;
    }
  }

  private async flushRealm(realmId: number, t: Tracked): Promise<void> {
    const full = t.needsFull;
    // A full rewrite drops the fields of queues that no longer exist; read them first, so
    // that serializing and sending happen in one tick (see below).
    const existing = full ? await this.redis.hkeys(this.keys.queues(realmId)).catch((err: unknown) => err as Error) : [];
    if (existing instanceof Error) {
      this.log.warn({ realmId, err: existing.message }, 'reading the event queue copy failed');
      return;
    }
    // Handed over or dropped while reading: the hand-off wrote the final copy.
    if (this.tracked.get(realmId) !== t) return;
    const present = new Set(t.actor.events.allQueues());
    const queues = full ? [...present] : [...t.changed.values()];
    const pairs: string[] = [];
    const deleted: string[] = [];
    for (const queue of queues) {
      if (!present.has(queue)) deleted.push(FIELD + queue.id);
      else pairs.push(FIELD + queue.id, this.serialize(queue, this.o.QUEUE_SNAPSHOT_MAX_EVENTS));
    }
    if (full) {
      const kept = new Set([...present].map((q) => FIELD + q.id));
      for (const f of existing) if ((f.startsWith(FIELD) && !kept.has(f)) || f === 'handoff') deleted.push(f);
    }
    // Serialized and sent in this same tick: a dirty mark for any later event is sent after
    // this write on the same connection, so it is never cleared by it.
    const flushed = [...t.changed.keys(), ...(full ? [...present].map((q) => q.id) : [])];
    t.changed.clear();
    for (const id of flushed) t.marked.delete(id);
    t.needsFull = false;
    t.lastWrite = Date.now();
    try {
      await this.write(realmId, t.epoch, 'incr', pairs, deleted);
    } catch (err) {
      this.log.warn({ realmId, err: (err as Error).message }, 'copying event queues failed; the next copy is complete');
      t.needsFull = true;
    }
  }

  private serialize(queue: EventQueue, maxEvents: number): string {
    try {
      const snap = queue.snapshot(maxEvents);
      return JSON.stringify(snap ?? { unmovable: `more than ${maxEvents} events buffered` });
    } catch (err) {
      return JSON.stringify({ unmovable: (err as Error).message });
    }
  }

  private async write(realmId: number, epoch: number, mode: 'incr' | 'full' | 'adopt', pairs: string[], deleted: string[]): Promise<void> {
    const keys = [this.keys.queues(realmId), this.keys.dirtyQueues(realmId)];
    const ok = await this.redis.eval(WRITE, 2, ...keys, epoch, this.ttlMs, mode, pairs.length / 2, ...pairs, ...deleted);
    if (ok !== 1) this.log.warn({ realmId, epoch }, 'a newer owner holds the event queue copy; not overwritten');
  }

  /**
   * Planned hand-off: every queue, written in full with the hand-off flag. Retries briefly
   * while Redis is unreachable; returns false if the queues could not be written.
   */
  async handOver(actor: RealmActor, epoch: number, stale = false, deadlineMs = 3000): Promise<boolean> {
    const realmId = actor.realm.id;
    this.forget(realmId);
    const { queues, skipped } = actor.events.exportQueues();
    const pairs: string[] = [];
    const why = 'writes were under way when the realm was handed over';
    for (const snap of queues) pairs.push(FIELD + snap.id, JSON.stringify(stale ? { unmovable: why } : snap));
    for (const s of skipped) pairs.push(FIELD + s.id, JSON.stringify({ unmovable: s.reason }));
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      try {
        await this.write(realmId, epoch, 'full', pairs, []);
        return true;
      } catch (err) {
        if (Date.now() > deadline) {
          this.log.error({ realmId, err: (err as Error).message }, 'event queues could not be handed over; clients will re-register');
          return false;
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /**
   * Stops copying a realm (handed over, or its lease was lost to another worker). `stale`:
   * events may have missed the copies (a write still under way when the lease was lost): every
   * queue is marked dirty, so the next owner does not restore it.
   */
  forget(realmId: number, stale = false): void {
    const t = this.tracked.get(realmId);
    if (!t) return;
    if (t.actor.events.onQueueChange) t.actor.events.onQueueChange = null;
    if (stale) {
      // Marked as a queue with a new event is, at once (the realm is still tracked for it).
      for (const queue of t.actor.events.allQueues()) t.toMark.push(queue.id);
      this.sendMarks();
    }
    this.tracked.delete(realmId);
  }
}
