// Steps 3 and 4 of phase "shards" (see shards.ts): a channel whose subscribers all
// long-poll, fed by an open loop, timed until every subscriber had each send; then kill -9 of
// the worker holding the shard that is not with the realm's actor, under the same load.

import type { FanoutCollectReport, FanoutRegisteredReport, FanoutSend, OpenLoopResult } from '../lib/agent-protocol.js';
import { Agent } from '../lib/agents.js';
import { ApiClient } from '../lib/api.js';
import { realmShards, workerHealth, type ClusterWorker } from '../lib/clusterWorkers.js';
import type { BenchOptions } from '../lib/options.js';
import { CpuMeter, cpuMicrosPerOp } from '../lib/procs.js';
import { fmt, ms, progress, step } from '../lib/progress.js';
import { basicAuth, FANOUT_MARKER, fanoutMarkerContent, formEncode, formEncodeWithPlaceholders } from '../lib/request-spec.js';
import { attempt, failed, type Outcome } from '../lib/results.js';
import type { SeededRealm } from '../lib/seed.js';
import { targetEndpoints, type Target } from '../lib/server.js';
import { monotonicMs, summarize, type LatencySummary } from '../lib/stats.js';
import { shardOfUser } from '../../cluster/queueShards.js';

export const SHARDS = 2;
export const CHANNEL = 'fanout';
const SUBSCRIBERS_PER_AGENT = 5000;
/** The kill step: sends before the kill, and the whole open loop (recovery included). */
const KILL_AFTER_SECONDS = 5;
const KILL_LOOP_SECONDS = 30;

export interface ShardPlacement {
  shard: string;
  worker: string;
  queues: number;
  parked: number;
  /** The worker also holds the realm's actor. */
  withActor: boolean;
}
export interface FanoutResult {
  subdomain: string;
  realmUsers: number;
  subscribers: number;
  rate: number;
  windowSeconds: number;
  split: ShardPlacement[];
  registerSeconds: number;
  /** Fronts the subscribers and the sender connected to. */
  fronts: number;
  sends: { scheduled: number; acked: number; failed: number; firstFailure?: string; latency: LatencySummary };
  /**
   * Per acknowledged send: the last subscriber's receipt − the send's scheduled start, ms; a
   * send some subscriber never received counts as infinitely late.
   */
  allReceived: LatencySummary;
  /** Acknowledged sends some subscriber never received within the wait. */
  incomplete: number;
  /** Subscribers told their queue was gone (BAD_EVENT_QUEUE_ID) meanwhile, who registered again. */
  badQueue: number;
  /** Per delivery: receipt − send instant, ms. */
  sendToReceive: LatencySummary;
  deliveries: number;
  expected: number;
  waitedMs: number;
  pollAnswers: number;
  failedPolls: number;
  firstFailure?: string;
  /** Cluster CPU from the first send until every receipt was in. */
  cpu: { cpuMs: number; microsPerDelivery: number | null; microsPerSend: number | null } | null;
}
export interface KillResult {
  victim: string;
  shard: string;
  actorWorker: string;
  loopSeconds: number;
  killAfterSeconds: number;
  sends: { acked: number; failed: number; firstFailure?: string };
  /** Subscribers whose queues were on the killed worker's shard. */
  affected: number;
  badQueue: number;
  reRegistered: number;
  /** Kill → the last affected client registered again, s. */
  recoverySeconds: number | null;
  /** Kill → the first BAD_EVENT_QUEUE_ID, s. */
  firstBadQueueSeconds: number | null;
  missedAfterReRegister: number;
  others: number;
  othersBadQueue: number;
  othersWithGaps: number;
  /** Acknowledged sends (of the fanout and kill loops) looked up in the channel's history; the first missing ones as phase#seq. */
  history: { checked: number; missing: number; firstMissing: string[] };
  complete: boolean;
  ok: boolean;
}
const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait));

/** The channel's subscribers with a queue each: members after the owner (who sends). */
export function subscribersOf(realm: SeededRealm, opts: BenchOptions) {
  return realm.users.slice(1, 1 + opts.shardSubscribers);
}
function sendSpec(realm: SeededRealm, phase: string) {
  return {
    method: 'POST',
    path: '/api/v1/messages',
    host: realm.host,
    authorization: basicAuth(realm.owner),
    body: formEncodeWithPlaceholders({ type: 'channel', to: CHANNEL, topic: 'bench', content: fanoutMarkerContent(phase) }),
  };
}

