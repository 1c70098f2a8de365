// Workloads 1 and 2: channel messages into channels whose subscribers all long-poll.
//   1. saturating closed loop of N senders → sends/s (durable: acknowledged after commit)
//   2. open loop at half that rate → send latency, and send→receive latency measured on
//      every subscriber's queue from the send instant embedded in the content.

import type { DrainReport, LoopResult, OpenLoopResult, SubscriberQueue, SubscribersResult } from '../lib/agent-protocol.js';
import { Agent } from '../lib/agents.js';
import { ApiClient, mapConcurrent } from '../lib/api.js';
import type { BenchOptions } from '../lib/options.js';
import { CpuMeter, cpuMicrosPerOp } from '../lib/procs.js';
import { progress } from '../lib/progress.js';
import { basicAuth, formEncodeWithPlaceholders, markerContent, type RequestSpec } from '../lib/request-spec.js';
import type { SeededRealm } from '../lib/seed.js';
import { targetEndpoints, type Target } from '../lib/server.js';
import type { LatencySummary } from '../lib/stats.js';

export interface SendsResult {
  subscribers: number;
  channels: number;
  senders: number;
  saturated: {
    sendsPerSecond: number;
    latency: LatencySummary;
    failed: number;
    firstFailure?: string;
    delivery: DrainReport;
    serverCpuPercent: number | null;
    loadCpuPercent: number;
    /** Server CPU over the measuring window per acknowledged send, µs. */
    cpuMicrosPerSend: number | null;
  };
  halfRate: {
    targetRate: number;
    sendsPerSecond: number;
    /** From each send's scheduled start (includes any wait for a free connection). */
    latency: LatencySummary;
    serviceLatency: LatencySummary;
    failed: number;
    lost: number;
    firstFailure?: string;
    sendToReceive: LatencySummary;
    delivery: DrainReport;
    serverCpuPercent: number | null;
    /**
     * Server CPU from the first send of the open loop until every receipt was in: what the
     * sends cost with their deliveries (the queues' events, the poll answers, the re-polls).
     */
    cost: SendCost | null;
  };
  subscriberPolls: SubscribersResult;
}

export interface SendCost {
  cpuMs: number;
  sends: number;
  /** Message events received by the subscribers' queues. */
  deliveries: number;
  /** Poll answers the subscribers received (one answer may carry several events). */
  pollAnswers: number;
  cpuMicrosPerSend: number;
  cpuMicrosPerDelivery: number | null;
}

function sendSpecs(realm: SeededRealm, senders: number, channels: string[], phase: string): RequestSpec[] {
  const users = realm.users.filter((u) => u.apiKey);
  return Array.from({ length: senders }, (_, i) => {
    const user = users[i % users.length];
    const body = formEncodeWithPlaceholders({ type: 'channel', to: channels[i % channels.length], topic: 'bench', content: markerContent(phase) });
    return { method: 'POST', path: '/api/v1/messages', host: realm.host, authorization: basicAuth(user), body };
  });
}

async function registerQueues(target: Target, realm: SeededRealm, subscribers: number): Promise<SubscriberQueue[]> {
  const users = realm.users.filter((u) => u.apiKey).slice(0, subscribers);
  return mapConcurrent(users, 16, async (user) => {
    const client = new ApiClient(target.baseUrl, realm.host, user);
    try {
      const res = await client.post<{ queue_id: string; last_event_id: number }>('/register', { event_types: ['message'] });
      return { host: realm.host, authorization: basicAuth(user), queueId: res.queue_id, lastEventId: res.last_event_id ?? -1 };
    } finally {
      client.close();
    }
  });
}

/** Turns "nothing succeeded" into the error the row shows as n/a. */
function requireSuccess(what: string, result: LoopResult): void {
  if (result.ok > 0) return;
  throw new Error(`${what}: POST /api/v1/messages never succeeded: ${result.firstFailure ?? 'no response'}`);
}

