// Command-line flags of the runner, with the defaults of a full run and of --quick.

import path from 'node:path';

export type TargetMode = 'local' | 'cluster' | 'url';

export const PHASES = ['uws', 'pg', 'sends', 'users-me', 'register', 'idle', 'render', 'cluster-overhead', 'shards'] as const;
export type Phase = (typeof PHASES)[number];

export interface BenchOptions {
  mode: TargetMode;
  quick: boolean;
  fronts: number;
  workers: number;
  url?: string;
  email?: string;
  apiKey?: string;
  /** Host header for --url mode (defaults to the URL's host). */
  hostHeader?: string;
  /** In --url mode, create users in the credentials' realm for the sends workload. */
  seed: boolean;
  phases: Set<Phase>;
  port: number;
  pgAdminUrl: string;
  redisUrl: string;
  keepDatabase: boolean;
  /** Node flags for every server process spawned (e.g. --cpu-prof), from --cpu-prof DIR. */
  serverNodeArgs: string[];
  /** Seconds of measurement per throughput phase, after warmupSeconds. */
  seconds: number;
  warmupSeconds: number;
  /** Connections of the closed-loop req/s phases (uWS hello world and GET /users/me). */
  connections: number;
  /** Concurrent senders; also the concurrency of the concurrent Postgres baseline. */
  senders: number;
  subscribers: number;
  channels: number;
  idle: number;
  idleExplicit: boolean;
  queuesPerUser: number;
  heartbeatSeconds: number;
  heartbeatRounds: number;
  registerUsers: number;
  registerChannels: number;
  registerConcurrency: number;
  seedConcurrency: number;
  seedUsersVia: 'api' | 'cli';
  /** Phase "shards": users of its big realm, subscribers of its channel, send rate, parked polls, heartbeat. */
  shardUsers: number;
  shardSubscribers: number;
  shardRate: number;
  shardPolls: number;
  shardHeartbeatSeconds: number;
}

export const USAGE = `Usage: npm run bench -- [flags]

Targets (default: spawn one server process against a fresh bench database)
  --cluster F,W          spawn node dist/cluster/launch.js --fronts F --workers W (needs Redis)
  --url URL --email E --api-key K
                         measure a running deployment with these credentials
  --host-header H        Host header for --url (default: the URL's host)
  --seed                 with --url: create users in that realm for the sends workload

Sizes and durations
  --quick                short smoke run: small realms, 1,000 idle polls, 3 s per phase
  --seconds S            measuring seconds per throughput phase (default 10; quick 3)
  --warmup S             warm-up seconds before measuring (default 2; quick 0.5)
  --connections N        connections for the req/s phases (default 64)
  --senders N            concurrent senders, and Postgres baseline concurrency (default 16);
                         the capacity steps use 2, 4, 8 and 16 times as many
  --subscribers N        users subscribed to each send channel, all long-polling (default 50)
  --channels N           channels the senders spread over (default 4)
  --idle N               parked long-polls (default 20000; quick 1000)
  --queues-per-user N    event queues per idle user (default 100)
  --heartbeat S          HEARTBEAT_SECONDS for the spawned server (default 5); with --url,
                         the deployment's longest heartbeat interval (default 55)
  --register-users N     users of the register realm (default 10000; quick 200)
  --register-channels N  channels of the register realm (default 1000; quick 20)
  --register-concurrency N  concurrent clients of the register storm (default 8)
  --seed-concurrency N   concurrent API calls while seeding (default 16)
  --shard-users N        phase shards: users of its big realm (default 100000; quick 10000)
  --shard-subscribers N  phase shards: subscribers of its channel, all long-polling (default
                         10000; quick 1000)
  --shard-rate N         phase shards: sends/s of its open loops (default 20)
  --shard-polls N        phase shards: parked long-polls (default 40000; quick 2000)
  --shard-heartbeat S    phase shards: HEARTBEAT_SECONDS of its cluster (default 45; quick 5)
  --seed-users api|cli   create users with one bulk admin create-users (cli, the default; no
                         passwords) or through POST /users (api: scrypt per user, ~9 users/s)

Selection and plumbing
  --only a,b             run only these phases: ${PHASES.join(', ')}
  --skip a,b             skip these phases
  --port P               port for the spawned server (default: a free one)
  --pg URL               admin connection for creating the bench database
                         (default postgres://postgres@127.0.0.1:5432/postgres)
  --redis URL            REDIS_URL for --cluster and the cluster-overhead phase
                         (default redis://127.0.0.1:6379; that phase is n/a without it)
  --keep-db              do not drop the bench database at the end
  --cpu-prof DIR         run every spawned server process (fronts and workers of a cluster
                         too) under node --cpu-prof, writing its .cpuprofile files to DIR
`;

