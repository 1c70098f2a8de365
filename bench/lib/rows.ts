// Row builders shared by the table of every phase, and the rows of the two phases that
// compare the server with itself: render (in-thread vs pool) and cluster overhead.

import type { ClusterOverheadResult } from '../workloads/clusterOverhead.js';
import type { RenderWorkloadResult } from '../workloads/render.js';
import { fmt, ms } from './progress.js';
import type { Outcome, Row } from './results.js';

export function ratioText(r: number): string {
  return Number.isFinite(r) ? `${r >= 10 ? r.toFixed(1) : r.toFixed(2)}×` : '–';
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
    compareRow('Cluster 1f/1w send p99 (saturated)', ms(cs.latency.p99), cs.latency.p99, `${ms(op.latency.p99)} (1 process)`, op.latency.p99, `send→receive p99 at half rate ${ms(cluster.sends.halfRate.sendToReceive.p99)} vs ${ms(oneProcess.sends.halfRate.sendToReceive.p99)}`),
  ];
}
