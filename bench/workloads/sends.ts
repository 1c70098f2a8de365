// The sends workloads: channel messages into channels whose subscribers all long-poll.
//   1. saturating closed loop of N senders → sends/s (durable: acknowledged after commit)
//   2. open loop at half that rate → send latency, and send→receive latency measured on
//      every subscriber's queue from the send instant embedded in the content.
//   3. capacity: closed loops with 2, 4, 8 and 16 times as many senders. N closed-loop
//      senders each wait for their answer, so at N = 16 the rate is N over a send's latency
//      (the group commit's statement in flight, then its own), not what the server can take;
//      the capacity is the best rate of these steps.

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
  /** Step 1: the closed loop of `senders`. */
  saturated: CapacityStep;
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
  /** Step 3, when asked for: the rate with more senders. */
  capacity: SendCapacity | null;
  subscriberPolls: SubscribersResult;
}

export interface CapacityStep {
  senders: number;
  sendsPerSecond: number;
  latency: LatencySummary;
  failed: number;
  firstFailure?: string;
  /** Percentages of one core, over the measuring window. */
  serverCpuPercent: number | null;
  loadCpuPercent: number;
  /** Server CPU over the measuring window per acknowledged send, µs. */
  cpuMicrosPerSend: number | null;
  delivery: DrainReport;
}

export interface SendCapacity {
  /** Every step, the first one being the saturating loop of step 1. */
  steps: CapacityStep[];
  /** The step with the highest rate. */
  best: CapacityStep;
}

/**
 * Capacity steps go up to this many times the base senders, every one of them: a step may
 * gain little over the one before and the next one much (batches grow with the senders).
 */
const CAPACITY_MAX_FACTOR = 16;
/** Longest measuring window of a capacity step. */
const CAPACITY_SECONDS = 5;

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

/**
 * A closed loop of `senders` senders over the measuring window, then the wait until every
 * subscriber's queue had every acknowledged send (so that the next step starts unloaded).
 */
async function closedLoopStep(
  target: Target,
  realm: SeededRealm,
  channels: string[],
  subscribersAgent: Agent,
  queues: number,
  step: { senders: number; phase: string; warmupSeconds: number; seconds: number },
): Promise<CapacityStep> {
  const meter = new CpuMeter(target.pid);
  const meterTimer = setTimeout(() => meter.start(), step.warmupSeconds * 1000);
  const loop = await Agent.run<LoopResult>({
    kind: 'closed-loop',
    endpoints: targetEndpoints(target),
    specs: sendSpecs(realm, step.senders, channels, step.phase),
    connections: step.senders,
    warmupMs: step.warmupSeconds * 1000,
    durationMs: step.seconds * 1000,
    timeoutMs: 30_000,
  });
  clearTimeout(meterTimer);
  const cpu = meter.read();
  requireSuccess(`sends from ${step.senders} senders`, loop);
  const sendsPerSecond = (loop.ok * 1000) / loop.windowMs;
  progress(`  ${step.senders} senders: ${Math.round(sendsPerSecond)} sends/s; waiting for delivery to ${queues} queues`);
  subscribersAgent.command({ cmd: 'drain', phase: step.phase, expected: loop.allOk * queues, timeoutMs: 15_000 });
  const delivery = await subscribersAgent.waitFor<DrainReport>('drained');
  return {
    senders: step.senders,
    sendsPerSecond,
    latency: loop.latency,
    failed: loop.failed,
    firstFailure: loop.firstFailure,
    serverCpuPercent: cpu?.percent ?? null,
    loadCpuPercent: (100 * loop.agentCpuMs) / loop.windowMs,
    cpuMicrosPerSend: cpuMicrosPerOp(cpu, loop.ok),
    delivery,
  };
}

/**
 * Runs the three steps; the capacity step only when `capacity` is set (the cluster-overhead
 * phase compares one process and a cluster at the same senders and skips it). `openRate`:
 * the open loop's rate instead of half the saturated one (that phase runs both sides' open
 * loops at one rate, so that their CPU per send is for the same work).
 */
export async function runSends(target: Target, realm: SeededRealm, channels: string[], opts: BenchOptions, capacity = true, openRate?: number): Promise<SendsResult> {
  const endpoints = targetEndpoints(target);
  const queues = await registerQueues(target, realm, opts.subscribers);
  const subscribersAgent = new Agent({ kind: 'subscribers', endpoints, queues, pollTimeoutMs: 120_000 });
  try {
    // 1. Saturating closed loop.
    const saturated = await closedLoopStep(target, realm, channels, subscribersAgent, queues.length, {
      senders: opts.senders,
      phase: 'p1',
      warmupSeconds: opts.warmupSeconds,
      seconds: opts.seconds,
    });
    const sendsPerSecond = saturated.sendsPerSecond;

    // 2. Open loop at half the saturated rate (or at the rate asked for).
    const targetRate = openRate ?? Math.max(1, Math.floor(sendsPerSecond / 2));
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
          pollAnswers: halfDelivery.pollsSoFar - saturated.delivery.pollsSoFar,
          cpuMicrosPerSend: (1000 * withDeliveries.cpuMs) / half.ok,
          cpuMicrosPerDelivery: cpuMicrosPerOp(withDeliveries, halfDelivery.delivered),
        }
      : null;

    // 3. Capacity: the same loop with more senders.
    let capacitySteps: CapacityStep[] | null = null;
    if (capacity) {
      capacitySteps = [saturated];
      for (let factor = 2; factor <= CAPACITY_MAX_FACTOR; factor *= 2) {
        const step = await closedLoopStep(target, realm, channels, subscribersAgent, queues.length, {
          senders: opts.senders * factor,
          phase: `c${factor}`,
          warmupSeconds: Math.min(opts.warmupSeconds, 1),
          seconds: Math.min(opts.seconds, CAPACITY_SECONDS),
        });
        capacitySteps.push(step);
      }
    }

    subscribersAgent.command({ cmd: 'stop' });
    const subscriberPolls = await subscribersAgent.result<SubscribersResult>();

    return {
      subscribers: queues.length,
      channels: channels.length,
      senders: opts.senders,
      saturated,
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
      capacity: capacitySteps ? { steps: capacitySteps, best: capacitySteps.reduce((a, b) => (b.sendsPerSecond > a.sendsPerSecond ? b : a)) } : null,
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
