// The local benchmark runner: measures baselines and the server's workloads in one run and
// prints one table of absolute numbers and ratios against those baselines (see
// bench/README.md). Every workload runs on its own: one that fails is reported n/a and the
// run goes on.

import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { measureInsertCommit, measureUwsHello, measureThroughput, usersMeSpec } from './lib/baselines.js';
import { createBenchDatabase, dropBenchDatabase, type BenchDatabase } from './lib/db.js';
import { PHASES, parseOptions, type BenchOptions, type Phase } from './lib/options.js';
import { killTrackedChildren } from './lib/procs.js';
import { errorText, fmt, ms, progress, step } from './lib/progress.js';
import { appendResultsLine, buildRows, renderTable, writeJson } from './lib/report.js';
import { basicAuth } from './lib/request-spec.js';
import { attempt, failed, type Outcome, type RunResults } from './lib/results.js';
import type { SeededRealm } from './lib/seed.js';
import { clusterRedisPrefix, freePorts, remoteTarget, startCluster, startLocalServer, targetEndpoints, type Target } from './lib/server.js';
import { dropRedisKeys, redisUnreachable, runClusterOverhead } from './workloads/clusterOverhead.js';
import { idleUsersNeeded, pollsThatFit, runIdle } from './workloads/idle.js';
import { openRealm, populateSendRealm, seedIdleRealm, seedRegisterRealm, type SeedContext } from './workloads/realms.js';
import { runRegister } from './workloads/register.js';
import { runRender } from './workloads/render.js';
import { runSends, sendChannelNames } from './workloads/sends.js';
import { runShards } from './workloads/shards.js';

const SERVER_PHASES: Phase[] = ['sends', 'users-me', 'register', 'idle'];

function gitCommit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'none';
  }
}

function modeLabel(opts: BenchOptions): string {
  if (opts.mode === 'cluster') return `cluster ${opts.fronts}f/${opts.workers}w`;
  return opts.mode;
}

async function startTarget(opts: BenchOptions, db: BenchDatabase | undefined, runStamp: string): Promise<Target> {
  if (opts.mode === 'url') return remoteTarget(opts.url as string, opts.hostHeader);
  if (!db) throw new Error('no bench database (see the PostgreSQL error above)');
  const port = opts.port || (await freePorts(opts.mode === 'cluster' ? opts.fronts : 1));
  const settings = { port, databaseUrl: db.url, heartbeatSeconds: opts.heartbeatSeconds, redisUrl: opts.redisUrl, runStamp, nodeArgs: opts.serverNodeArgs };
  return opts.mode === 'cluster' ? startCluster(settings, opts.fronts, opts.workers) : startLocalServer(settings);
}

async function runWorkloads(
  results: RunResults,
  opts: BenchOptions,
  target: Target,
  db: BenchDatabase | undefined,
  runStamp: string,
  uwsBaseline: () => Promise<void>,
): Promise<void> {
  const ctx: SeedContext = { target, opts, databaseUrl: db?.url, seeding: results.seeding, notes: results.notes, runStamp };
  const settings = { connections: opts.connections, warmupMs: opts.warmupSeconds * 1000, durationMs: opts.seconds * 1000 };
  const channels = sendChannelNames(opts.channels);
  let sendRealm: Outcome<SeededRealm> | undefined;

  if (opts.phases.has('sends') || opts.phases.has('users-me')) {
    sendRealm = await attempt(() => step('create realm "send"', () => openRealm(ctx, 'send'), (r) => r.host));
  }

  if (opts.phases.has('sends')) {
    results.workloads.sends = sendRealm?.ok
      ? await attempt(async () => {
          const users = opts.mode === 'url' && !opts.seed ? 1 : opts.subscribers;
          const realm = await step(`seed realm "send" (${users} users, ${opts.channels} channels)`, () =>
            populateSendRealm(ctx, sendRealm.value, channels),
          );
          return step('workload: channel sends', () => runSends(target, realm, channels, opts), (r) =>
            `${fmt(r.saturated.sendsPerSecond)} sends/s saturated; half rate p99 ${ms(r.halfRate.latency.p99)}, send→receive p99 ${ms(r.halfRate.sendToReceive.p99)}`,
          );
        })
      : failed(`realm: ${sendRealm?.ok === false ? sendRealm.reason : 'not created'}`);
  }

  if (opts.phases.has('users-me')) {
    await uwsBaseline();
    const realm = sendRealm?.ok ? sendRealm.value : undefined;
    results.workloads.usersMe = realm
      ? await attempt(() =>
          step('workload: GET /users/me', async () => {
            const figures = await measureThroughput(targetEndpoints(target), usersMeSpec(realm.host, basicAuth(realm.owner)), settings, target.pid);
            if (figures.requestsPerSecond === 0) throw new Error(`GET /users/me: ${figures.firstFailure ?? 'no successful response'}`);
            return figures;
          }, (r) => `${fmt(r.requestsPerSecond)} req/s, p99 ${ms(r.latency.p99)}`),
        )
      : failed(`realm: ${sendRealm?.ok === false ? sendRealm.reason : 'not created'}`);
  }

  if (opts.phases.has('register')) {
    results.workloads.register = await attempt(async () => {
      const realm = await step(`seed realm "register" (${fmt(opts.registerUsers)} users, ${fmt(opts.registerChannels)} channels)`, () =>
        seedRegisterRealm(ctx),
      );
      return step('workload: POST /register', () => runRegister(target, realm, opts), (r) =>
        `p50 ${ms(r.serial.latency.p50)}, p95 ${ms(r.serial.latency.p95)}; JSON.stringify ${ms(r.stringify.ms)} for ${fmt(r.bodyBytes / 1024)} KB`,
      );
    });
  }

  if (opts.phases.has('idle')) {
    if (opts.mode === 'url' && !opts.idleExplicit) {
      results.workloads.idle = failed('skipped against a running deployment (pass --idle N and its --heartbeat S)');
    } else {
      results.workloads.idle = await attempt(async () => {
        const { polls, clampedBy } = pollsThatFit(target, opts.idle);
        if (clampedBy) progress(`  idle: ${fmt(opts.idle)} polls asked, ${fmt(polls)} fit under the ${clampedBy}`);
        const users = idleUsersNeeded(polls, opts.queuesPerUser);
        const realm = await step(`seed realm "idle" (${fmt(users)} users)`, () => seedIdleRealm(ctx, users));
        return step(`workload: ${fmt(polls)} parked long-polls`, () => runIdle(target, realm, polls, opts.idle, clampedBy, opts), (r) =>
          `${fmt(r.onTime)} of ${fmt(r.attempted)} heartbeats on time`,
        );
      });
    }
  }
}

