// Cluster overhead: what routing through a front to a worker costs against the one-process
// server. Both sides are spawned here, one after the other, each on its own fresh bench
// database and seeded alike, and measured with identical settings: GET /users/me req/s and
// p99 (closed loop), then channel sends (the sends workload at a small size, with every
// subscriber long-polling). CPU per operation is compared at one rate for both sides (open
// loops at half the cluster's saturated rates; the cluster runs first to set them): the same
// work. Each side at its own saturation would not be the same work: the faster side shares
// each wake-up and system call among more requests, and its poll answers carry more events
// per send.

import net from 'node:net';
import { Redis } from 'ioredis';
import { measureCostAtRate, measureThroughput, usersMeSpec, type CostAtRate, type ThroughputFigures } from '../lib/baselines.js';
import { createBenchDatabase, dropBenchDatabase } from '../lib/db.js';
import type { BenchOptions } from '../lib/options.js';
import { errorText, fmt, ms, progress, step } from '../lib/progress.js';
import { basicAuth } from '../lib/request-spec.js';
import type { SeedingFigures } from '../lib/results.js';
import { createRealm } from '../lib/seed.js';
import { freePorts, startCluster, startLocalServer, targetEndpoints, type SpawnSettings, type Target } from '../lib/server.js';
import { populateSendRealm } from './realms.js';
import { runSends, sendChannelNames, type SendsResult } from './sends.js';

/** Longest measuring window of this phase: it measures everything twice. */
const MAX_SECONDS = 5;

export interface OverheadSide {
  label: string;
  usersMe: ThroughputFigures;
  /** GET /users/me at the common rate, with the CPU per request. */
  usersMeAtRate: CostAtRate;
  sends: SendsResult;
}

/** The rates both sides' CPU per operation is measured at. */
interface CommonRates {
  usersMe: number;
  sends: number;
}

export interface ClusterOverheadResult {
  settings: { connections: number; senders: number; subscribers: number; channels: number; seconds: number; warmupSeconds: number };
  oneProcess: OverheadSide;
  cluster: OverheadSide;
}

/** Answers with the reason Redis cannot be used, or null when it answers PING. */
export function redisUnreachable(redisUrl: string, timeoutMs = 2000): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(redisUrl);
  } catch {
    return Promise.resolve(`not a URL: ${redisUrl}`);
  }
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname || '127.0.0.1', port: Number(url.port || 6379) });
    let reply = '';
    const finish = (reason: string | null) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () => finish(`no answer within ${timeoutMs} ms`));
    socket.once('error', (err) => finish(err.message));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (!reply.includes('\r\n')) return;
      // -NOAUTH still means a Redis is there; the cluster will use the URL's credentials.
      finish(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH') ? null : `unexpected reply ${JSON.stringify(reply.trim())}`);
    });
  });
}

/** Deletes the keys a bench cluster left under its own prefix. */
export async function dropRedisKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  let deleted = 0;
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = nextCursor;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

