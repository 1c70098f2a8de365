// Row builders shared by the table of every phase, the CPU per operation rows, and the rows
// of the two phases that compare the server with itself: render (in-thread vs pool) and
// cluster overhead.

import type { ClusterOverheadResult } from '../workloads/clusterOverhead.js';
import type { RenderWorkloadResult } from '../workloads/render.js';
import { fmt, micros, ms } from './progress.js';
import type { Outcome, Row, RunResults } from './results.js';

export function ratioText(r: number): string {
  return Number.isFinite(r) ? `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}×` : '–';
}

/** A row compared with a bar: `higherIsBetter` ratio ≥ limit, else ratio ≤ limit. */
export function barRow(measure: string, shown: string, figure: number, baseShown: string, base: number | undefined, limit: number, higherIsBetter: boolean, note?: string): Row {
  const bar = `${higherIsBetter ? '≥' : '≤'} ${limit}×`;
  if (base === undefined || !Number.isFinite(base) || base <= 0) {
    return { measure, value: shown, baseline: 'n/a', ratio: '', bar, result: 'n/a', note: note ?? 'baseline missing', figure };
  }
  const r = figure / base;
  const pass = higherIsBetter ? r >= limit : r <= limit;
  return { measure, value: shown, baseline: baseShown, ratio: ratioText(r), bar, result: pass ? 'PASS' : 'MISS', note, figure, ratioValue: r };
}

export function naRow(measure: string, bar: string, why: string): Row {
  return { measure, value: 'n/a', baseline: '', ratio: '', bar, result: 'n/a', note: why };
}

export function info(measure: string, shown: string, note?: string, figure?: number): Row {
  return { measure, value: shown, baseline: '', ratio: '', bar: '', result: '', note, figure };
}

/** A figure next to the one it is compared with, without a bar to meet. */
export function compareRow(measure: string, shown: string, figure: number, baseShown: string, base: number, note?: string): Row {
  const r = base > 0 ? figure / base : Number.NaN;
  return { measure, value: shown, baseline: baseShown, ratio: ratioText(r), bar: '', result: '', note, figure, ratioValue: Number.isFinite(r) ? r : undefined };
}

function valueOf<T>(o: Outcome<T> | undefined): T | undefined {
  return o && o.ok ? o.value : undefined;
}

/**
 * Server CPU time (user + system, summed over the server's process tree from /proc) per
 * operation, next to the same-run baseline that costs the least for the same request: a
 * uWS hello world answer, or JSON.stringify of the register body. CPU time moves less with
 * the machine's load than rates do.
 */
export function cpuPerOperationRows(r: RunResults): Row[] {
  const rows: Row[] = [];
  const uws = valueOf(r.baselines.uws);
  const uwsMicros = uws?.cpuMicrosPerRequest ?? Number.NaN;
  const uwsShown = uws?.cpuMicrosPerRequest ? `${micros(uws.cpuMicrosPerRequest)} (uWS hello)` : 'n/a';
  const me = valueOf(r.workloads.usersMe);
  if (me?.cpuMicrosPerRequest) {
    rows.push(compareRow('CPU per GET /users/me', micros(me.cpuMicrosPerRequest), me.cpuMicrosPerRequest, uwsShown, uwsMicros, `${fmt(me.requests)} requests measured`));
  }
  const cost = valueOf(r.workloads.sends)?.halfRate.cost;
  if (cost) {
    const perSend = cost.deliveries / Math.max(1, cost.sends);
    rows.push(
      compareRow(
        `CPU per channel send, with its ${fmt(perSend, 1)} deliveries`,
        micros(cost.cpuMicrosPerSend),
        cost.cpuMicrosPerSend,
        uwsShown,
        uwsMicros,
        `half-rate open loop until every receipt was in: ${fmt(cost.cpuMs)} ms CPU for ${fmt(cost.sends)} sends, ${fmt(cost.deliveries)} deliveries in ${fmt(cost.pollAnswers)} poll answers`,
      ),
    );
    if (cost.cpuMicrosPerDelivery !== null) {
      rows.push(
        compareRow(
          'CPU per delivered message event',
          micros(cost.cpuMicrosPerDelivery),
          cost.cpuMicrosPerDelivery,
          uwsShown,
          uwsMicros,
          `the same CPU over the deliveries, sends included (an upper bound); ${fmt(cost.deliveries / Math.max(1, cost.pollAnswers), 1)} events per poll answer`,
        ),
      );
    }
  }
  const idle = valueOf(r.workloads.idle);
  if (idle?.cpuMicrosPerAnswer) {
    rows.push(compareRow('CPU per heartbeat answered (parked polls)', micros(idle.cpuMicrosPerAnswer), idle.cpuMicrosPerAnswer, uwsShown, uwsMicros, 'from every poll parked to the last round: the heartbeat event, its answer and the next poll'));
  }
  const reg = valueOf(r.workloads.register);
  if (reg?.serial.cpuMicrosPerRequest) {
    rows.push(
      compareRow(
        'CPU per POST /register',
        micros(reg.serial.cpuMicrosPerRequest),
        reg.serial.cpuMicrosPerRequest,
        `${ms(reg.stringify.ms)} (stringify)`,
        reg.stringify.ms * 1000,
        reg.storm.cpuMicrosPerRequest ? `storm ×${reg.storm.concurrency}: ${micros(reg.storm.cpuMicrosPerRequest)} per register` : undefined,
      ),
    );
  }
  return rows;
}