export async function runSends(target: Target, realm: SeededRealm, channels: string[], opts: BenchOptions): Promise<SendsResult> {
  const endpoints = targetEndpoints(target);
  const queues = await registerQueues(target, realm, opts.subscribers);
  const subscribersAgent = new Agent({ kind: 'subscribers', endpoints, queues, pollTimeoutMs: 120_000 });
  try {
    // 1. Saturating closed loop.
    const meter = new CpuMeter(target.pid);
    const meterTimer = setTimeout(() => meter.start(), opts.warmupSeconds * 1000);
    const saturated = await Agent.run<LoopResult>({
      kind: 'closed-loop',
      endpoints,
      specs: sendSpecs(realm, opts.senders, channels, 'p1'),
      connections: opts.senders,
      warmupMs: opts.warmupSeconds * 1000,
      durationMs: opts.seconds * 1000,
      timeoutMs: 30_000,
    });
    clearTimeout(meterTimer);
    const saturatedCpu = meter.read();
    requireSuccess('saturating sends', saturated);
    const sendsPerSecond = (saturated.ok * 1000) / saturated.windowMs;
    progress(`  saturating sends: ${Math.round(sendsPerSecond)} sends/s; waiting for delivery to ${queues.length} queues`);
    subscribersAgent.command({ cmd: 'drain', phase: 'p1', expected: saturated.allOk * queues.length, timeoutMs: 15_000 });
    const saturatedDelivery = await subscribersAgent.waitFor<DrainReport>('drained');

    // 2. Open loop at half the saturated rate.
    const targetRate = Math.max(1, Math.floor(sendsPerSecond / 2));
    progress(`  open loop at ${targetRate} sends/s for ${opts.seconds}s`);
    const halfMeter = new CpuMeter(target.pid);
    halfMeter.start();
    const half = await Agent.run<OpenLoopResult>({
      kind: 'open-loop',
      endpoints,
      specs: sendSpecs(realm, opts.senders, channels, 'p2'),
      rate: targetRate,
      durationMs: opts.seconds * 1000,
      maxConnections: 512,
      timeoutMs: 30_000,
    });
    const halfCpu = halfMeter.read();
    requireSuccess('half-rate sends', half);
    subscribersAgent.command({ cmd: 'drain', phase: 'p2', expected: half.ok * queues.length, timeoutMs: 15_000 });
    const halfDelivery = await subscribersAgent.waitFor<DrainReport>('drained');
    const withDeliveries = halfMeter.read();
    const cost: SendCost | null = withDeliveries
      ? {
          cpuMs: withDeliveries.cpuMs,
          sends: half.ok,
          deliveries: halfDelivery.delivered,
          pollAnswers: halfDelivery.pollsSoFar - saturatedDelivery.pollsSoFar,
          cpuMicrosPerSend: (1000 * withDeliveries.cpuMs) / half.ok,
          cpuMicrosPerDelivery: cpuMicrosPerOp(withDeliveries, halfDelivery.delivered),
        }
      : null;
    subscribersAgent.command({ cmd: 'stop' });
    const subscriberPolls = await subscribersAgent.result<SubscribersResult>();

    return {
      subscribers: queues.length,
      channels: channels.length,
      senders: opts.senders,
      saturated: {
        sendsPerSecond,
        latency: saturated.latency,
        failed: saturated.failed,
        firstFailure: saturated.firstFailure,
        delivery: saturatedDelivery,
        serverCpuPercent: saturatedCpu?.percent ?? null,
        loadCpuPercent: (100 * saturated.agentCpuMs) / saturated.windowMs,
        cpuMicrosPerSend: cpuMicrosPerOp(saturatedCpu, saturated.ok),
      },
      halfRate: {
        targetRate,
        sendsPerSecond: (half.ok * 1000) / (opts.seconds * 1000),
        latency: half.latency,
        serviceLatency: half.serviceLatency,
        failed: half.failed,
        lost: half.scheduled - half.completed,
        firstFailure: half.firstFailure,
        sendToReceive: halfDelivery.latency,
        delivery: halfDelivery,
        serverCpuPercent: halfCpu?.percent ?? null,
        cost,
      },
      subscriberPolls,
    };
  } finally {
    subscribersAgent.close();
  }
}

/** The send realm: `subscribers` users (owner included), all subscribed to every bench channel. */
export function sendChannelNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `bench-${i}`);
}