function openLoop(target: Target, realm: SeededRealm, phase: string, rate: number, seconds: number): Promise<OpenLoopResult> {
  return Agent.run<OpenLoopResult>({
    kind: 'open-loop',
    endpoints: targetEndpoints(target),
    specs: [sendSpec(realm, phase)],
    rate,
    durationMs: seconds * 1000,
    maxConnections: 256,
    timeoutMs: 60_000,
  });
}

async function collect(agents: Agent[], phase: string, acked: number[], timeoutMs: number, samples: boolean): Promise<FanoutCollectReport[]> {
  for (const a of agents) a.command({ cmd: 'collect', phase, acked, timeoutMs, samples });
  return Promise.all(agents.map((a) => a.waitFor<FanoutCollectReport>('collected', timeoutMs + 60_000)));
}

/** Per send over every agent: receipts summed, the last receipt. */
function mergeSends(reports: FanoutCollectReport[]): Map<number, FanoutSend> {
  const merged = new Map<number, FanoutSend>();
  for (const r of reports) {
    for (const s of r.sends) {
      const m = merged.get(s.seq);
      if (!m) merged.set(s.seq, { ...s });
      else {
        m.receipts += s.receipts;
        m.lastReceiptAt = Math.max(m.lastReceiptAt, s.lastReceiptAt);
      }
    }
  }
  return merged;
}

/**
 * `fronts`: how many of the cluster's fronts the subscribers connect to, as many as their
 * sockets need (the cluster may have more, for the parked-poll step's sockets): on a small
 * machine each front more costs CPU that the fan-out needs.
 */
export async function fanoutAndKill(target: Target, realm: SeededRealm, workers: ClusterWorker[], opts: BenchOptions, fronts: number): Promise<{ fanout: Outcome<FanoutResult>; kill: Outcome<KillResult> }> {
  const subscribers = subscribersOf(realm, opts);
  const endpoints = targetEndpoints(target).slice(0, Math.max(1, fronts));
  const registerBody = formEncode({ event_types: ['message'], fetch_event_types: [] });
  const agentCount = Math.max(1, Math.ceil(subscribers.length / SUBSCRIBERS_PER_AGENT));
  const per = Math.ceil(subscribers.length / agentCount);
  const registerStart = performance.now();
  const agents = Array.from({ length: agentCount }, (_, i) =>
    new Agent({
      kind: 'fanout-subscribers',
      endpoints,
      host: realm.host,
      subscribers: subscribers.slice(i * per, (i + 1) * per).map((u) => ({ authorization: basicAuth(u), shard: shardOfUser(u.userId, SHARDS) })),
      registerBody,
      registerConcurrency: 16,
      pollTimeoutMs: 120_000,
    }),
  );
  const acked: number[][] = [];
  try {
    const fanout = await attempt(() =>
      step(`shards: ${fmt(subscribers.length)} subscribers, ${opts.shardRate} sends/s`, async () => {
        const registered = await Promise.all(agents.map((a) => a.waitFor<FanoutRegisteredReport>('registered')));
        const queues = registered.reduce((n, r) => n + r.queues, 0);
        const registerFailure = registered.find((r) => r.firstFailure)?.firstFailure;
        if (queues < subscribers.length) throw new Error(`${subscribers.length - queues} of ${subscribers.length} queues could not be registered: ${registerFailure}`);
        const registerSeconds = (performance.now() - registerStart) / 1000;
        await sleep(2000); // every poll parked
        const split = (await realmShards(workers, realm.subdomain)).map((s) => ({ shard: s.shard, worker: s.worker, queues: s.queues, parked: s.parked, withActor: s.holdsRealm }));
        progress(`  ${fmt(queues)} queues in ${registerSeconds.toFixed(1)}s; ${split.map((s) => `${s.shard} on ${s.worker}: ${fmt(s.queues)} queues, ${fmt(s.parked)} parked`).join('; ')}`);
        const result = await measureFanout(target, realm, agents, subscribers.length, opts);
        acked.push(result.acked);
        return { ...result.figures, split, registerSeconds, fronts: endpoints.length };
      }, (r) => `all received p99 ${ms(r.allReceived.p99)}, per delivery p99 ${ms(r.sendToReceive.p99)}`),
    );
    const kill = fanout.ok
      ? await attempt(() =>
          step('shards: kill -9 of a shard worker under load', () => killShardWorker(target, realm, agents, workers, subscribers, acked, opts), (r) =>
            `${r.reRegistered} of ${r.affected} re-registered in ${r.recoverySeconds?.toFixed(1) ?? '–'}s; ${r.othersWithGaps} others with gaps; ${r.history.missing} missing from history`,
          ),
        )
      : failed<KillResult>(`the fanout step failed: ${fanout.reason}`);
    return { fanout, kill };
  } finally {
    for (const a of agents) {
      a.command({ cmd: 'stop' });
      a.close();
    }
  }
}