export function renderRows(o: Outcome<RenderWorkloadResult> | undefined): Row[] {
  if (!o) return [];
  if (!o.ok) return [naRow('Render, in-thread vs pool', '', o.reason)];
  const { direct, pools, corpus } = o.value;
  const perS = (n: number) => `${fmt(n)} msg/s`;
  const failures = (t: { failed: number; firstFailure?: string }) => (t.failed ? `${fmt(t.failed)} failed: ${t.firstFailure}` : '');
  const rows = [
    info(
      `Render in-thread (renderDirect, ${fmt(corpus.messages)}-message corpus)`,
      perS(direct.messagesPerSecond),
      [`p50 ${ms(direct.latency.p50)}, p99 ${ms(direct.latency.p99)} per message`, `${fmt(corpus.fixtureInputs)} fixture inputs + ${fmt(corpus.generated)} chat messages, mean ${fmt(corpus.meanChars)} chars, ${fmt(corpus.users)} users`, failures(direct)].filter(Boolean).join('; '),
      direct.messagesPerSecond,
    ),
  ];
  const base = perS(direct.messagesPerSecond);
  for (const p of pools) {
    const perTask = p.render.tasks ? `${fmt(p.render.messages / p.render.tasks, 1)} msgs per worker task` : '';
    rows.push(
      compareRow(
        `Render pool ×${p.threads}, render() ×${p.render.inFlight} in flight`,
        perS(p.render.messagesPerSecond),
        p.render.messagesPerSecond,
        `${base} (in-thread)`,
        direct.messagesPerSecond,
        [`p50 ${ms(p.render.latency.p50)}, p99 ${ms(p.render.latency.p99)} per message`, perTask, failures(p.render)].filter(Boolean).join('; '),
      ),
      compareRow(
        `Render pool ×${p.threads}, renderMany(${p.renderMany.batch}) ×${p.renderMany.callers}`,
        perS(p.renderMany.messagesPerSecond),
        p.renderMany.messagesPerSecond,
        `${base} (in-thread)`,
        direct.messagesPerSecond,
        [`p50 ${ms(p.renderMany.latency.p50)}, p99 ${ms(p.renderMany.latency.p99)} per call`, failures(p.renderMany)].filter(Boolean).join('; '),
      ),
    );
  }
  return rows;
}

