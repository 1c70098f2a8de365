// A local cluster for tests: fronts and workers as separate `node dist/cluster/main.js`
// processes on a fresh Postgres database and real Redis, under a Redis key prefix of their
// own (other users of the same Redis are not disturbed). Redis must be reachable: tests
// fail, not skip, when it is not.
//
// As root (unless TEST_NETNS=0), every front and worker runs on a host of its
// own: a network namespace made by scripts/netns-cluster.sh, linked to the others by veth
// pairs, reaching Postgres and Redis over those links; the test reaches the fronts and the
// workers' metrics through forwarders on its loopback, and services the test starts on its
// loopback (an S3 server) through forwarders on the bridge. Otherwise (or with TEST_NETNS=0)
// everything runs on one host, and the first cluster says so on stderr.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import { createRealm } from '../../src/actions/realm/create.js';
import { freePort } from '../../scripts/freePort.js';
import { createDatabase } from './globalSetup.js';
import { encodeForm, httpRequest, type Params, type Reply } from './client.js';
import { forward, type Forwarder } from '../../scripts/tcpForward.js';

export { httpRequest };

/** Whether cluster tests make hosts of their own: as root, unless TEST_NETNS=0. */
export const netnsWanted = () => process.env.TEST_NETNS !== '0' && process.getuid?.() === 0;

