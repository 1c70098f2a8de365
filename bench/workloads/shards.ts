// Phase "shards": one realm's event queues over two queue-shard processes. Spawns its own
// cluster (`--fronts F --workers 2`, QUEUE_SHARDS=2) on its own fresh bench database and
// measures, in this order (the last one kills a worker; steps 3 and 4 are in shardFanout.ts):
//   1. parked long-polls in a realm whose two shards sit on different workers, held for
//      three heartbeat rounds (the idle workload), with what each shard process held;
//   2. POST /register (full state) on a realm of `shardUsers` users, against JSON.stringify
//      of its body;
//   3. a channel of `shardSubscribers` subscribers of that realm, every one long-polling, fed
//      by an open loop of `shardRate` sends/s: per send, the time until all of them had it;
//   4. kill -9 of the worker holding the shard that is not with the realm's actor, under the
//      same load: its clients register again, the others see no gap, no acknowledged send is
//      missing from the channel's history.

import { clusterWorkers, realmShards, type ClusterWorker } from '../lib/clusterWorkers.js';
import { createBenchDatabase, dropBenchDatabase } from '../lib/db.js';
import type { BenchOptions } from '../lib/options.js';
import { openFileLimit } from '../lib/procs.js';
import { errorText, fmt, ms, progress, step } from '../lib/progress.js';
import { attempt, failed, type Outcome, type SeedingFigures } from '../lib/results.js';
import { createChannels, createRealm, createUsers, type SeededRealm } from '../lib/seed.js';
import { freePorts, startCluster, type Target } from '../lib/server.js';
import { Placement } from '../../cluster/placement.js';
import { shardName } from '../../cluster/queueShards.js';
import { dropRedisKeys } from './clusterOverhead.js';
import { idleUsersNeeded, pollsThatFit, runIdle, type IdleWorkloadResult } from './idle.js';
import { measureSerialRegister, type SerialRegisterResult } from './register.js';
import { CHANNEL, SHARDS, fanoutAndKill, subscribersOf, type FanoutResult, type KillResult, type ShardPlacement } from './shardFanout.js';

export type { FanoutResult, KillResult, ShardPlacement } from './shardFanout.js';

const WORKERS = 2;
const FD_RESERVE = 512;
/** Full registers of the big realm, one after the other. */
const SERIAL_REGISTERS = 5;

/**
 * The server holds a parked poll for the heartbeat interval plus a random jitter of up to a
 * fifth of it (at most 10 s, as Zulip; src/events/hub.ts), so a heartbeat is on time within
 * interval + that jitter + 2 s.
 */
const heartbeatJitterSeconds = (heartbeatSeconds: number) => Math.min(10, heartbeatSeconds * 0.2);

export interface ShardIdleResult extends IdleWorkloadResult {
  subdomain: string;
  /** Per shard process: the most queues and parked polls its /health showed while held. */
  perShard: ShardPlacement[];
}
export interface ShardsResult {
  fronts: number;
  workers: number;
  heartbeatSeconds: number;
  seeding: SeedingFigures[];
  idle: Outcome<ShardIdleResult>;
  register: Outcome<SerialRegisterResult>;
  fanout: Outcome<FanoutResult>;
  kill: Outcome<KillResult>;
}
/** A realm name whose two queue shards rendezvous hashing puts on different workers. */
function splitSubdomain(prefix: string, workerIds: string[]): string {
  const placement = new Placement(workerIds);
  for (let i = 0; i < 10_000; i++) {
    const name = `${prefix}${i}`;
    if (placement.owner(shardName(name, 0)) !== placement.owner(shardName(name, 1))) return name;
  }
  throw new Error(`no realm name ${prefix}N has its shards on different workers`);
}

/** Fronts enough that each holds its share of the client sockets under the open-file limit. */
function frontsFor(sockets: number): number {
  const limit = openFileLimit() ?? 20_000;
  const perFront = Number.isFinite(limit) ? Math.max(1000, limit - FD_RESERVE) : sockets;
  return Math.max(1, Math.ceil(sockets / perFront));
}

const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait));

