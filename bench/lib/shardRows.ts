// Rows of phase "shards" (bench/workloads/shards.ts): one realm's event queues over two
// queue-shard processes.

import type { ShardPlacement, ShardsResult } from '../workloads/shards.js';
import { fmt, micros, ms } from './progress.js';
import type { Outcome, Row, RowResult } from './results.js';
import { barRow, compareRow, info, naRow } from './rows.js';

/** The parked-polls bar of the phase, and the all-received bar per send (ms). */
export const SHARD_IDLE_BAR = 40_000;
export const SHARD_ALL_RECEIVED_BAR_MS = 1000;

const joinNotes = (...parts: string[]) => parts.filter(Boolean).join('; ');

function placementText(list: ShardPlacement[], what: 'queues' | 'parked'): string {
  return list.map((s) => `${s.shard} on ${s.worker}${s.withActor ? ' (with the actor)' : ''}: ${fmt(s[what])} ${what === 'queues' ? 'queues' : 'parked'}`).join(', ');
}

/** `uwsMicros`: the uWS baseline's CPU per answer, for the CPU row. */
export function shardRows(o: Outcome<ShardsResult> | undefined, uwsMicros: number | undefined): Row[] {
  if (!o) return [];
  if (!o.ok) return [naRow('Shards: one realm over 2 queue shards', '', o.reason)];
  const r = o.value;
  const rows: Row[] = [];
  const cluster = `cluster ${r.fronts}f/${r.workers}w`;

  if (r.fanout.ok) {
    const f = r.fanout.value;
    rows.push(
      barRow(
        `Shards: all ${fmt(f.subscribers)} received, p99 per send (${fmt(f.rate)}/s, ${fmt(f.realmUsers)} users)`,
        ms(f.allReceived.p99),
        f.allReceived.p99,
        `${ms(SHARD_ALL_RECEIVED_BAR_MS)} (bar)`,
        SHARD_ALL_RECEIVED_BAR_MS,
        1,
        false,
        joinNotes(
          `p50 ${ms(f.allReceived.p50)}, max ${ms(f.allReceived.max)}: last receipt − scheduled start, over ${fmt(f.allReceived.count)} sends`,
          f.incomplete ? `${fmt(f.incomplete)} acknowledged sends not received by every subscriber (counted as never: – ; waited ${fmt(f.waitedMs / 1000, 1)} s)` : '',
          f.badQueue ? `${fmt(f.badQueue)} subscribers were told their queue was gone (BAD_EVENT_QUEUE_ID) and registered again meanwhile` : '',
          `${fmt(f.sends.acked)} of ${fmt(f.sends.scheduled)} sends acknowledged in ${f.windowSeconds} s (ack p99 ${ms(f.sends.latency.p99)})`,
          f.sends.failed ? `${f.sends.failed} failed: ${f.sends.firstFailure}` : '',
          `queues: ${placementText(f.split, 'queues')}`,
          `${fmt(f.subscribers)} registered in ${fmt(f.registerSeconds, 1)} s; ${cluster}, subscribers on ${f.fronts} of its ${r.fronts} fronts`,
        ),
      ),
      info(
        'Shards: send→receive p99, per delivery',
        ms(f.sendToReceive.p99),
        joinNotes(
          `p50 ${ms(f.sendToReceive.p50)}, max ${ms(f.sendToReceive.max)}`,
          `${fmt(f.deliveries)} of ${fmt(f.expected)} deliveries in ${fmt(f.pollAnswers)} poll answers (${fmt(f.deliveries / Math.max(1, f.pollAnswers), 1)} events each)`,
          f.failedPolls ? `${fmt(f.failedPolls)} polls failed: ${f.firstFailure}` : '',
        ),
        f.sendToReceive.p99,
      ),
    );
    if (f.cpu?.microsPerDelivery) {
      rows.push(
        compareRow(
          'Shards: CPU per delivered message event',
          micros(f.cpu.microsPerDelivery),
          f.cpu.microsPerDelivery,
          uwsMicros ? `${micros(uwsMicros)} (uWS hello)` : 'n/a',
          uwsMicros ?? Number.NaN,
          `whole cluster from the first send until every receipt was in: ${fmt(f.cpu.cpuMs)} ms CPU, ${micros(f.cpu.microsPerSend)} per send with its ${fmt(f.subscribers)} deliveries`,
        ),
      );
    }
  } else {
    rows.push(naRow('Shards: all received, p99 per send', `≤ ${ms(SHARD_ALL_RECEIVED_BAR_MS)}`, r.fanout.reason));
  }

  if (r.register.ok) {
    const g = r.register.value;
    rows.push(
      barRow(
        `Shards: POST /register p95 (${fmt(g.realmUsers)} users)`,
        ms(g.serial.latency.p95),
        g.serial.latency.p95,
        `${ms(g.stringify.ms)} (stringify ${fmt(g.bodyBytes / 1024)} KB)`,
        g.stringify.ms,
        3,
        false,
        joinNotes(`p50 ${ms(g.serial.latency.p50)}; ${g.serial.requests} serial requests`, g.serial.cpuMicrosPerRequest ? `CPU ${micros(g.serial.cpuMicrosPerRequest)} per register` : ''),
      ),
    );
  } else {
    rows.push(naRow('Shards: POST /register p95', '≤ 3×', r.register.reason));
  }

  if (r.idle.ok) {
    const idle = r.idle.value;
    const allOnTime = idle.attempted > 0 && idle.onTime === idle.attempted;
    const result: RowResult = allOnTime ? (idle.attempted >= SHARD_IDLE_BAR ? 'PASS' : 'PASS*') : 'MISS';
    const judged = idle.rounds.slice(1);
    rows.push({
      measure: `Shards: parked long-polls over 2 shard processes`,
      value: `${fmt(idle.onTime)} / ${fmt(idle.attempted)}`,
      baseline: '',
      ratio: `${fmt((100 * idle.onTime) / Math.max(1, idle.attempted), 1)}%`,
      bar: `${fmt(SHARD_IDLE_BAR)}, all`,
      result,
      note: joinNotes(
        `held: ${placementText(idle.perShard, 'parked')}`,
        `${judged.length} held rounds of ${idle.heartbeatSeconds}s heartbeats judged (limit + the server's jitter of up to ${fmt(idle.jitterSeconds, 1)} s + 2 s): max wait ${ms(Math.max(...judged.map((x) => x.maxWaitMs)))}`,
        `parking round (not judged): ${fmt(idle.rounds[0]?.onTime)} on time, p99 ${ms(idle.rounds[0]?.p99WaitMs)}`,
        `registered in ${fmt(idle.registerSeconds, 1)} s, parked in ${fmt(idle.parkSeconds, 1)} s over ${idle.agents} agents`,
        idle.cpuMicrosPerAnswer ? `CPU ${micros(idle.cpuMicrosPerAnswer)} per heartbeat answered` : '',
        idle.clampedBy ? `asked ${fmt(idle.requested)}, clamped by ${idle.clampedBy}` : '',
        result === 'PASS*' ? `bar needs ${fmt(SHARD_IDLE_BAR)}` : '',
        idle.failed ? `${idle.failed} failed: ${idle.firstFailure}` : '',
      ),
      figure: idle.onTime,
    });
  } else {
    rows.push(naRow('Shards: parked long-polls over 2 shard processes', `${fmt(SHARD_IDLE_BAR)}, all`, r.idle.reason));
  }

  const bar = 'recover, no gap, none lost';
  if (r.kill.ok) {
    const k = r.kill.value;
    rows.push({
      measure: `Shards: kill -9 of a shard's worker (${r.fanout.ok ? fmt(r.fanout.value.rate) : '?'} sends/s)`,
      value: k.recoverySeconds === null ? 'no recovery' : `${fmt(k.recoverySeconds, 1)} s`,
      baseline: '',
      ratio: '',
      bar,
      result: k.ok ? 'PASS' : 'MISS',
      note: joinNotes(
        `killed ${k.victim} holding ${k.shard} ${k.killAfterSeconds} s into a ${k.loopSeconds} s open loop (actor on ${k.actorWorker})`,
        `${fmt(k.reRegistered)} of ${fmt(k.affected)} of its clients registered again (first BAD_EVENT_QUEUE_ID ${k.firstBadQueueSeconds === null ? '–' : `${fmt(k.firstBadQueueSeconds, 1)} s`} after the kill); value: kill → last one registered again`,
        k.missedAfterReRegister ? `${fmt(k.missedAfterReRegister)} missed sends made after registering again` : '',
        `other shard: ${fmt(k.others)} clients, ${fmt(k.othersWithGaps)} with a gap, ${fmt(k.othersBadQueue)} told their queue was gone`,
        `${fmt(k.history.checked)} acknowledged sends looked up in GET /messages: ${fmt(k.history.missing)} missing${k.history.missing ? ` (${k.history.firstMissing.join(', ')})` : ''}`,
        `${fmt(k.sends.acked)} sends acknowledged${k.sends.failed ? `, ${k.sends.failed} failed: ${k.sends.firstFailure}` : ''}`,
        k.complete ? '' : 'collection timed out',
      ),
      figure: k.recoverySeconds ?? undefined,
    });
  } else {
    rows.push(naRow("Shards: kill -9 of a shard's worker", bar, r.kill.reason));
  }

  for (const s of r.seeding) {
    rows.push(info(`Seeding "${s.realm}" (shards, ${s.via})`, `${fmt(s.usersPerSecond, 1)} users/s`, `${fmt(s.users)} users, ${fmt(s.channels)} channels in ${fmt(s.seconds, 1)} s`));
  }
  return rows;
}