async function measureFanout(
  target: Target,
  realm: SeededRealm,
  agents: Agent[],
  subscribers: number,
  opts: BenchOptions,
): Promise<{ figures: Omit<FanoutResult, 'split' | 'registerSeconds' | 'fronts'>; acked: number[] }> {
  const windowSeconds = Math.max(10, opts.seconds);
  const meter = new CpuMeter(target.pid);
  meter.start();
  const loop = await openLoop(target, realm, 'f1', opts.shardRate, windowSeconds);
  if (loop.ok === 0) throw new Error(`POST /messages never succeeded: ${loop.firstFailure ?? 'no response'}`);
  const reports = await collect(agents, 'f1', loop.okSeqs, 60_000, true);
  const cpu = meter.read();
  const sends = mergeSends(reports);
  const allReceived: number[] = [];
  let incomplete = 0;
  for (const seq of loop.okSeqs) {
    const s = sends.get(seq);
    if (!s || s.receipts < subscribers) {
      incomplete++;
      allReceived.push(Number.POSITIVE_INFINITY);
    } else {
      allReceived.push((s.lastReceiptAt - s.scheduledAt) / 1000);
    }
  }
  const samples: number[] = [];
  for (const r of reports) if (r.samples) for (const v of r.samples) samples.push(v);
  const deliveries = reports.reduce((n, r) => n + r.deliveries, 0);
  const pollAnswers = reports.reduce((n, r) => n + r.pollsSoFar, 0);
  return {
    acked: loop.okSeqs,
    figures: {
      subdomain: realm.subdomain,
      realmUsers: realm.users.length,
      subscribers,
      rate: opts.shardRate,
      windowSeconds,
      sends: { scheduled: loop.scheduled, acked: loop.ok, failed: loop.failed, firstFailure: loop.firstFailure, latency: loop.latency },
      allReceived: summarize(allReceived),
      incomplete,
      badQueue: reports.reduce((n, r) => n + r.byShard.reduce((m, c) => m + c.badQueue, 0), 0),
      sendToReceive: summarize(samples),
      deliveries,
      expected: loop.okSeqs.length * subscribers,
      waitedMs: Math.max(...reports.map((r) => r.waitedMs)),
      pollAnswers,
      failedPolls: reports.reduce((n, r) => n + r.failedPolls, 0),
      firstFailure: reports.find((r) => r.firstFailure)?.firstFailure,
      cpu: cpu ? { cpuMs: cpu.cpuMs, microsPerDelivery: cpuMicrosPerOp(cpu, deliveries), microsPerSend: cpuMicrosPerOp(cpu, loop.ok) } : null,
    },
  };
}

