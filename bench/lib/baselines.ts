// Baselines measured in the same run as the server, so ratios cancel out machine noise:
// raw uWebSockets.js hello world, raw Postgres INSERT+COMMIT, and JSON.stringify.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import type { LoopResult, OpenLoopResult } from './agent-protocol.js';
import { Agent } from './agents.js';
import type { Endpoint } from './http-conn.js';
import { CpuMeter, cpuMicrosPerOp, stopChild, trackChild } from './procs.js';
import type { RequestSpec } from './request-spec.js';
import { Samples, median, summarize, type LatencySummary } from './stats.js';

const UWS_HELLO_ENTRY = fileURLToPath(new URL('./uws-hello.js', import.meta.url));

export interface ThroughputFigures {
  requestsPerSecond: number;
  latency: LatencySummary;
  /** CPU of the target's process tree, % of one core (≈100 means the target was the bottleneck). */
  targetCpuPercent: number | null;
  /** CPU of the load generator, % of one core. */
  loadCpuPercent: number;
  /** Successful requests in the measuring window. */
  requests: number;
  /** CPU time of the target's process tree per successful request, µs (null: unknown). */
  cpuMicrosPerRequest: number | null;
  statuses: Record<string, number>;
  firstFailure?: string;
}

export interface LoadSettings {
  connections: number;
  warmupMs: number;
  durationMs: number;
}

/** Drives `spec` with a closed loop and reads the target's CPU meanwhile. */
export async function measureThroughput(
  endpoints: Endpoint[],
  spec: RequestSpec,
  settings: LoadSettings,
  targetPid: number | undefined,
): Promise<ThroughputFigures> {
  const meter = new CpuMeter(targetPid);
  const agent = new Agent({
    kind: 'closed-loop',
    endpoints,
    specs: [spec],
    connections: settings.connections,
    warmupMs: settings.warmupMs,
    durationMs: settings.durationMs,
    timeoutMs: 30_000,
  });
  // Start the CPU reading roughly when the measuring window opens.
  const timer = setTimeout(() => meter.start(), settings.warmupMs);
  try {
    const result = await agent.result<LoopResult>();
    const cpu = meter.read();
    return {
      requestsPerSecond: (result.ok * 1000) / result.windowMs,
      latency: result.latency,
      targetCpuPercent: cpu?.percent ?? null,
      requests: result.ok,
      cpuMicrosPerRequest: cpuMicrosPerOp(cpu, result.ok),
      loadCpuPercent: (100 * result.agentCpuMs) / result.windowMs,
      statuses: result.statuses,
      firstFailure: result.firstFailure,
    };
  } finally {
    clearTimeout(timer);
    agent.close();
  }
}

/** CPU per request at a fixed rate (open loop): what the same work costs two servers. */
export interface CostAtRate {
  rate: number;
  requests: number;
  failed: number;
  latency: LatencySummary;
  /** CPU time of the target's process tree per successful request, µs (null: unknown). */
  cpuMicrosPerRequest: number | null;
  firstFailure?: string;
}

/**
 * Requests started at `rate` per second for `durationMs` (open loop, as many connections as
 * that needs), and the target's CPU per successful request meanwhile. Two servers compared at
 * the same rate do the same work; compared each at its own saturation, the faster one would
 * also be measured where more requests share each wake-up and system call.
 */
export async function measureCostAtRate(endpoints: Endpoint[], spec: RequestSpec, rate: number, durationMs: number, targetPid: number | undefined): Promise<CostAtRate> {
  const meter = new CpuMeter(targetPid);
  meter.start();
  const result = await Agent.run<OpenLoopResult>({ kind: 'open-loop', endpoints, specs: [spec], rate, durationMs, maxConnections: 256, timeoutMs: 30_000 });
  const cpu = meter.read();
  return { rate, requests: result.ok, failed: result.failed, latency: result.latency, cpuMicrosPerRequest: cpuMicrosPerOp(cpu, result.ok), firstFailure: result.firstFailure };
}

/** The request shape both the uWS baseline and GET /users/me use, so only the server differs. */
export function usersMeSpec(host: string, authorization: string): RequestSpec {
  return { method: 'GET', path: '/api/v1/users/me', host, authorization };
}

export async function measureUwsHello(settings: LoadSettings, authorization: string): Promise<ThroughputFigures> {
  const child = spawn(process.execPath, [UWS_HELLO_ENTRY], { stdio: ['ignore', 'pipe', 'inherit'] });
  trackChild(child);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve((JSON.parse(line) as { port: number }).port);
      });
      child.on('exit', (code) => reject(new Error(`uws-hello exited with ${code}`)));
      setTimeout(() => reject(new Error('uws-hello did not start within 10 s')), 10_000).unref();
    });
    const endpoint = { host: '127.0.0.1', port, tls: false };
    return await measureThroughput([endpoint], usersMeSpec(`localhost:${port}`, authorization), settings, child.pid);
  } finally {
    await stopChild(child);
  }
}

export interface CommitFigures {
  concurrency: number;
  transactionsPerSecond: number;
  latency: LatencySummary;
}

/**
 * One-row transactions (BEGIN; INSERT; COMMIT) against a scratch table, each waiting for
 * its commit: the durable write rate a server gets without batching.
 */
export async function measureInsertCommit(databaseUrl: string, concurrency: number, durationMs: number, warmupMs: number): Promise<CommitFigures> {
  const sql = postgres(databaseUrl, { max: concurrency, onnotice: () => {}, connect_timeout: 10 });
  try {
    await sql`CREATE TABLE IF NOT EXISTS bench_scratch (
      id bigserial PRIMARY KEY, sender_id int NOT NULL, content text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`;
    const content = 'bench: a message of ordinary length, about as long as a short chat line in a busy channel';
    const samples = new Samples();
    const start = performance.now();
    const windowStart = start + warmupMs;
    const windowEnd = windowStart + durationMs;
    const worker = async (id: number) => {
      for (;;) {
        const t0 = performance.now();
        if (t0 >= windowEnd) return;
        await sql.begin(async (tx) => {
          await tx`INSERT INTO bench_scratch (sender_id, content) VALUES (${id}, ${content})`;
        });
        const t1 = performance.now();
        if (t0 >= windowStart && t1 < windowEnd) samples.add(t1 - t0);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, i) => worker(i)));
    return { concurrency, transactionsPerSecond: (samples.count * 1000) / durationMs, latency: samples.summary() };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export interface StringifyFigures {
  bytes: number;
  /** Median over the repetitions, ms. */
  ms: number;
  repetitions: number;
  spread: LatencySummary;
}

/** Times JSON.stringify of an already parsed value: the floor of producing that body. */
export function measureStringify(value: unknown, budgetMs = 1000): StringifyFigures {
  let bytes = 0;
  for (let i = 0; i < 3; i++) bytes = Buffer.byteLength(JSON.stringify(value)); // warm up
  const times: number[] = [];
  const start = performance.now();
  while (times.length < 5 || (performance.now() - start < budgetMs && times.length < 1000)) {
    const t0 = performance.now();
    JSON.stringify(value);
    times.push(performance.now() - t0);
  }
  return { bytes, ms: median(times), repetitions: times.length, spread: summarize(times) };
}
