// The keeper thread: renews this worker's membership key, realm leases and queue-shard
// leases on timers of its own, so that synchronous work on the main thread (a register of a
// huge realm, a burst of deliveries) does not make the cluster count the worker out and move
// its realms. It renews only while the main thread is making progress: when the main
// thread's beat is older than STALL_LIMIT_MS, everything is left to lapse and the other
// workers take over, as they do when the process dies (the thread dies with it).
import { parentPort, workerData } from 'node:worker_threads';
import postgres from 'postgres';
import { connectRedis } from '../redis.js';
import { refreshMember, renewRealmLeases, renewShardLease, type MemberKeys } from './rounds.js';
import {
  BEAT, REALM_ROUND_SEQ, REALM_ROUND_START, absoluteNow, loadTime, storeNumber, storeTime,
  type KeeperSetup, type ToKeeper, type FromKeeper,
} from './protocol.js';

const setup = workerData as KeeperSetup;
const port = parentPort!;
const shared = new BigInt64Array(setup.shared);
const { timing } = setup;
const post = (m: FromKeeper) => port.postMessage(m);
const log = {
  warn: (data: Record<string, unknown>, msg: string) => post({ op: 'log', level: 'warn', msg, data }),
  info: (data: Record<string, unknown>, msg: string) => post({ op: 'log', level: 'info', msg, data }),
};

const redis = connectRedis(setup.redisUrl, setup.redisPrefix, 'keeper', log);
const sql = postgres(setup.databaseUrl, { max: 1, onnotice: () => undefined, connection: { application_name: 'chat-keeper' } });

let member: MemberKeys | null = null;
let memberBusy: Promise<void> = Promise.resolve();
/** realm id → [epoch, seq] of the leases the main thread holds. */
const leases = new Map<number, [number, number]>();
let lastSeq = 0;
/** shard lease key → the main thread's number for this holding of it. */
const shards = new Map<string, number>();
let stalled = false;

function mainAlive(): boolean {
  const age = absoluteNow() - loadTime(shared, BEAT);
  const alive = age < timing.STALL_LIMIT_MS;
  if (!alive && !stalled) log.warn({ ms: Math.round(age) }, 'main thread stalled past STALL_LIMIT_MS; leases and membership left to lapse');
  stalled = !alive;
  return alive;
}

async function memberRound(): Promise<void> {
  const m = member;
  if (!m || !mainAlive()) return;
  try {
    if (!(await refreshMember(redis, m, timing.MEMBER_TTL_MS))) log.warn({ worker: m.id }, 'membership had lapsed; joined again');
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'membership heartbeat failed');
  }
}

async function realmRound(): Promise<void> {
  if (leases.size === 0 || !mainAlive()) return;
  const started = absoluteNow();
  const seq = lastSeq;
  const asked = [...leases];
  try {
    const renewed = await renewRealmLeases(sql, setup.owner, asked.map(([id]) => id), timing.LEASE_TTL_MS);
    let lost = false;
    for (const [realmId, [epoch]] of asked) {
      if (renewed.has(realmId)) continue;
      lost = true;
      if (leases.get(realmId)?.[0] === epoch) leases.delete(realmId);
      post({ op: 'realmLost', realmId, epoch });
    }
    // The main thread trusts every lease up to `seq` until started + TTL (start first: a
    // reader that sees the new seq sees this start or a later one). After a loss the main
    // thread must first hear of it, so this round vouches for nothing. (A loss means no
    // renewal reached the database for a lease's lifetime, so the last start the main
    // thread knows is already too old to vouch for the lost lease.)
    if (!lost) {
      storeTime(shared, REALM_ROUND_START, started);
      storeNumber(shared, REALM_ROUND_SEQ, seq);
    }
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'lease renewal failed');
  }
}

async function shardRound(): Promise<void> {
  if (shards.size === 0 || !mainAlive()) return;
  await Promise.all(
    [...shards].map(async ([key, seq]) => {
      try {
        if (await renewShardLease(redis, key, setup.owner, timing.LEASE_TTL_MS)) return;
        // Dropped meanwhile, or dropped and taken again (a newer number): not this holding's loss.
        if (shards.get(key) !== seq) return;
        shards.delete(key);
        log.warn({ shard: key, holder: await redis.get(key) }, 'queue shard lease is not ours any more');
        post({ op: 'shardLost', key, seq });
      } catch (err) {
        log.warn({ shard: key, err: (err as Error).message }, 'queue shard lease renewal failed');
      }
    }),
  );
}

/** Runs `round` every `ms`, never two at once. */
function every(ms: number, round: () => Promise<void>): NodeJS.Timeout {
  let running = false;
  return setInterval(() => {
    if (running) return;
    running = true;
    void round().finally(() => (running = false));
  }, ms);
}

const timers = [
  every(timing.HEARTBEAT_MS, () => (memberBusy = memberRound())),
  every(timing.LEASE_RENEW_MS, realmRound),
  every(timing.LEASE_RENEW_MS, shardRound),
];

port.on('message', (m: ToKeeper) => {
  switch (m.op) {
    case 'member':
      member = m.member;
      break;
    case 'memberGone':
      member = null;
      // A heartbeat in flight could announce the member again after it left: wait for it.
      void memberBusy.finally(() => post({ op: 'ack', ack: m.ack }));
      break;
    case 'lease':
      leases.set(m.realmId, [m.epoch, m.seq]);
      lastSeq = Math.max(lastSeq, m.seq);
      break;
    case 'leaseGone':
      if (leases.get(m.realmId)?.[1] === m.seq) leases.delete(m.realmId);
      break;
    case 'shard':
      shards.set(m.key, m.seq);
      break;
    case 'shardGone':
      if (shards.get(m.key) === m.seq) shards.delete(m.key);
      break;
    case 'close':
      for (const t of timers) clearInterval(t);
      member = null;
      void memberBusy
        .then(() => Promise.allSettled([redis.quit(), sql.end({ timeout: 2 })]))
        .finally(() => post({ op: 'ack', ack: m.ack }));
      break;
  }
});
post({ op: 'ready' });
