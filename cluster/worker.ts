// The worker role of a cluster: the chat service's worker (realm actors, request handler,
// change feed) plus membership, leases, the event queue copies and the transport server.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Config } from '../src/config.js';
import type { Logger } from '../src/log.js';
import { connectDatabase } from '../src/db/connect.js';
import { startWorker } from '../src/worker/index.js';
import { Metrics } from '../src/http/metrics.js';
import { registerWorkerMetrics } from '../src/worker/metrics.js';
import type { ClusterConfig } from './config.js';
import { connectRedis, redisKeys } from './redis.js';
import { MemberAnnouncer, MembershipView, type MemberInfo } from './membership.js';
import { LeaseManager } from './leases.js';
import { QueueStore } from './queueStore.js';
import { RealmGate } from './realmGate.js';
import { WorkerServer } from './transport/workerServer.js';
import { registerClusterGauges, startMetricsServer } from './metricsServer.js';
import { RedisRateLimitStore } from './rateLimit.js';
import { ShardHost } from './shardHost.js';
import { ShardedHub } from './shardedHub.js';
import { ShardLinks } from './transport/shardLinks.js';
import { Keeper } from './keeper/index.js';
import type { ShardedRealms } from './realmGate.js';

export interface ClusterWorker {
  id: string;
  port: number;
  metricsPort: number | null;
  gate: RealmGate;
  /** Leaves the cluster on purpose: hands every realm over, then closes everything. */
  stop(): Promise<void>;
}

