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
  rounds: number;
  /** Leading rounds reported but not judged (the parking round). */
  unjudgedRounds: number;
  registerConcurrency: number;
  connectBatch: number;
}

export type Job = ClosedLoopJob | OpenLoopJob | SubscribersJob | IdlePollsJob;

export type Command =
  | { cmd: 'drain'; phase: string; expected: number; timeoutMs: number }
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