function parsePhases(value: string): Phase[] {
  const names = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const name of names) {
    if (!(PHASES as readonly string[]).includes(name)) throw new Error(`unknown phase "${name}" (phases: ${PHASES.join(', ')})`);
  }
  return names as Phase[];
}

export function parseOptions(argv: string[]): BenchOptions {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"\n\n${USAGE}`);
    const eq = arg.indexOf('=');
    if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags.set(arg.slice(2), argv[++i]);
    else flags.set(arg.slice(2), true);
  }
  if (flags.has('help') || flags.has('h')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const known = new Set([
    'cluster', 'url', 'email', 'api-key', 'host-header', 'seed', 'quick', 'seconds', 'warmup', 'connections',
    'senders', 'subscribers', 'channels', 'idle', 'queues-per-user', 'heartbeat', 'register-users',
    'register-channels', 'register-concurrency', 'seed-concurrency', 'seed-users', 'only', 'skip', 'port', 'pg',
    'redis', 'keep-db', 'cpu-prof', 'shard-users', 'shard-subscribers', 'shard-rate', 'shard-polls', 'shard-heartbeat',
  ]);
  for (const key of flags.keys()) if (!known.has(key)) throw new Error(`unknown flag --${key}\n\n${USAGE}`);

  const text = (key: string): string | undefined => {
    const v = flags.get(key);
    if (v === true) throw new Error(`--${key} needs a value`);
    return v;
  };
  const num = (key: string, fallback: number): number => {
    const v = text(key);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${key} must be a non-negative number, got "${v}"`);
    return n;
  };

  const quick = flags.has('quick');
  let mode: TargetMode = 'local';
  let fronts = 1;
  let workers = 1;
  const cluster = text('cluster');
  if (cluster !== undefined) {
    const m = /^(\d+),(\d+)$/.exec(cluster);
    if (!m) throw new Error('--cluster takes F,W (fronts,workers), e.g. --cluster 2,4');
    mode = 'cluster';
    fronts = Number(m[1]);
    workers = Number(m[2]);
  }
  const url = text('url');
  if (url !== undefined) {
    if (mode === 'cluster') throw new Error('--url and --cluster exclude each other');
    mode = 'url';
    if (!text('email') || !text('api-key')) throw new Error('--url needs --email and --api-key');
  }

  let phases = new Set<Phase>(PHASES);
  const only = text('only');
  if (only !== undefined) phases = new Set(parsePhases(only));
  const skip = text('skip');
  if (skip !== undefined) for (const p of parsePhases(skip)) phases.delete(p);

  const seedUsersVia = text('seed-users') ?? 'cli';
  if (seedUsersVia !== 'api' && seedUsersVia !== 'cli') throw new Error('--seed-users is api or cli');

  return {
    mode,
    quick,
    fronts,
    workers,
    url,
    email: text('email'),
    apiKey: text('api-key'),
    hostHeader: text('host-header'),
    seed: flags.has('seed'),
    phases,
    port: num('port', 0),
    pgAdminUrl: text('pg') ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: text('redis') ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    keepDatabase: flags.has('keep-db'),
    serverNodeArgs: text('cpu-prof') === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', path.resolve(text('cpu-prof') as string)],
    seconds: num('seconds', quick ? 3 : 10),
    warmupSeconds: num('warmup', quick ? 0.5 : 2),
    connections: Math.max(1, num('connections', 64)),
    senders: Math.max(1, num('senders', 16)),
    subscribers: Math.max(1, num('subscribers', 50)),
    channels: Math.max(1, num('channels', 4)),
    idle: num('idle', quick ? 1000 : 20000),
    idleExplicit: flags.has('idle'),
    queuesPerUser: Math.max(1, num('queues-per-user', 100)),
    // A running deployment keeps its own interval (Zulip's is 45–55 s); pass --heartbeat to match.
    heartbeatSeconds: Math.max(1, num('heartbeat', mode === 'url' ? 55 : 5)),
    heartbeatRounds: 3,
    registerUsers: Math.max(1, num('register-users', quick ? 200 : 10000)),
    registerChannels: Math.max(1, num('register-channels', quick ? 20 : 1000)),
    registerConcurrency: Math.max(1, num('register-concurrency', 8)),
    seedConcurrency: Math.max(1, num('seed-concurrency', 16)),
    seedUsersVia,
    shardUsers: Math.max(2, num('shard-users', quick ? 10_000 : 100_000)),
    shardSubscribers: Math.max(1, num('shard-subscribers', quick ? 1000 : 10_000)),
    shardRate: Math.max(1, num('shard-rate', 20)),
    shardPolls: Math.max(1, num('shard-polls', quick ? 2000 : 40_000)),
    // Long enough that two cores answer every parked poll within a round (see bench/README.md).
    shardHeartbeatSeconds: Math.max(1, num('shard-heartbeat', quick ? 5 : 45)),
  };
}
