// The deployment under test: a spawned one-process server, a spawned local cluster, or a
// running deployment given by URL.

import { spawn, type ChildProcess } from 'node:child_process';
import { SERVER_NODE_FLAGS } from '../../src/nodeFlags.js';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './api.js';
import { endpointFromUrl, type Endpoint } from './http-conn.js';
import { markDetachedGroup, stopChild, trackChild, treeRssBytes } from './procs.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const RESULTS_DIR = path.join(REPO_ROOT, 'bench', 'results');

export class NotReadyError extends Error {}

export interface Target {
  /** Where sockets connect, e.g. http://127.0.0.1:9870 (the first front of a cluster). */
  baseUrl: string;
  /** Every front; load is spread over them. */
  frontUrls: string[];
  /** The host part of realm URLs; realm S is reached with Host: S.<externalHost>. */
  externalHost: string;
  /** Set when the runner spawned the target and can read /proc. */
  pid?: number;
  /** Seconds between heartbeats on parked long-polls, if known. */
  heartbeatSeconds?: number;
  databaseUrl?: string;
  logFile?: string;
  /** For spawned targets: how the process ended, if it already did. */
  exitStatus?(): string | null;
  stop(): Promise<void>;
}

export function realmHost(target: Target, subdomain: string): string {
  return subdomain ? `${subdomain}.${target.externalHost}` : target.externalHost;
}

export interface SpawnSettings {
  port: number;
  databaseUrl: string;
  heartbeatSeconds: number;
  redisUrl: string;
  runStamp: string;
  /** REDIS_PREFIX of a spawned cluster (default bench-<runStamp>:), so runs sharing a Redis stay apart. */
  redisPrefix?: string;
  /** Node flags for the server process (a cluster's launcher hands them to its children). */
  nodeArgs?: string[];
  /** More environment for the server (QUEUE_SHARDS of a cluster, say). */
  env?: Record<string, string>;
}

async function waitForHealth(baseUrl: string, host: string, child: ChildProcess, logFile: string, timeoutMs = 60_000): Promise<void> {
  const client = new ApiClient(baseUrl, host);
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`server exited (${child.signalCode ?? child.exitCode}) before it was healthy; log tail:\n${tail(logFile)}`);
      }
      try {
        await client.call('GET', '/health', undefined, { timeoutMs: 2000, json: false });
        return;
      } catch (err) {
        lastError = (err as Error).message;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`GET /health did not answer 200 within ${timeoutMs / 1000} s (${lastError}); log tail:\n${tail(logFile)}`);
  } finally {
    client.close();
  }
}

function tail(file: string, lines = 15): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** The endpoints load agents connect to: every front of the target. */
export function targetEndpoints(target: Target): Endpoint[] {
  return target.frontUrls.map(endpointFromUrl);
}

async function spawnTarget(entry: string, args: string[], env: Record<string, string>, settings: SpawnSettings, label: string, fronts = 1): Promise<Target> {
  const script = path.join(REPO_ROOT, entry);
  if (!existsSync(script)) throw new NotReadyError(`${entry} does not exist yet (npm run build?)`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const logFile = path.join(RESULTS_DIR, `${settings.runStamp}-${label}.log`);
  const log = createWriteStream(logFile);
  const externalHost = `localhost:${settings.port}`;
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...(settings.nodeArgs ?? []), script, ...args], {
    cwd: REPO_ROOT,
    // Its own process group, so stopping it also stops whatever it forks.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(settings.port),
      EXTERNAL_HOST: externalHost,
      DATABASE_URL: settings.databaseUrl,
      LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? 'warn',
      HEARTBEAT_SECONDS: String(settings.heartbeatSeconds),
      // The benchmark measures throughput, not the API budget of one user.
      RATE_LIMITS: process.env.RATE_LIMITS ?? 'off',
      ...settings.env,
      ...env,
    },
  });
  markDetachedGroup(child);
  trackChild(child);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  // A cluster's fronts listen on consecutive ports from PORT.
  const frontUrls = Array.from({ length: fronts }, (_, i) => `http://127.0.0.1:${settings.port + i}`);
  const baseUrl = frontUrls[0];
  try {
    for (const url of frontUrls) await waitForHealth(url, externalHost, child, logFile);
  } catch (err) {
    await stopChild(child);
    throw err;
  }
  return {
    baseUrl,
    frontUrls,
    externalHost,
    pid: child.pid,
    heartbeatSeconds: settings.heartbeatSeconds,
    databaseUrl: settings.databaseUrl,
    logFile,
    exitStatus: () => (child.exitCode !== null || child.signalCode !== null ? `exited (${child.signalCode ?? child.exitCode})` : null),
    stop: () => stopChild(child, 10_000),
  };
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** The first of `count` consecutive ports nothing listens on right now. */
export async function freePorts(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    // Below Linux's ephemeral range (32768+), which the load's client sockets draw from.
    const first = 20_000 + Math.floor(Math.random() * 12_000);
    let free = true;
    for (let i = 0; i < count && free; i++) free = await portIsFree(first + i);
    if (free) return first;
  }
  throw new Error(`found no ${count} consecutive free ports`);
}

export function startLocalServer(settings: SpawnSettings): Promise<Target> {
  return spawnTarget('dist/src/main.js', [], {}, settings, 'server');
}

export function clusterRedisPrefix(settings: Pick<SpawnSettings, 'runStamp' | 'redisPrefix'>): string {
  return settings.redisPrefix ?? `bench-${settings.runStamp}:`;
}

export function startCluster(settings: SpawnSettings, fronts: number, workers: number): Promise<Target> {
  return spawnTarget(
    'dist/cluster/launch.js',
    ['--fronts', String(fronts), '--workers', String(workers)],
    { REDIS_URL: settings.redisUrl, REDIS_PREFIX: clusterRedisPrefix(settings) },
    settings,
    'cluster',
    fronts,
  );
}

export function remoteTarget(url: string, hostHeader: string | undefined): Target {
  const u = new URL(url);
  return {
    baseUrl: `${u.protocol}//${u.host}`,
    frontUrls: [`${u.protocol}//${u.host}`],
    externalHost: hostHeader ?? u.host,
    stop: async () => {},
  };
}

/**
 * Resident memory of the target: from /proc when the runner spawned it, otherwise from the
 * Prometheus gauge process_resident_memory_bytes on /metrics (null if neither works).
 */
export async function targetRssBytes(target: Target): Promise<number | null> {
  if (target.pid !== undefined) {
    const rss = treeRssBytes(target.pid);
    if (rss !== null) return rss;
  }
  const client = new ApiClient(target.baseUrl, target.externalHost);
  try {
    const res = await client.call('GET', '/metrics', undefined, { timeoutMs: 5000, json: false });
    const match = /^process_resident_memory_bytes(?:\{[^}]*\})?\s+([0-9.e+]+)/m.exec(res.text);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  } finally {
    client.close();
  }
}