async function measureSide(
  label: string,
  start: (settings: SpawnSettings) => Promise<Target>,
  opts: BenchOptions,
  sized: BenchOptions,
  runStamp: string,
  redisPrefix: string,
  rates: CommonRates | null,
): Promise<OverheadSide> {
  const db = await step(`cluster-overhead: database for ${label}`, () => createBenchDatabase(opts.pgAdminUrl), (d) => d.name);
  let target: Target | undefined;
  try {
    const settings: SpawnSettings = {
      port: await freePorts(1),
      databaseUrl: db.url,
      heartbeatSeconds: opts.heartbeatSeconds,
      redisUrl: opts.redisUrl,
      // Its own log files and Redis prefix, apart from the run's main target.
      runStamp: `${runStamp}-overhead`,
      redisPrefix,
      nodeArgs: opts.serverNodeArgs,
    };
    target = await step(`cluster-overhead: start ${label}`, () => start(settings), (t) => t.baseUrl);
    const running = target;
    const channels = sendChannelNames(sized.channels);
    const seeding: SeedingFigures[] = [];
    const ctx = { target: running, opts: sized, databaseUrl: db.url, seeding, notes: [], runStamp };
    const realm = await step(`cluster-overhead: seed ${label} (${sized.subscribers} users)`, async () =>
      populateSendRealm(ctx, await createRealm(running, db.url, 'overhead', 'Bench overhead'), channels),
    );
    const load = { connections: sized.connections, warmupMs: sized.warmupSeconds * 1000, durationMs: sized.seconds * 1000 };
    const usersMe = await step(`cluster-overhead: GET /users/me on ${label}`, async () => {
      const figures = await measureThroughput(targetEndpoints(running), usersMeSpec(realm.host, basicAuth(realm.owner)), load, running.pid);
      if (figures.requestsPerSecond === 0) throw new Error(`GET /users/me: ${figures.firstFailure ?? 'no successful response'}`);
      return figures;
    }, (r) => `${fmt(r.requestsPerSecond)} req/s, p99 ${ms(r.latency.p99)}`);
    const usersMeRate = rates?.usersMe ?? Math.max(1, Math.floor(usersMe.requestsPerSecond / 2));
    const usersMeAtRate = await step(`cluster-overhead: GET /users/me on ${label} at ${fmt(usersMeRate)} req/s`, async () => {
      const cost = await measureCostAtRate(targetEndpoints(running), usersMeSpec(realm.host, basicAuth(realm.owner)), usersMeRate, sized.seconds * 1000, running.pid);
      if (cost.requests === 0 || cost.failed > 0) throw new Error(`GET /users/me at ${usersMeRate} req/s: ${cost.failed} failed: ${cost.firstFailure ?? 'no successful response'}`);
      return cost;
    }, (r) => `${r.cpuMicrosPerRequest === null ? '–' : r.cpuMicrosPerRequest.toFixed(1)} µs of CPU per request`);
    const sends = await step(`cluster-overhead: channel sends on ${label}`, () => runSends(running, realm, channels, sized, false, rates?.sends), (r) =>
      `${fmt(r.saturated.sendsPerSecond)} sends/s, p99 ${ms(r.saturated.latency.p99)}`,
    );
    const exit = running.exitStatus?.();
    if (exit) throw new Error(`${label} ${exit} during the measurement; its log: ${running.logFile}`);
    return { label, usersMe, usersMeAtRate, sends };
  } finally {
    if (target) await target.stop().catch((err: unknown) => progress(`cluster-overhead: stopping ${label}: ${errorText(err)}`));
    await dropBenchDatabase(opts.pgAdminUrl, db).catch((err: unknown) => progress(`cluster-overhead: could not drop ${db.name}: ${errorText(err)}`));
  }
}

export async function runClusterOverhead(opts: BenchOptions, runStamp: string): Promise<ClusterOverheadResult> {
  const seconds = Math.min(opts.seconds, MAX_SECONDS);
  const sized: BenchOptions = {
    ...opts,
    seconds,
    warmupSeconds: Math.min(opts.warmupSeconds, 1),
    senders: Math.min(opts.senders, 8),
    subscribers: Math.min(opts.subscribers, 10),
    channels: 2,
    seedUsersVia: 'cli',
  };
  // The cluster first, then one process at the cluster's rates, so that neither runs while
  // the other is measured.
  const prefix = `bench-${runStamp}-overhead:`;
  let cluster: OverheadSide;
  try {
    cluster = await measureSide('cluster 1f/1w', (s) => startCluster(s, 1, 1), opts, sized, runStamp, prefix, null);
  } finally {
    await dropRedisKeys(opts.redisUrl, prefix).then(
      (n) => progress(`cluster-overhead: deleted ${n} Redis keys under ${prefix}`),
      (err: unknown) => progress(`cluster-overhead: could not delete Redis keys under ${prefix}: ${errorText(err)}`),
    );
  }
  const rates = { usersMe: cluster.usersMeAtRate.rate, sends: cluster.sends.halfRate.targetRate };
  const oneProcess = await measureSide('one process', startLocalServer, opts, sized, runStamp, prefix, rates);
  return {
    settings: { connections: sized.connections, senders: sized.senders, subscribers: sized.subscribers, channels: sized.channels, seconds, warmupSeconds: sized.warmupSeconds },
    oneProcess,
    cluster,
  };
}