export function clusterOverheadRows(o: Outcome<ClusterOverheadResult> | undefined): Row[] {
  if (!o) return [];
  if (!o.ok) return [naRow('Cluster 1f/1w vs one process', '', o.reason)];
  const { cluster, oneProcess, settings } = o.value;
  const cpu = (t: number | null, label: string) => (t === null ? '' : `${label} CPU ${fmt(t)}%`);
  const notes = (...parts: string[]) => parts.filter(Boolean).join('; ');
  const c = cluster.usersMe;
  const one = oneProcess.usersMe;
  const cs = cluster.sends.saturated;
  const op = oneProcess.sends.saturated;
  return [
    compareRow(
      `Cluster 1f/1w GET /users/me (${settings.connections} conns)`,
      `${fmt(c.requestsPerSecond)} req/s`,
      c.requestsPerSecond,
      `${fmt(one.requestsPerSecond)} req/s (1 process)`,
      one.requestsPerSecond,
      notes(cpu(c.targetCpuPercent, 'cluster'), cpu(one.targetCpuPercent, 'one process'), `${settings.seconds} s each`),
    ),
    compareRow('Cluster 1f/1w GET /users/me p99', ms(c.latency.p99), c.latency.p99, `${ms(one.latency.p99)} (1 process)`, one.latency.p99, `p50 ${ms(c.latency.p50)} vs ${ms(one.latency.p50)}`),
    compareRow(
      `Cluster 1f/1w sends/s (${settings.senders} senders, ${settings.subscribers} polling subs)`,
      `${fmt(cs.sendsPerSecond)} /s`,
      cs.sendsPerSecond,
      `${fmt(op.sendsPerSecond)} /s (1 process)`,
      op.sendsPerSecond,
      notes(cpu(cs.serverCpuPercent, 'cluster'), cpu(op.serverCpuPercent, 'one process'), cs.failed ? `${cs.failed} failed: ${cs.firstFailure}` : ''),
    ),
    ...clusterCpuRows(o.value),
    compareRow('Cluster 1f/1w send p99 (saturated)', ms(cs.latency.p99), cs.latency.p99, `${ms(op.latency.p99)} (1 process)`, op.latency.p99, `send→receive p99 at half rate ${ms(cluster.sends.halfRate.sendToReceive.p99)} vs ${ms(oneProcess.sends.halfRate.sendToReceive.p99)}`),
  ];
}

/** The bar: a front and a worker together cost at most this much CPU per request of one process. */
export const CLUSTER_CPU_BAR = 1.3;

const sameRate = (cluster: number, one: number, unit: string) =>
  cluster === one ? `both at ${fmt(cluster)} ${unit}` : `cluster at ${fmt(cluster)}, 1 process at ${fmt(one)} ${unit}`;

function clusterCpuRows({ cluster, oneProcess }: ClusterOverheadResult): Row[] {
  const rows: Row[] = [];
  // At one rate for both sides (half the cluster's saturated rate): the same work.
  const c = cluster.usersMeAtRate.cpuMicrosPerRequest;
  const one = oneProcess.usersMeAtRate.cpuMicrosPerRequest;
  const cSaturated = cluster.usersMe.cpuMicrosPerRequest;
  const oneSaturated = oneProcess.usersMe.cpuMicrosPerRequest;
  if (c && one) {
    rows.push(barRow('Cluster 1f/1w CPU per GET /users/me', micros(c), c, `${micros(one)} (1 process)`, one, CLUSTER_CPU_BAR, false,
      `${sameRate(cluster.usersMeAtRate.rate, oneProcess.usersMeAtRate.rate, 'req/s')}; front, worker and launcher summed` +
        (cSaturated && oneSaturated ? `; each at its own saturation ${micros(cSaturated)} vs ${micros(oneSaturated)}` : '')));
  }
  const cs = cluster.sends.halfRate.cost;
  const os = oneProcess.sends.halfRate.cost;
  if (cs && os) {
    rows.push(
      barRow('Cluster 1f/1w CPU per send, with deliveries', micros(cs.cpuMicrosPerSend), cs.cpuMicrosPerSend, `${micros(os.cpuMicrosPerSend)} (1 process)`, os.cpuMicrosPerSend, CLUSTER_CPU_BAR, false,
        `${sameRate(cluster.sends.halfRate.targetRate, oneProcess.sends.halfRate.targetRate, 'sends/s')}; per delivered event ${micros(cs.cpuMicrosPerDelivery)} vs ${micros(os.cpuMicrosPerDelivery)}; ` +
          `poll answers ${fmt(cs.pollAnswers)} vs ${fmt(os.pollAnswers)}`),
    );
  }
  return rows;
}
