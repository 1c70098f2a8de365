// Workload 5: POST /register (full initial state) on a large realm, timed against
// JSON.stringify of that same response body, the floor of producing it.

import type { LoopResult } from '../lib/agent-protocol.js';
import { Agent } from '../lib/agents.js';
import { ApiClient } from '../lib/api.js';
import { measureStringify, type StringifyFigures } from '../lib/baselines.js';
import type { BenchOptions } from '../lib/options.js';
import { CpuMeter, cpuMicrosPerOp } from '../lib/procs.js';
import { basicAuth, type Credentials, type RequestSpec } from '../lib/request-spec.js';
import type { SeededRealm } from '../lib/seed.js';
import { targetEndpoints, type Target } from '../lib/server.js';
import type { LatencySummary } from '../lib/stats.js';

export interface RegisterResult {
  realmUsers: number | null;
  subscriptions: number | null;
  bodyBytes: number;
  stringify: StringifyFigures;
  serial: { requests: number; perSecond: number; latency: LatencySummary; serverCpuPercent: number | null; cpuMicrosPerRequest: number | null };
  storm: { concurrency: number; requests: number; perSecond: number; latency: LatencySummary; failed: number; serverCpuPercent: number | null; cpuMicrosPerRequest: number | null };
}

function registerSpec(host: string, user: Credentials): RequestSpec {
  return { method: 'POST', path: '/api/v1/register', host, authorization: basicAuth(user) };
}

function requireSuccess(result: LoopResult): void {
  if (result.ok > 0) return;
  throw new Error(`POST /api/v1/register never succeeded: ${result.firstFailure ?? 'no response'}`);
}

async function closedLoop(target: Target, specs: RequestSpec[], connections: number, opts: BenchOptions, requests?: number) {
  const meter = new CpuMeter(target.pid);
  meter.start();
  const result = await Agent.run<LoopResult>({
    kind: 'closed-loop',
    endpoints: targetEndpoints(target),
    specs,
    connections,
    warmupMs: 0,
    durationMs: opts.seconds * 1000,
    timeoutMs: 120_000,
    requests,
  });
  const cpu = meter.read();
  requireSuccess(result);
  // The window has no warm-up: every request answered counts, the ones after it too.
  return { result, cpu: cpu?.percent ?? null, cpuMicros: cpuMicrosPerOp(cpu, result.allOk) };
}

export type SerialRegisterResult = Omit<RegisterResult, 'storm'>;

/**
 * The register body once (untimed: it warms the realm up), then one client registering back
 * to back for `--seconds`, or `requests` times.
 */
export async function measureSerialRegister(target: Target, realm: SeededRealm, opts: BenchOptions, requests?: number): Promise<SerialRegisterResult> {
  const owner = new ApiClient(target.baseUrl, realm.host, realm.owner);
  let body: Record<string, unknown>;
  let bodyBytes: number;
  try {
    // One untimed call warms the realm up and gives the body to compare against.
    const res = await owner.call<Record<string, unknown>>('POST', '/register', '');
    body = res.json;
    bodyBytes = res.bytes;
    if (typeof body.queue_id === 'string') {
      await owner.call('DELETE', `/events?queue_id=${encodeURIComponent(body.queue_id)}`).catch(() => undefined);
    }
  } finally {
    owner.close();
  }
  const stringify = measureStringify(body);
  const realmUsers = Array.isArray(body.realm_users) ? body.realm_users.length : null;
  const subscriptions = Array.isArray(body.subscriptions) ? body.subscriptions.length : null;
  const serial = await closedLoop(target, [registerSpec(realm.host, realm.owner)], 1, opts, requests);
  return {
    realmUsers,
    subscriptions,
    bodyBytes,
    stringify,
    serial: {
      requests: serial.result.ok,
      perSecond: (serial.result.ok * 1000) / serial.result.windowMs,
      latency: serial.result.latency,
      serverCpuPercent: serial.cpu,
      cpuMicrosPerRequest: serial.cpuMicros,
    },
  };
}

export async function runRegister(target: Target, realm: SeededRealm, opts: BenchOptions): Promise<RegisterResult> {
  const serial = await measureSerialRegister(target, realm, opts);
  const stormUsers = realm.users.filter((u) => u.apiKey).slice(0, opts.registerConcurrency);
  const storm = await closedLoop(
    target,
    stormUsers.map((u) => registerSpec(realm.host, u)),
    opts.registerConcurrency,
    opts,
  );
  return {
    ...serial,
    storm: {
      concurrency: opts.registerConcurrency,
      requests: storm.result.ok,
      perSecond: (storm.result.ok * 1000) / storm.result.windowMs,
      latency: storm.result.latency,
      failed: storm.result.failed,
      serverCpuPercent: storm.cpu,
      cpuMicrosPerRequest: storm.cpuMicros,
    },
  };
}