async function killShardWorker(
  target: Target,
  realm: SeededRealm,
  agents: Agent[],
  workers: ClusterWorker[],
  subscribers: SeededRealm['users'],
  earlier: number[][],
  opts: BenchOptions,
): Promise<KillResult> {
  const shards = await realmShards(workers, realm.subdomain);
  const actorWorker = (await Promise.all(workers.map(workerHealth))).find((h) => h.realms.includes(realm.subdomain))?.id;
  if (!actorWorker) throw new Error(`no worker reports holding realm ${realm.subdomain}`);
  const victimShard = shards.find((s) => s.worker !== actorWorker);
  const victim = workers.find((w) => w.id === victimShard?.worker);
  if (!victimShard || !victim) throw new Error(`both shards of ${realm.subdomain} are with its actor on ${actorWorker}`);
  const k = Number(victimShard.shard.split('~')[1]);
  const affected = subscribers.filter((u) => shardOfUser(u.userId, SHARDS) === k).length;

  const loop = openLoop(target, realm, 'k1', opts.shardRate, KILL_LOOP_SECONDS);
  await sleep(KILL_AFTER_SECONDS * 1000);
  const killedAt = monotonicMs();
  process.kill(victim.pid, 'SIGKILL');
  progress(`  killed ${victim.id} (pid ${victim.pid}) holding ${victimShard.shard} (${fmt(victimShard.queues)} queues); the actor is on ${actorWorker}`);
  const sent = await loop;
  const reports = await collect(agents, 'k1', sent.okSeqs, 60_000, false);
  const byShard = reports.flatMap((r) => r.byShard);
  const ofShard = (mine: boolean) => byShard.filter((c) => (c.shard === k) === mine);
  const sum = (list: typeof byShard, key: keyof (typeof byShard)[number]) => list.reduce((n, c) => n + c[key], 0);
  const lastAgain = Math.max(...reports.map((r) => r.lastReRegisteredAt ?? -Infinity));
  const firstBad = Math.min(...reports.map((r) => r.firstBadQueueAt ?? Infinity));
  const history = await checkHistory(target, realm, [['f1', earlier.flat()], ['k1', sent.okSeqs]]);
  const result: KillResult = {
    victim: victim.id,
    shard: victimShard.shard,
    actorWorker,
    loopSeconds: KILL_LOOP_SECONDS,
    killAfterSeconds: KILL_AFTER_SECONDS,
    sends: { acked: sent.ok, failed: sent.failed, firstFailure: sent.firstFailure },
    affected,
    badQueue: sum(ofShard(true), 'badQueue'),
    reRegistered: sum(ofShard(true), 'reRegistered'),
    recoverySeconds: Number.isFinite(lastAgain) ? (lastAgain - killedAt) / 1000 : null,
    firstBadQueueSeconds: Number.isFinite(firstBad) ? (firstBad - killedAt) / 1000 : null,
    missedAfterReRegister: sum(ofShard(true), 'missedAfterReRegister'),
    others: sum(ofShard(false), 'subscribers'),
    othersBadQueue: sum(ofShard(false), 'badQueue'),
    othersWithGaps: sum(ofShard(false), 'withGaps') + sum(ofShard(false), 'missedAfterReRegister'),
    history,
    complete: reports.every((r) => r.complete),
    ok: false,
  };
  result.ok =
    result.reRegistered === affected && affected > 0 && result.missedAfterReRegister === 0 &&
    result.othersBadQueue === 0 && result.othersWithGaps === 0 && history.missing === 0 && result.complete;
  return result;
}

/** Looks every acknowledged send up in the channel's history (GET /messages, newest first). */
async function checkHistory(target: Target, realm: SeededRealm, phases: [string, number[]][]): Promise<KillResult['history']> {
  const client = new ApiClient(target.baseUrl, realm.host, realm.owner);
  const found = new Map<string, Set<number>>();
  try {
    let anchor: number | 'newest' = 'newest';
    for (;;) {
      const page: { messages: { id: number; content: string }[]; found_oldest?: boolean } = await client.get('/messages', {
        anchor,
        num_before: 1000,
        num_after: 0,
        include_anchor: anchor === 'newest',
        narrow: [{ operator: 'channel', operand: CHANNEL }],
      });
      for (const m of page.messages) {
        const match = FANOUT_MARKER.exec(m.content);
        if (!match) continue;
        let seqs = found.get(match[1]!);
        if (!seqs) found.set(match[1]!, (seqs = new Set()));
        seqs.add(Number(match[4]));
      }
      if (page.found_oldest || page.messages.length === 0) break;
      anchor = Math.min(...page.messages.map((m) => m.id));
    }
  } finally {
    client.close();
  }
  let checked = 0;
  const missing: string[] = [];
  for (const [phase, seqs] of phases) {
    for (const seq of seqs) {
      checked++;
      if (!found.get(phase)?.has(seq)) missing.push(`${phase}#${seq}`);
    }
  }
  return { checked, missing: missing.length, firstMissing: missing.slice(0, 10) };
}