/** Why a phase that spawns its own servers and cluster cannot run, or null when it can. */
async function ownClusterBlocked(opts: BenchOptions): Promise<string | null> {
  if (opts.mode === 'url') return 'needs servers spawned by the runner (not with --url)';
  const unreachable = await redisUnreachable(opts.redisUrl);
  return unreachable ? `no Redis at ${opts.redisUrl} (${unreachable}); pass --redis URL` : null;
}

/**
 * Phases that need no target of the run: render runs in this process; cluster-overhead
 * spawns both a one-process server and a 1-front/1-worker cluster of its own; shards spawns
 * a cluster with two queue shards.
 */
async function runStandalonePhases(results: RunResults, opts: BenchOptions, runStamp: string): Promise<void> {
  if (opts.phases.has('render')) {
    results.workloads.render = await attempt(() =>
      step('workload: render throughput', () => runRender(opts), (r) => {
        const best = Math.max(...r.pools.map((p) => p.render.messagesPerSecond));
        return `direct ${fmt(r.direct.messagesPerSecond)} msg/s, best pool ${fmt(best)} msg/s`;
      }),
    );
  }
  if (opts.phases.has('cluster-overhead')) {
    const blocked = await ownClusterBlocked(opts);
    if (blocked) {
      results.workloads.clusterOverhead = failed(blocked);
    } else {
      results.workloads.clusterOverhead = await attempt(() =>
        step('workload: cluster overhead (1 front, 1 worker vs one process)', () => runClusterOverhead(opts, runStamp), (r) =>
          `GET /users/me ${fmt(r.cluster.usersMe.requestsPerSecond)} vs ${fmt(r.oneProcess.usersMe.requestsPerSecond)} req/s; ` +
          `sends ${fmt(r.cluster.sends.saturated.sendsPerSecond)} vs ${fmt(r.oneProcess.sends.saturated.sendsPerSecond)}/s`,
        ),
      );
    }
  }
  if (opts.phases.has('shards')) {
    const blocked = await ownClusterBlocked(opts);
    if (blocked) {
      results.workloads.shards = failed(blocked);
    } else {
      results.workloads.shards = await attempt(() =>
        step('workload: queue shards (one realm over two shard processes)', () => runShards(opts, runStamp), (r) =>
          [r.fanout, r.register, r.idle, r.kill].map((o) => (o.ok ? 'ok' : `failed (${o.reason})`)).join(', '),
        ),
      );
    }
  }
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  const startedAt = new Date();
  const runStamp = startedAt.toISOString().replace(/[:.]/g, '-').slice(0, 19);
  const results: RunResults = {
    startedAt: startedAt.toISOString(),
    commit: gitCommit(),
    mode: modeLabel(opts),
    quick: opts.quick,
    partial: opts.phases.size < PHASES.length ? [...opts.phases].join(',') : undefined,
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
    },
    options: { ...opts, apiKey: opts.apiKey ? '(set)' : undefined, phases: [...opts.phases] },
    baselines: {},
    seeding: [],
    notes: [],
    workloads: {},
  };
  progress(`run ${runStamp}: mode ${results.mode}${opts.quick ? ' (quick)' : ''}, phases ${[...opts.phases].join(', ')}`);

  let db: BenchDatabase | undefined;
  let target: Target | undefined;
  let stopping = false;
  const cleanup = async () => {
    if (stopping) return;
    stopping = true;
    if (target) await target.stop().catch((err: unknown) => progress(`stopping the server: ${errorText(err)}`));
    await killTrackedChildren();
    if (target && opts.mode === 'cluster') {
      const prefix = clusterRedisPrefix({ runStamp });
      await dropRedisKeys(opts.redisUrl, prefix).then(
        (n) => progress(`deleted ${n} Redis keys under ${prefix}`),
        (err: unknown) => progress(`could not delete Redis keys under ${prefix}: ${errorText(err)}`),
      );
    }
    if (db && !opts.keepDatabase) {
      await dropBenchDatabase(opts.pgAdminUrl, db).then(
        () => progress(`dropped database ${db?.name}`),
        (err: unknown) => progress(`could not drop database ${db?.name}: ${errorText(err)}`),
      );
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      progress(`${signal}: cleaning up`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  try {
    const wantsServer = SERVER_PHASES.some((p) => opts.phases.has(p));
    let dbFailure = '';
    if (opts.phases.has('pg') || (wantsServer && opts.mode !== 'url')) {
      try {
        db = await step('create bench database', () => createBenchDatabase(opts.pgAdminUrl), (d) => d.name);
      } catch (err) {
        dbFailure = `PostgreSQL: ${errorText(err)}`;
      }
    }

    // Baselines first, while nothing else of ours runs. The uWS one waits until just before
    // GET /users/me when that runs, so the two see the same machine load (the server idles).
    const settings = { connections: opts.connections, warmupMs: opts.warmupSeconds * 1000, durationMs: opts.seconds * 1000 };
    const uwsBaseline = async () => {
      if (!opts.phases.has('uws') || results.baselines.uws) return;
      results.baselines.uws = await attempt(() =>
        step('baseline: uWS hello world', () => measureUwsHello(settings, basicAuth({ email: 'bench@example.com', apiKey: 'x'.repeat(32) })), (r) =>
          `${fmt(r.requestsPerSecond)} req/s, p99 ${ms(r.latency.p99)} (uWS CPU ${fmt(r.targetCpuPercent)}%, load CPU ${fmt(r.loadCpuPercent)}%)`,
        ),
      );
    };
    if (!(wantsServer && opts.phases.has('users-me'))) await uwsBaseline();
    if (opts.phases.has('pg')) {
      for (const concurrency of [1, opts.senders]) {
        const outcome = db
          ? await attempt(() =>
              step(`baseline: Postgres INSERT+COMMIT ×${concurrency}`, () => measureInsertCommit((db as BenchDatabase).url, concurrency, settings.durationMs, settings.warmupMs), (r) =>
                `${fmt(r.transactionsPerSecond)} tx/s, p50 ${ms(r.latency.p50)}, p99 ${ms(r.latency.p99)}`,
              ),
            )
          : failed<never>(dbFailure);
        if (concurrency === 1) results.baselines.pgSerial = outcome;
        else results.baselines.pgConcurrent = outcome;
      }
    }

    // Before the run's own target starts, so nothing else of ours competes for the CPU.
    await runStandalonePhases(results, opts, runStamp);

    if (wantsServer) {
      const started = await attempt(() => step(`start target (${results.mode})`, () => startTarget(opts, db, runStamp), (t) => t.baseUrl));
      if (started.ok) {
        target = started.value;
        await runWorkloads(results, opts, target, db, runStamp, uwsBaseline);
        const exit = target.exitStatus?.();
        if (exit) results.notes.push(`the server ${exit} during the run; its log: ${target.logFile}`);
      } else {
        const keys = { sends: 'sends', 'users-me': 'usersMe', register: 'register', idle: 'idle' } as const;
        for (const phase of SERVER_PHASES) {
          if (opts.phases.has(phase)) results.workloads[keys[phase as keyof typeof keys]] = failed(`target: ${started.reason}`);
        }
      }
      await uwsBaseline(); // when GET /users/me could not run
    }
  } finally {
    await cleanup();
  }

  results.finishedAt = new Date().toISOString();
  const rows = buildRows(results, opts);
  results.rows = rows;
  const file = writeJson(results, runStamp);
  appendResultsLine(results, rows);
  process.stdout.write(`\nTeam chat server benchmark: ${results.mode}${opts.quick ? ' (quick)' : ''}, commit ${results.commit}, ${results.machine.cpus} CPUs, Node ${process.version}\n\n`);
  process.stdout.write(renderTable(rows, results.notes));
  progress(`results: ${file}; line appended to bench/RESULTS.md`);
}

main().then(
  () => process.exit(0),
  async (err: unknown) => {
    const detail = err instanceof Error ? (process.env.BENCH_DEBUG ? err.stack ?? err.message : err.message) : String(err);
    process.stderr.write(`bench: ${detail}\n`);
    await killTrackedChildren();
    process.exit(1);
  },
);