export async function runShards(opts: BenchOptions, runStamp: string): Promise<ShardsResult> {
  const fronts = frontsFor(Math.max(opts.shardPolls, opts.shardSubscribers));
  const heartbeatSeconds = opts.shardHeartbeatSeconds;
  const redisPrefix = `bench-${runStamp}-shards:`;
  const db = await step('shards: database', () => createBenchDatabase(opts.pgAdminUrl), (d) => d.name);
  let target: Target | undefined;
  try {
    target = await step(`shards: start cluster ${fronts}f/${WORKERS}w, QUEUE_SHARDS=${SHARDS}, heartbeat ${heartbeatSeconds}s`, async () =>
      startCluster(
        {
          port: await freePorts(fronts),
          databaseUrl: db.url,
          heartbeatSeconds,
          redisUrl: opts.redisUrl,
          runStamp: `${runStamp}-shards`,
          redisPrefix,
          nodeArgs: opts.serverNodeArgs,
          env: { QUEUE_SHARDS: String(SHARDS) },
        },
        fronts,
        WORKERS,
      ), (t) => t.frontUrls.join(' '),
    );
    const running = target;
    const workers = await clusterWorkers(opts.redisUrl, redisPrefix);
    if (workers.length !== WORKERS) throw new Error(`expected ${WORKERS} workers in Redis, found ${workers.length}`);
    const ids = workers.map((w) => w.id);
    const seeding: SeedingFigures[] = [];

    const idle = await attempt(() => shardIdle(running, db.url, workers, splitSubdomain('park', ids), seeding, opts));

    let big: SeededRealm | undefined;
    const seeded = await attempt(async () => {
      big = await seedFanoutRealm(running, db.url, splitSubdomain('fanout', ids), seeding, opts);
    });
    const notSeeded = <T>(): Outcome<T> => failed(`seeding: ${seeded.ok ? 'no realm' : seeded.reason}`);
    const bigRealm = big;
    const register = bigRealm
      ? await attempt(() =>
          step(`shards: POST /register on ${fmt(bigRealm.users.length)} users`, () => measureSerialRegister(running, bigRealm, opts, SERIAL_REGISTERS), (r) =>
            `p95 ${ms(r.serial.latency.p95)} over ${r.serial.requests}; JSON.stringify ${ms(r.stringify.ms)} for ${fmt(r.bodyBytes / 1024)} KB`,
          ),
        )
      : notSeeded<SerialRegisterResult>();
    const { fanout, kill } = bigRealm ? await fanoutAndKill(running, bigRealm, workers, opts, frontsFor(opts.shardSubscribers)) : { fanout: notSeeded<FanoutResult>(), kill: notSeeded<KillResult>() };
    return { fronts, workers: WORKERS, heartbeatSeconds, seeding, idle, register, fanout, kill };
  } finally {
    if (target) await target.stop().catch((err: unknown) => progress(`shards: stopping the cluster: ${errorText(err)}`));
    await dropRedisKeys(opts.redisUrl, redisPrefix).catch((err: unknown) => progress(`shards: could not delete Redis keys under ${redisPrefix}: ${errorText(err)}`));
    await dropBenchDatabase(opts.pgAdminUrl, db).catch((err: unknown) => progress(`shards: could not drop ${db.name}: ${errorText(err)}`));
  }
}

/** Parked polls in a realm split over both shards; /health is read while they are held. */
async function shardIdle(target: Target, databaseUrl: string, workers: ClusterWorker[], subdomain: string, seeding: SeedingFigures[], opts: BenchOptions): Promise<ShardIdleResult> {
  const { polls, clampedBy } = pollsThatFit(target, opts.shardPolls);
  const users = idleUsersNeeded(polls, opts.queuesPerUser);
  const realm = await step(`shards: seed realm "${subdomain}" (${fmt(users)} users)`, () => seedRealm(target, databaseUrl, subdomain, users, seeding));
  const most = new Map<string, ShardPlacement>();
  const sample = async () => {
    for (const s of await realmShards(workers, subdomain).catch(() => [])) {
      const seen = most.get(s.shard);
      most.set(s.shard, {
        shard: s.shard,
        worker: s.worker,
        queues: Math.max(seen?.queues ?? 0, s.queues),
        parked: Math.max(seen?.parked ?? 0, s.parked),
        withActor: s.holdsRealm,
      });
    }
  };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await sample();
      await sleep(1000);
    }
  })();
  try {
    const result = await step(`shards: ${fmt(polls)} parked long-polls, heartbeat ${target.heartbeatSeconds}s`, () =>
      runIdle(target, realm, polls, opts.shardPolls, clampedBy, { ...opts, heartbeatRounds: 3 }, heartbeatJitterSeconds(opts.shardHeartbeatSeconds)), (r) =>
      `${fmt(r.onTime)} of ${fmt(r.attempted)} on time`,
    );
    return { ...result, subdomain, perShard: [...most.values()].sort((a, b) => a.shard.localeCompare(b.shard)) };
  } finally {
    sampling = false;
    await sampler;
  }
}

async function seedRealm(target: Target, databaseUrl: string, subdomain: string, users: number, seeding: SeedingFigures[]): Promise<SeededRealm> {
  const startedAt = performance.now();
  const realm = await createRealm(target, databaseUrl, subdomain, `Bench ${subdomain}`);
  if (users > 1) {
    await createUsers({ target, realm, count: users - 1, prefix: 'm', withKeys: users, concurrency: 1, via: 'cli', databaseUrl });
  }
  const seconds = (performance.now() - startedAt) / 1000;
  seeding.push({ realm: subdomain, users: realm.users.length, channels: 0, via: 'CLI realm + cli users', seconds, usersPerSecond: realm.users.length / seconds });
  return realm;
}

/** The big realm, and its channel with `shardSubscribers` members subscribed in chunks. */
async function seedFanoutRealm(target: Target, databaseUrl: string, subdomain: string, seeding: SeedingFigures[], opts: BenchOptions): Promise<SeededRealm> {
  const realm = await step(`shards: seed realm "${subdomain}" (${fmt(opts.shardUsers)} users)`, () => seedRealm(target, databaseUrl, subdomain, opts.shardUsers, seeding));
  const members = subscribersOf(realm, opts).map((u) => u.userId);
  const chunk = 1000;
  const startedAt = performance.now();
  await step(`shards: subscribe ${fmt(members.length)} users to #${CHANNEL}`, async () => {
    for (let i = 0; i < members.length; i += chunk) await createChannels(target, realm, [CHANNEL], members.slice(i, i + chunk));
  });
  const last = seeding[seeding.length - 1];
  if (last) {
    last.channels = 1;
    last.seconds += (performance.now() - startedAt) / 1000;
    last.usersPerSecond = last.users / last.seconds;
  }
  return realm;
}