export const REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Proc {
  role: 'front' | 'worker';
  proc: ChildProcess;
  /** Front: HTTP port. Worker: transport port. */
  port: number;
  /** Worker: id in membership and its health/metrics port. */
  id: string;
  metricsPort: number;
  /** With network namespaces: the address of the host it runs on. */
  address?: string;
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

/** Why the clusters of this test process run on one host (told once), or null when they do not. */
let oneHostReason: string | null | undefined;

const NETNS_SCRIPT = 'scripts/netns-cluster.sh';
/** Hosts made at start; more are added when a test starts more processes. */
const NETNS_HOSTS = 6;

/** A network of hosts (namespaces) for one cluster, or null when this machine cannot make one. */
class HostNetwork {
  private hosts = 0;
  private next = 1;

  private constructor(
    readonly name: string,
    readonly subnet: string,
  ) {}

  static open(): HostNetwork | null {
    if (process.env.TEST_NETNS === '0') return HostNetwork.oneHost('TEST_NETNS=0');
    if (process.getuid?.() !== 0) return HostNetwork.oneHost('not root: network namespaces need root');
    const net = new HostNetwork(`t${process.pid % 100000}${counter}`, `10.${64 + randomInt(128)}.${randomInt(256)}`);
    try {
      net.grow(NETNS_HOSTS);
    } catch (err) {
      net.close();
      return HostNetwork.oneHost(`${NETNS_SCRIPT} failed: ${(err as Error).message.split('\n')[0]}`);
    }
    oneHostReason ??= null;
    return net;
  }

  private static oneHost(reason: string): null {
    if (oneHostReason === undefined) process.stderr.write(`cluster tests: every process on one host (${reason})\n`);
    oneHostReason ??= reason;
    return null;
  }

  private script(args: string[]): void {
    execFileSync('sh', [NETNS_SCRIPT, ...args, '--name', this.name, '--subnet', this.subnet], { stdio: ['ignore', 'pipe', 'pipe'] });
  }

  private grow(hosts: number): void {
    this.script(['up', '--hosts', String(hosts)]);
    this.hosts = hosts;
  }

  /** The next unused host: its namespace and address. */
  take(): { ns: string; address: string } {
    const i = this.next++;
    if (i > this.hosts) this.grow(i + 2);
    return { ns: `${this.name}-h${i}`, address: `${this.subnet}.${10 + i}` };
  }

  /** Where processes inside reach this machine's Postgres and Redis. */
  get bridge(): string {
    return `${this.subnet}.1`;
  }

  close(): void {
    try {
      this.script(['down']);
    } catch {
      // Already gone.
    }
  }
}

function viaHost(url: string, host: string): string {
  const u = new URL(url);
  u.hostname = host;
  return u.toString();
}

export class TestCluster {
  readonly fronts: Proc[] = [];
  readonly workers: Proc[] = [];
  readonly redis: Redis;
  private sql: postgres.Sql | null = null;
  /** Hosts of their own for the processes, when this machine can make them. */
  readonly network: HostNetwork | null;
  private readonly forwarders: Forwarder[] = [];
  private readonly loopbackForwarders = new Map<number, Forwarder>();

  private constructor(
    readonly databaseUrl: string,
    readonly prefix: string,
    private readonly dropDatabase: () => Promise<void>,
    private readonly env: Record<string, string>,
  ) {
    this.redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 2 });
    this.network = HostNetwork.open();
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

  /** A host for the next process: its own namespace and address, or this machine's loopback. */
  private host(): { ns: string | null; address: string; env: NodeJS.ProcessEnv } {
    const net = this.network;
    if (!net) return { ns: null, address: '127.0.0.1', env: { DATABASE_URL: this.databaseUrl, REDIS_URL, WORKER_HOST: '127.0.0.1' } };
    const { ns, address } = net.take();
    return {
      ns,
      address,
      env: { DATABASE_URL: viaHost(this.databaseUrl, net.bridge), REDIS_URL: viaHost(REDIS_URL, net.bridge), WORKER_HOST: '0.0.0.0', WORKER_ADVERTISE_HOST: address },
    };
  }

  /**
   * Services the test runs on this machine's loopback (an S3 server, say), named in the
   * cluster's settings as `http://127.0.0.1:PORT`: with hosts of their own, processes reach
   * them through a forwarder on the bridge address instead.
   */
  private async reachableEnv(env: Record<string, string>): Promise<Record<string, string>> {
    const net = this.network;
    if (!net) return env;
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) {
      const m = /^(https?:\/\/)127\.0\.0\.1:(\d+)(.*)$/.exec(value);
      if (!m) {
        out[name] = value;
        continue;
      }
      let f = this.loopbackForwarders.get(Number(m[2]));
      if (!f) {
        f = await forward(net.bridge, 0, '127.0.0.1', Number(m[2]));
        this.forwarders.push(f);
        this.loopbackForwarders.set(Number(m[2]), f);
      }
      out[name] = `${m[1]}${net.bridge}:${f.port}${m[3]}`;
    }
    return out;
  }

  private baseEnv(): NodeJS.ProcessEnv {
    return {
      ...process.env, REDIS_PREFIX: this.prefix, LOG_LEVEL: 'warn',
      HEARTBEAT_SECONDS: '2', DEMO_REALM: 'false', WORKER_METRICS_PORT: '0',
      // Tests send in bursts; the rate-limit tests turn limits on for their own cluster.
      RATE_LIMITS: process.env.RATE_LIMITS ?? 'off', ...this.env,
    };
  }

  private spawn(role: 'front' | 'worker', env: NodeJS.ProcessEnv, ns: string | null): Proc {
    let out = '';
    const args = ['dist/cluster/main.js', '--role', role];
    // `ip netns exec` enters the namespace and then runs node in the same process (same pid).
    const proc = ns
      ? spawn('ip', ['netns', 'exec', ns, process.execPath, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    return { role, proc, port: 0, id: '', metricsPort: 0, output: () => out, exited };
  }

  /** A port on this machine's loopback that reaches `port` on the process's host. */
  private async reach(address: string, port: number, localPort = 0): Promise<number> {
    if (address === '127.0.0.1') return port;
    const f = await forward('127.0.0.1', localPort, address, port);
    this.forwarders.push(f);
    return f.port;
  }

  async addWorker(id: string, env: Record<string, string> = {}): Promise<Proc> {
    const host = this.host();
    const w = this.spawn('worker', { ...this.baseEnv(), ...(await this.reachableEnv(this.env)), ...host.env, WORKER_ID: id, ...(await this.reachableEnv(env)) }, host.ns);
    w.address = host.address;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const m = /Worker (\S+) serving realms on [^:]+:(\d+) \(health and metrics on port (\d+)\)/.exec(w.output());
      if (m) {
        w.id = m[1]!;
        w.port = Number(m[2]);
        w.metricsPort = await this.reach(host.address, Number(m[3]));
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
    const host = this.host();
    const f = this.spawn('front', { ...this.baseEnv(), ...(await this.reachableEnv(this.env)), ...host.env, PORT: String(port), HOST: host.ns ? '0.0.0.0' : '127.0.0.1', EXTERNAL_HOST: `localhost:${port}` }, host.ns);
    f.address = host.address;
    // Clients connect to the same port on this machine's loopback, so Host headers match.
    f.port = await this.reach(host.address, port, port);
    const deadline = Date.now() + 60_000;
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
    await Promise.all(this.forwarders.map((f) => f.close()));
    this.network?.close();
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