export async function startClusterWorker(config: Config, cc: ClusterConfig, log: Logger): Promise<ClusterWorker> {
  const id = cc.WORKER_ID ?? `${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const wlog = log.child({ worker: id });
  const redis = connectRedis(cc.redisUrl, cc.REDIS_PREFIX, 'worker', wlog);
  const subscriber = connectRedis(cc.redisUrl, cc.REDIS_PREFIX, 'worker-sub', wlog);
  await redis.ping().catch((err: Error) => {
    throw new Error(`Cannot reach Redis at ${cc.redisUrl}: ${err.message}`);
  });
  const db = await connectDatabase({ databaseUrl: cc.databaseUrl, dataDir: config.dataDir, role: 'server' });
  const keys = redisKeys(cc.REDIS_PREFIX);
  // Membership and leases are renewed from the keeper's thread (see keeper/thread.ts).
  const keeper = await Keeper.start({ redisUrl: cc.redisUrl, redisPrefix: cc.REDIS_PREFIX, databaseUrl: cc.databaseUrl, owner: id, timing: cc, log: wlog });

  // In a cluster a realm is loaded only by the gate, under the realm's lease.
  // Rate limits draw on buckets in Redis, so that no front or worker resets a user's budget.
  // With queue shards, a realm's queues and polls live in shards placed over the workers; the
  // actor feeds them through `links` (every worker also hosts the shards placed on it).
  const view = new MembershipView(redis, subscriber, keys, cc, wlog);
  const sharded = cc.QUEUE_SHARDS > 1;
  let links: ShardLinks | null = null;
  const eventHub = sharded
    ? (realm: { stringId: string }, limits: ConstructorParameters<typeof ShardedHub>[0]) =>
        new ShardedHub(limits, { subdomain: realm.stringId, shards: cc.QUEUE_SHARDS, send: (batch) => links!.send(batch), retryBudgetMs: cc.REROUTE_BUDGET_MS, log: wlog })
    : undefined;
  const worker = await startWorker(config, db.sql, wlog, { activation: 'managed', eventHub }, new RedisRateLimitStore(redis, cc.REDIS_PREFIX));
  const leases = new LeaseManager(db.sql, id, cc, wlog);
  leases.useKeeper(keeper);
  const queues = new QueueStore(redis, keys, cc, wlog);
  queues.onMarksLost = (realmId) => {
    gate.moves.staleCopies++;
    return leases.markQueuesStale(realmId).catch((err: unknown) => {
      wlog.warn({ realmId, err: (err as Error).message }, 'could not mark the queue copies stale');
      return false;
    });
  };
  const shardHost = sharded
    ? new ShardHost({
        selfId: id, redis, keys, view, timing: cc, keeper, uriScheme: config.EXTERNAL_URI_SCHEME, log: wlog,
        limits: { heartbeatSeconds: config.HEARTBEAT_SECONDS, maxEvents: config.QUEUE_MAX_EVENTS, maxBytes: config.QUEUE_MAX_BYTES, counters: worker.counters },
      })
    : null;
  if (shardHost) links = new ShardLinks(id, view, shardHost, wlog, (unit) => redis.get(keys.shardLease(unit)));
  const queueShards: ShardedRealms | undefined = sharded
    ? {
        owns: (actor) => actor.events instanceof ShardedHub,
        async restore(actor) {
          const key = keys.shardedRealmHandoff(actor.realm.id);
          const [[, marker]] = (await redis.multi().get(key).del(key).exec()) as [[Error | null, string | null]];
          await (actor.events as ShardedHub).attach(marker !== null);
        },
        async handOver(actor, stale) {
          const hub = actor.events as ShardedHub;
          // Every batch out first: the next actor finds the shards complete, or resets them
          // (so it does when writes were still under way: their events would miss the shards).
          if ((await hub.flush(cc.DRAIN_MS)) && !stale) await redis.set(keys.shardedRealmHandoff(actor.realm.id), '1', 'PX', 120_000);
          return hub.queueCount;
        },
      }
    : undefined;
  const gate = new RealmGate({
    selfId: id, sql: db.sql, registry: worker.registry, inner: worker.handler, leases, view, queues, queueShards, timing: cc, log: wlog,
  });
  leases.onLost = (realmId) => gate.lost(realmId);
  // Jobs (scheduled messages coming due) may take up a realm placed here that nobody uses now.
  worker.registry.setJobActivation((realmId) => gate.activateForJob(realmId));

  const server = new WorkerServer(gate, id, wlog, shardHost ? { host: shardHost, count: cc.QUEUE_SHARDS } : null);
  const port = await server.listen(cc.WORKER_PORT, cc.WORKER_HOST);

  const metrics = new Metrics();
  registerClusterGauges(metrics, () => gate.heldRealms(), id);
  registerWorkerMetrics(metrics, worker, shardHost);
  metrics.counter('chat_cluster_realm_activations_total', 'Realms this worker took up under their lease', () => gate.moves.activated);
  metrics.counter('chat_cluster_realm_handoffs_total', 'Realms this worker handed off to their new owner (planned moves)', () => gate.moves.handedOff);
  metrics.counter('chat_cluster_realm_drops_total', 'Realms this worker stopped serving because their lease was lost', () => gate.moves.dropped);
  metrics.counter('chat_cluster_queue_copies_stale_total', 'Realms whose event queue copies this worker declared stale (Redis did not take them, or writes were under way as the realm left)', () => gate.moves.staleCopies);
  metrics.counter('chat_cluster_event_queues_restored_total', 'Event queues this worker took up from the copies of a realm it activated', () => queues.restores.restored);
  metrics.counter('chat_cluster_event_queues_not_restored_total', 'Event queues left out when this worker activated their realm (dirty, not movable or stale copies): their clients register again', () => queues.restores.notRestored);
  metrics.counter('chat_cluster_event_loop_stalls_total', 'Times the event loop did not turn for longer than a lease (the keeper thread renewed meanwhile)', () => keeper.stalls.longerThanLease);
  metrics.counter('chat_cluster_event_loop_stalls_past_limit_total', 'Times the event loop did not turn for longer than STALL_LIMIT_MS (membership and leases were left to lapse)', () => keeper.stalls.pastLimit);
  let leaving = false;
  const health = () => ({
    ok: !leaving, status: leaving ? 'leaving' : 'ok', role: 'worker', id,
    realms: gate.heldRealms().map((r) => r.subdomain), workers: view.live().map((m) => m.id),
    ...(shardHost ? { queueShards: shardHost.held() } : {}),
  });
  const metricsServer =
    cc.WORKER_METRICS_PORT === undefined ? null : await startMetricsServer(cc.WORKER_METRICS_PORT, cc.WORKER_HOST, metrics, health, wlog);

  const info: MemberInfo = {
    id, host: cc.advertiseHost, port, metricsPort: metricsServer?.port, pid: process.pid,
    hostname: os.hostname(), startedAt: new Date().toISOString(),
  };
  await view.start();
  const announcer = new MemberAnnouncer(redis, keys, info, cc, keeper);
  await announcer.join();
  await view.refresh();
  leases.start();
  queues.start();
  gate.start();
  shardHost?.start();
  view.on('change', () => void gate.rebalance());
  if (shardHost) {
    view.on('change', () => void shardHost.rebalance());
    setInterval(() => void shardHost.rebalance(), cc.MEMBERSHIP_CHECK_MS).unref();
  }
  wlog.info({ port, advertise: `${cc.advertiseHost}:${port}`, metricsPort: metricsServer?.port }, 'worker joined the cluster');

  return {
    id,
    port,
    metricsPort: metricsServer?.port ?? null,
    gate,
    async stop() {
      if (leaving) return;
      leaving = true;
      const started = Date.now();
      // Placement drops this worker everywhere at once; then its realms move with their queues.
      await announcer.leave().catch((err: unknown) => wlog.warn({ err: (err as Error).message }, 'could not announce leaving'));
      view.exclude(id);
      await gate.drain();
      await shardHost?.drain();
      await server.close();
      links?.close();
      queues.stop();
      leases.stop();
      await keeper.close();
      await view.close();
      await worker.stop(); // jobs in flight finish before the database closes
      metricsServer?.close();
      await Promise.all([redis.quit(), subscriber.quit()]).catch((err: unknown) => wlog.debug({ err }, 'redis quit failed'));
      await db.close();
      wlog.info({ ms: Date.now() - started }, 'worker left the cluster');
    },
  };
}
