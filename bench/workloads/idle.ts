// Workload 4: many parked long-polls on one deployment, held through heartbeats.
// Client sockets are spread over several agent processes, each under its open-file limit.

import type { IdleResult, ParkedReport, RegisteredReport } from '../lib/agent-protocol.js';
import { Agent } from '../lib/agents.js';
import type { BenchOptions } from '../lib/options.js';
import { CpuMeter, cpuMicrosPerOp, openFileLimit } from '../lib/procs.js';
import { progress } from '../lib/progress.js';
import { basicAuth } from '../lib/request-spec.js';
import type { SeededRealm } from '../lib/seed.js';
import { targetEndpoints, targetRssBytes, type Target } from '../lib/server.js';

export interface IdleWorkloadResult {
  requested: number;
  /** Polls tried: `requested`, or fewer when clamped. */
  attempted: number;
  /** Set when the open-file limit of the server forced fewer polls than requested. */
  clampedBy?: string;
  queues: number;
  parked: number;
  onTime: number;
  heartbeatSeconds: number;
  /** Allowed on top of the interval besides the 2 s (the server's jitter, when asked for). */
  jitterSeconds: number;
  /** Round 0 is the parking round: reported, not judged. */
  rounds: { responses: number; heartbeats: number; onTime: number; p50WaitMs: number; p99WaitMs: number; maxWaitMs: number }[];
  registerSeconds: number;
  /** From the park command until every poll's request was written. */
  parkSeconds: number;
  failed: number;
  firstFailure?: string;
  rssBeforeBytes: number | null;
  rssRegisteredBytes: number | null;
  rssParkedBytes: number | null;
  agents: number;
  /**
   * Server CPU from when every poll was parked until the last round ended, per poll answer
   * (a heartbeat event delivered, with the client's next poll), µs.
   */
  cpuMicrosPerAnswer: number | null;
}

const FD_RESERVE = 512;
const MAX_POLLS_PER_AGENT = 9000;

/** How many polls the target can hold given its open-file limit (null: no limit known). */
export function idleCapacity(target: Target): { limit: number; reason: string } | null {
  if (target.pid === undefined) return null;
  const fds = openFileLimit(target.pid);
  if (fds === null || !Number.isFinite(fds)) return null;
  // Each front of a cluster holds its own share of the sockets.
  const fronts = target.frontUrls.length;
  return { limit: fronts * Math.max(0, fds - FD_RESERVE), reason: `server open-file limit ${fds} (ulimit -n)${fronts > 1 ? ` per front × ${fronts}` : ''}` };
}

/** The polls to park: as asked, or as many as the target's open-file limit holds. */
export function pollsThatFit(target: Target, asked: number): { polls: number; clampedBy?: string } {
  const capacity = idleCapacity(target);
  if (!capacity || capacity.limit >= asked) return { polls: asked };
  return { polls: capacity.limit, clampedBy: capacity.reason };
}

export function idleUsersNeeded(polls: number, queuesPerUser: number): number {
  return Math.max(1, Math.ceil(polls / queuesPerUser));
}

export async function runIdle(
  target: Target,
  realm: SeededRealm,
  polls: number,
  requested: number,
  clampedBy: string | undefined,
  opts: BenchOptions,
  jitterSeconds = 0,
): Promise<IdleWorkloadResult> {
  const heartbeatSeconds = target.heartbeatSeconds ?? opts.heartbeatSeconds;
  const users = realm.users.filter((u) => u.apiKey);
  const owners: string[] = [];
  for (let i = 0; i < polls; i++) owners.push(basicAuth(users[i % users.length]));
  const perAgentCap = Math.max(1, Math.min(MAX_POLLS_PER_AGENT, (openFileLimit() ?? MAX_POLLS_PER_AGENT + FD_RESERVE) - FD_RESERVE));
  const agentCount = Math.max(1, Math.ceil(polls / perAgentCap));
  const per = Math.ceil(polls / agentCount);
  const endpoints = targetEndpoints(target);

  const rssBeforeBytes = await targetRssBytes(target);
  const registerStart = performance.now();
  const agents = Array.from({ length: agentCount }, (_, i) =>
    new Agent({
      kind: 'idle-polls',
      endpoints,
      host: realm.host,
      authorizations: owners.slice(i * per, (i + 1) * per),
      heartbeatSeconds,
      jitterSeconds,
      rounds: opts.heartbeatRounds,
      unjudgedRounds: 1,
      registerConcurrency: 16,
      connectBatch: 100,
    }),
  );
  try {
    const registered = await Promise.all(agents.map((a) => a.waitFor<RegisteredReport>('registered')));
    const queues = registered.reduce((n, r) => n + r.queues, 0);
    const registerFailure = registered.find((r) => r.firstFailure)?.firstFailure;
    if (queues === 0) throw new Error(`no event queue could be registered: ${registerFailure ?? 'unknown'}`);
    const registerSeconds = (performance.now() - registerStart) / 1000;
    const rssRegisteredBytes = await targetRssBytes(target);
    const parkStart = performance.now();
    progress(`  ${queues} queues registered; parking one long-poll each`);
    for (const a of agents) a.command({ cmd: 'park' });
    const parkedReports = await Promise.all(agents.map((a) => a.waitFor<ParkedReport>('parked')));
    const parked = parkedReports.reduce((n, r) => n + r.parked, 0);
    const parkSeconds = (performance.now() - parkStart) / 1000;
    await new Promise((r) => setTimeout(r, 1000));
    const rssParkedBytes = await targetRssBytes(target);
    const meter = new CpuMeter(target.pid);
    meter.start();
    progress(`  ${parked} long-polls parked in ${parkSeconds.toFixed(1)}s; holding them for ${opts.heartbeatRounds} heartbeat rounds of ${heartbeatSeconds}s`);
    const results = await Promise.all(agents.map((a) => a.result<IdleResult>()));
    const heldCpu = meter.read();

    const rounds = results[0].rounds.map((_, r) => {
      const per = results.map((res) => res.rounds[r]);
      return {
        responses: per.reduce((n, x) => n + x.responses, 0),
        heartbeats: per.reduce((n, x) => n + x.heartbeats, 0),
        onTime: per.reduce((n, x) => n + x.onTime, 0),
        // Medians do not merge exactly; the largest agent median is a fair upper bound.
        p50WaitMs: Math.max(...per.map((x) => x.wait.p50).filter(Number.isFinite)),
        p99WaitMs: Math.max(...per.map((x) => x.wait.p99).filter(Number.isFinite)),
        maxWaitMs: Math.max(...per.map((x) => x.wait.max).filter(Number.isFinite)),
      };
    });
    return {
      requested,
      attempted: polls,
      clampedBy,
      queues,
      parked,
      onTime: results.reduce((n, r) => n + r.onTimeJudgedRounds, 0),
      heartbeatSeconds,
      jitterSeconds,
      rounds,
      failed: results.reduce((n, r) => n + r.failed, 0) + (polls - queues),
      firstFailure: registerFailure ?? results.find((r) => r.firstFailure)?.firstFailure,
      registerSeconds,
      parkSeconds,
      rssBeforeBytes,
      rssRegisteredBytes,
      rssParkedBytes,
      agents: agentCount,
      cpuMicrosPerAnswer: cpuMicrosPerOp(heldCpu, rounds.reduce((n, r) => n + r.responses, 0)),
    };
  } finally {
    for (const a of agents) a.close();
  }
}
