// A local cluster for tests: fronts and workers as separate `node dist/cluster/main.js`
// processes on a fresh Postgres database and real Redis, under a Redis key prefix of their
// own (other users of the same Redis are not disturbed). Redis must be reachable: tests
// fail, not skip, when it is not.
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { createRealm } from '../../src/actions/realm/create.js';
import { createDatabase, freePort } from './globalSetup.js';
import { encodeForm, httpRequest, type Params, type Reply } from './client.js';

export { httpRequest };

export const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Proc {
  role: 'front' | 'worker';
  proc: ChildProcess;
  /** Front: HTTP port. Worker: transport port. */
  port: number;
  /** Worker: id in membership and its health/metrics port. */
  id: string;
  metricsPort: number;
  output(): string;
  exited: Promise<number | null>;
}

/** Fails (not skips) when Redis cannot be reached. */
export async function requireRedis(url = REDIS_URL): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let cause = '';
  redis.on('error', (err: Error) => (cause = err.message));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`cluster tests need Redis at ${url} (set TEST_REDIS_URL): ${cause || (err as Error).message}`);
  } finally {
    redis.disconnect();
  }
}

/** A user of a realm, talking to one front of the cluster. */
export class ClusterClient {
  constructor(
    public port: number,
    readonly subdomain: string,
    readonly email: string,
    readonly apiKey: string,
    readonly userId: number,
  ) {}

  request(method: string, path: string, params: Params = {}): Promise<Reply> {
    const encoded = encodeForm(params);
    const inQuery = method === 'GET' || method === 'DELETE';
    return httpRequest(this.port, {
      method,
      path: `/api/v1${path}${inQuery && encoded ? `?${encoded}` : ''}`,
      host: `${this.subdomain}.localhost:${this.port}`,
      headers: {
        Authorization: 'Basic ' + Buffer.from(`${this.email}:${this.apiKey}`).toString('base64'),
        ...(inQuery ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }),
      },
      body: inQuery ? undefined : encoded,
    });
  }

  get(path: string, params?: Params) {
    return this.request('GET', path, params);
  }
  post(path: string, params?: Params) {
    return this.request('POST', path, params);
  }
}

let counter = 0;

export class TestCluster {
  readonly fronts: Proc[] = [];
  readonly workers: Proc[] = [];
  readonly redis: Redis;
  private sql: postgres.Sql | null = null;

  private constructor(
    readonly databaseUrl: string,
    readonly prefix: string,
    private readonly dropDatabase: () => Promise<void>,
    private readonly env: Record<string, string>,
  ) {
    this.redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
  }

