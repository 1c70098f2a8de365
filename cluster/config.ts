// Cluster settings: the environment (and a --role flag) → typed configuration. The chat
// service's own settings stay in src/config.ts; these are only what spreading realms over
// processes needs.
import os from 'node:os';
import { z } from 'zod';

const clusterSchema = z.object({
  REDIS_URL: z.string().optional(),
  DATABASE_URL: z.string().optional(),
  /** Every Redis key and channel of the cluster starts with this, so clusters can share a Redis. */
  REDIS_PREFIX: z.string().default('chat:'),
  /**
   * This worker's name in membership and leases; must be unique among live workers (default:
   * hostname-pid-random). A stable name (e.g. per systemd instance) lets a restarted worker
   * take its realms back at once instead of waiting for its old leases to expire.
   */
  WORKER_ID: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'letters, digits, _ . - only').optional(),
  /** Port of the worker's front↔worker transport (0: any free port, advertised in Redis). */
  WORKER_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** Interface the transport listens on. */
  WORKER_HOST: z.string().default('0.0.0.0'),
  /** Address fronts use to reach this worker; defaults to the listen host or this machine's address. */
  WORKER_ADVERTISE_HOST: z.string().optional(),
  /** Worker-side HTTP port for /health and /metrics (unset: none; 0: any free port). */
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** A worker's membership key lives this long without a heartbeat. */
  MEMBER_TTL_MS: z.coerce.number().int().positive().default(3000),
  HEARTBEAT_MS: z.coerce.number().int().positive().default(1000),
  /** How often views re-read membership in case a message was missed or a worker died. */
  MEMBERSHIP_CHECK_MS: z.coerce.number().int().positive().default(1000),
  /** A realm lease lives this long without renewal. */
  LEASE_TTL_MS: z.coerce.number().int().positive().default(3000),
  LEASE_RENEW_MS: z.coerce.number().int().positive().default(1000),
  /**
   * Membership and leases are renewed from a thread of their own while the worker's event loop
   * is busy (a register of a huge realm, a burst of deliveries), for at most this long: a
   * worker whose event loop has not turned for longer is counted out and its realms move.
   */
  STALL_LIMIT_MS: z.coerce.number().int().positive().default(15_000),
  /** How often changed event queues are copied to Redis (the crash-failover window). */
  QUEUE_SNAPSHOT_MS: z.coerce.number().int().positive().default(200),
  /** Queues with more buffered events than this are not copied; after a crash they are re-registered. */
  QUEUE_SNAPSHOT_MAX_EVENTS: z.coerce.number().int().positive().default(1000),
  /** How long queue copies stay in Redis without their owner refreshing them. */
  QUEUE_SNAPSHOT_TTL_SECONDS: z.coerce.number().int().positive().default(900),
  /** Requests a front keeps outstanding per worker connection (long-polls excluded). */
  MAX_IN_FLIGHT: z.coerce.number().int().positive().default(1024),
  /** A request bounced between workers is retried for this long before the client gets 503. */
  REROUTE_BUDGET_MS: z.coerce.number().int().positive().default(10_000),
  /** A front answers 504 when a worker has not answered for this long (long-polls get a heartbeat first). */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  /** A worker leaving on purpose waits this long for requests in flight before handing realms over. */
  DRAIN_MS: z.coerce.number().int().positive().default(10_000),
  /**
   * Queue shards per realm: 1 keeps a realm's event queues and parked polls with its actor;
   * more spreads them by user over that many shards, each placed on a worker like a realm
   * (see queueShards.ts). Every front and worker must use the same value.
   */
  QUEUE_SHARDS: z.coerce.number().int().min(1).max(64).default(1),
});

export type ClusterRole = 'front' | 'worker' | 'all';

export type ClusterConfig = z.infer<typeof clusterSchema> & {
  role: ClusterRole;
  redisUrl: string;
  databaseUrl: string;
  advertiseHost: string;
};

/** `--role front` on the command line wins over ROLE in the environment. */
export function roleFromArgs(argv: string[], envRole: string | undefined): string {
  const i = argv.indexOf('--role');
  if (i >= 0 && argv[i + 1]) return argv[i + 1]!;
  const eq = argv.find((a) => a.startsWith('--role='));
  if (eq) return eq.slice('--role='.length);
  return envRole ?? 'all';
}

function machineAddress(): string {
  for (const addrs of Object.values(os.networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

export function loadClusterConfig(env: NodeJS.ProcessEnv, argv: string[]): ClusterConfig {
  const role = roleFromArgs(argv, env.ROLE);
  if (role !== 'front' && role !== 'worker' && role !== 'all') {
    throw new Error(`Unknown role '${role}': use front, worker or all`);
  }
  const parsed = clusterSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid cluster configuration: ${issues}`);
  }
  const c = parsed.data;
  const missing = [!c.DATABASE_URL && 'DATABASE_URL', !c.REDIS_URL && 'REDIS_URL'].filter(Boolean);
  if (missing.length) {
    throw new Error(
      `A cluster ${role} needs ${missing.join(' and ')}: every process of a cluster shares one PostgreSQL ` +
        `(DATABASE_URL=postgres://…) and one Redis (REDIS_URL=redis://…). ` +
        `To run everything in one process without them, use \`npm start\` (node dist/src/main.js).`,
    );
  }
  // Renewals and heartbeats must come well inside the lifetimes they extend, or one late
  // timer would count a healthy worker out.
  if (c.LEASE_RENEW_MS * 2 > c.LEASE_TTL_MS) throw new Error('LEASE_RENEW_MS must be at most half of LEASE_TTL_MS');
  if (c.HEARTBEAT_MS * 2 > c.MEMBER_TTL_MS) throw new Error('HEARTBEAT_MS must be at most half of MEMBER_TTL_MS');
  if (c.STALL_LIMIT_MS < c.LEASE_TTL_MS) throw new Error('STALL_LIMIT_MS must be at least LEASE_TTL_MS');
  const listenHost = c.WORKER_HOST === '0.0.0.0' || c.WORKER_HOST === '::' ? null : c.WORKER_HOST;
  return {
    ...c,
    role,
    redisUrl: c.REDIS_URL!,
    databaseUrl: c.DATABASE_URL!,
    advertiseHost: c.WORKER_ADVERTISE_HOST ?? listenHost ?? machineAddress(),
  };
}
