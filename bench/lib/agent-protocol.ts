// Messages between the runner and its load-generating child processes ("agents").
// Load runs in separate processes so the runner's own bookkeeping never competes with the
// generator's event loop, and so tens of thousands of client sockets can be spread over
// several processes (each process has its own open-file limit).

import type { Endpoint } from './http-conn.js';
import type { RequestSpec } from './request-spec.js';
import type { LatencySummary } from './stats.js';

/** Closed loop: `connections` connections each send their next request as soon as the last answers. */
/** Where agents connect: every front of a cluster; connection i goes to endpoints[i % n]. */
export type Endpoints = Endpoint[];

export interface ClosedLoopJob {
  kind: 'closed-loop';
  endpoints: Endpoints;
  /** Connection i sends specs[i % specs.length]. */
  specs: RequestSpec[];
  connections: number;
  warmupMs: number;
  durationMs: number;
  timeoutMs: number;
  /** Stop after this many requests instead of at the end of the window (every one counted). */
  requests?: number;
}

/** Open loop: requests start at a fixed rate whatever the latency (no coordinated omission). */
export interface OpenLoopJob {
  kind: 'open-loop';
  endpoints: Endpoints;
  /** Request n uses specs[n % specs.length]. */
  specs: RequestSpec[];
  rate: number;
  durationMs: number;
  maxConnections: number;
  timeoutMs: number;
}

export interface SubscriberQueue {
  host: string;
  authorization: string;
  queueId: string;
  lastEventId: number;
}

/** Long-polls every queue continuously and times message events carrying a bench marker. */
export interface SubscribersJob {
  kind: 'subscribers';
  endpoints: Endpoints;
  queues: SubscriberQueue[];
  pollTimeoutMs: number;
}

/** Registers queues, parks one long-poll per queue, and times the heartbeats. */
export interface IdlePollsJob {
  kind: 'idle-polls';
  endpoints: Endpoints;
  host: string;
  /** One entry per queue to register: the Authorization header of its owner. */
  authorizations: string[];
  heartbeatSeconds: number;
  /** The server's largest jitter on top of the interval: on time is within both + 2 s. */
  jitterSeconds: number;
  rounds: number;
  /** Leading rounds reported but not judged (the parking round). */
  unjudgedRounds: number;
  registerConcurrency: number;
  connectBatch: number;
}

/**
 * Registers one event queue per subscriber of a big channel and long-polls them all; a queue
 * that is gone (BAD_EVENT_QUEUE_ID, as after its shard's worker died) is registered again.
 * Records, per send, how many subscribers received it and when the last one did.
 */
export interface FanoutSubscribersJob {
  kind: 'fanout-subscribers';
  endpoints: Endpoints;
  host: string;
  /** One per subscriber: its Authorization header and the queue shard its user falls in. */
  subscribers: { authorization: string; shard: number }[];
  /** The POST /register form body (and again after BAD_EVENT_QUEUE_ID). */
  registerBody: string;
  registerConcurrency: number;
  pollTimeoutMs: number;
}

export type Job = ClosedLoopJob | OpenLoopJob | SubscribersJob | IdlePollsJob | FanoutSubscribersJob;

export type Command =
  | { cmd: 'drain'; phase: string; expected: number; timeoutMs: number }
  /**
   * Waits until every subscriber has every acknowledged send of the phase (one whose queue was
   * registered again: every send made after that), or the timeout, then reports `collected`.
   */
  | { cmd: 'collect'; phase: string; acked: number[]; timeoutMs: number; samples: boolean }
  | { cmd: 'park' }
  | { cmd: 'stop' };

export type ToAgent = { type: 'job'; job: Job } | { type: 'command'; command: Command };

export type FromAgent =
  | { type: 'event'; name: string; data: unknown }
  | { type: 'result'; data: unknown }
  | { type: 'error'; message: string };

export interface LoopResult {
  /** Responses received inside the measuring window. */
  completed: number;
  ok: number;
  /** Successful responses including warm-up and tail (what receivers should eventually see). */
  allOk: number;
  failed: number;
  statuses: Record<string, number>;
  windowMs: number;
  latency: LatencySummary;
  firstFailure?: string;
  /** CPU the agent itself used during the window (user + system), ms. */
  agentCpuMs: number;
}

export interface OpenLoopResult extends LoopResult {
  scheduled: number;
  /** Latency measured from the moment the request was written, not from its scheduled start. */
  serviceLatency: LatencySummary;
  maxBacklog: number;
  connectionsOpened: number;
  /** Sequence numbers ({{seq}}) of the requests answered 2xx. */
  okSeqs: number[];
}

export interface DrainReport {
  phase: string;
  delivered: number;
  expected: number;
  waitedMs: number;
  latency: LatencySummary;
  /** Poll responses received since the agent started, all phases together. */
  pollsSoFar: number;
}

export interface SubscribersResult {
  polls: number;
  failedPolls: number;
  firstFailure?: string;
}

export interface RegisteredReport {
  queues: number;
  failed: number;
  firstFailure?: string;
}

export interface ParkedReport {
  parked: number;
  failed: number;
  firstFailure?: string;
}

export interface IdleRound {
  responses: number;
  heartbeats: number;
  onTime: number;
  wait: LatencySummary;
}

export interface IdleResult {
  queues: number;
  parked: number;
  /** Polls whose every judged round ended with a heartbeat within heartbeat + 2 s. */
  onTimeJudgedRounds: number;
  rounds: IdleRound[];
  failed: number;
  firstFailure?: string;
}

/** One send as one fanout agent saw it. Instants in µs on the machine's monotonic clock. */
export interface FanoutSend {
  seq: number;
  /** Send instant and scheduled start, from the content marker. */
  sentAt: number;
  scheduledAt: number;
  /** Subscribers of this agent that received it, and the last receipt. */
  receipts: number;
  lastReceiptAt: number;
}

export interface FanoutShardCounts {
  shard: number;
  subscribers: number;
  /** Subscribers that got BAD_EVENT_QUEUE_ID, and those registered again since. */
  badQueue: number;
  reRegistered: number;
  /** Subscribers never told their queue was gone that miss an acknowledged send. */
  withGaps: number;
  /** Re-registered subscribers missing a send made after their new queue existed. */
  missedAfterReRegister: number;
}

export interface FanoutCollectReport {
  phase: string;
  waitedMs: number;
  complete: boolean;
  subscribers: number;
  /** Receipts of the phase's sends, all subscribers together. */
  deliveries: number;
  sends: FanoutSend[];
  /** Receipt − send instant of every delivery, ms (when asked for). */
  samples?: Float64Array;
  byShard: FanoutShardCounts[];
  /** Monotonic ms: first BAD_EVENT_QUEUE_ID seen, last queue registered again. */
  firstBadQueueAt: number | null;
  lastReRegisteredAt: number | null;
  pollsSoFar: number;
  failedPolls: number;
  firstFailure?: string;
}

export interface FanoutRegisteredReport {
  queues: number;
  failed: number;
  firstFailure?: string;
  /** Queues by the shard their id names (`s<k>-…`). */
  byQueueShard: Record<string, number>;
}