  /** `workers`: their ids (WORKER_ID), so tests can compute where realms are placed. */
  static async start(opts: { fronts?: number; workers: string[]; env?: Record<string, string> }): Promise<TestCluster> {
    await requireRedis();
    const db = await createDatabase('chat_cluster');
    const prefix = `test${process.pid}x${Date.now().toString(36)}${counter++}:`;
    const cluster = new TestCluster(db.url, prefix, db.drop, opts.env ?? {});
    try {
      // One worker first: it applies the migrations; the others then start in parallel.
      const [first, ...rest] = opts.workers;
      await cluster.addWorker(first!);
      await Promise.all(rest.map((id) => cluster.addWorker(id)));
      for (let i = 0; i < (opts.fronts ?? 1); i++) await cluster.addFront();
      await cluster.waitForWorkers(cluster.workers.length);
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  private baseEnv(): NodeJS.ProcessEnv {
    return {
      ...process.env, DATABASE_URL: this.databaseUrl, REDIS_URL, REDIS_PREFIX: this.prefix, LOG_LEVEL: 'warn',
      HEARTBEAT_SECONDS: '2', DEMO_REALM: 'false', WORKER_HOST: '127.0.0.1', WORKER_METRICS_PORT: '0',
      // Tests send in bursts; the rate-limit tests turn limits on for their own cluster.
      RATE_LIMITS: process.env.RATE_LIMITS ?? 'off', ...this.env,
    };
  }

  private spawn(role: 'front' | 'worker', env: NodeJS.ProcessEnv): Proc {
    let out = '';
    const proc = spawn(process.execPath, ['dist/cluster/main.js', '--role', role], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    return { role, proc, port: 0, id: '', metricsPort: 0, output: () => out, exited };
  }

  async addWorker(id: string, env: Record<string, string> = {}): Promise<Proc> {
    const w = this.spawn('worker', { ...this.baseEnv(), WORKER_ID: id, ...env });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const m = /Worker (\S+) serving realms on [^:]+:(\d+) \(health and metrics on port (\d+)\)/.exec(w.output());
      if (m) {
        w.id = m[1]!;
        w.port = Number(m[2]);
        w.metricsPort = Number(m[3]);
        break;
      }
      if (w.proc.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start:\n${w.output()}`);
      await sleep(50);
    }
    this.workers.push(w);
    if (this.fronts.length) await this.waitForWorkers(this.live().length);
    return w;
  }

  async addFront(): Promise<Proc> {
    const port = await freePort();
    const f = this.spawn('front', { ...this.baseEnv(), PORT: String(port), EXTERNAL_HOST: `localhost:${port}` });
    f.port = port;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (f.proc.exitCode !== null || Date.now() > deadline) throw new Error(`front did not start:\n${f.output()}`);
      const ok = await httpRequest(port, { method: 'GET', path: '/health', host: 'localhost' }).then((r) => r.status === 200, () => false);
      if (ok) break;
      await sleep(50);
    }
    this.fronts.push(f);
    return f;
  }

  /** Workers whose process is running. */
  live(): Proc[] {
    return this.workers.filter((w) => w.proc.exitCode === null && w.proc.signalCode === null);
  }

  /** Until every front routes to exactly `n` workers. */
  async waitForWorkers(n: number, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const counts = await Promise.all(this.fronts.map((f) => this.frontHealth(f).then((h) => (h.workers as unknown[]).length)));
      if (counts.every((c) => c === n)) return;
      if (Date.now() > deadline) throw new Error(`fronts see ${counts.join(',')} workers, expected ${n}`);
      await sleep(100);
    }
  }

  async frontHealth(f: Proc = this.fronts[0]!): Promise<Record<string, unknown>> {
    return (await httpRequest(f.port, { method: 'GET', path: '/health', host: 'localhost' })).body;
  }

  /** A worker's /health: the realms it holds. */
  async workerHealth(w: Proc): Promise<{ realms: string[]; [k: string]: unknown }> {
    return (await httpRequest(w.metricsPort, { method: 'GET', path: '/health', host: 'localhost' })).body as { realms: string[] };
  }

  async workerMetrics(w: Proc): Promise<string> {
    return (await httpRequest(w.metricsPort, { method: 'GET', path: '/metrics', host: 'localhost' })).body.__text as string;
  }

  worker(id: string): Proc {
    const w = this.workers.find((x) => x.id === id);
    if (!w) throw new Error(`no worker ${id}`);
    return w;
  }

  /** Which live worker holds each realm now (from the workers' /health). */
  async holders(): Promise<Map<string, Proc>> {
    const out = new Map<string, Proc>();
    for (const w of this.live()) for (const realm of (await this.workerHealth(w)).realms) out.set(realm, w);
    return out;
  }

  /** Sends a signal and waits for the process to exit. */
  async signal(p: Proc, sig: NodeJS.Signals): Promise<number | null> {
    p.proc.kill(sig);
    return p.exited;
  }

  /**
   * A realm with its owner, written straight to the database as the admin CLI does (the
   * database is this cluster's own, so names need not be unique elsewhere).
   */
  async newRealm(subdomain: string): Promise<ClusterClient> {
    this.sql ??= postgres(this.databaseUrl, { max: 4, onnotice: () => undefined });
    const { owner } = await createRealm(this.sql, {
      subdomain, name: `Realm ${subdomain}`, ownerEmail: `owner@${subdomain}.test`, ownerPassword: 'owner-password-1', ownerName: 'Olivia Owner',
    });
    return new ClusterClient(this.fronts[0]!.port, subdomain, owner.deliveryEmail, owner.apiKey, owner.id);
  }

  /** Stops everything, drops the database and this cluster's Redis keys. */
  async stop(): Promise<void> {
    for (const p of [...this.fronts, ...this.workers]) {
      if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
    }
    await Promise.all([...this.fronts, ...this.workers].map((p) => p.exited));
    // SCAN, not KEYS: the Redis may be shared, and must not be blocked.
    for await (const keys of this.redis.scanStream({ match: `${this.prefix}*`, count: 500 })) {
      if ((keys as string[]).length) await this.redis.del(...(keys as string[]));
    }
    this.redis.disconnect();
    await this.sql?.end();
    await this.dropDatabase();
  }

  /** This cluster's Redis connections (its processes name them after the key prefix). */
  async redisClientIds(): Promise<string[]> {
    const list = (await this.redis.client('LIST')) as string;
    const name = this.prefix.replace(/[^A-Za-z0-9_.-]/g, '_');
    return list
      .split('\n')
      .filter((line) => new RegExp(`\\bname=${name}\\S*`).test(line))
      .map((line) => /\bid=(\d+)/.exec(line)![1]!);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
