// Turns a run's results into the table of rows with bars, and writes the JSON file and
// the dated line of bench/RESULTS.md.

import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ThroughputFigures } from './baselines.js';
import { fmt, ms } from './progress.js';
import type { Outcome, Row, RowResult, RunResults } from './results.js';
import { CLUSTER_CPU_BAR, barRow, clusterOverheadRows, compareRow, cpuPerOperationRows, info, naRow, ratioText, renderRows } from './rows.js';
import { REPO_ROOT, RESULTS_DIR } from './server.js';
import { shardRows } from './shardRows.js';

export const IDLE_BAR = 20_000;

function value<T>(o: Outcome<T> | undefined): T | undefined {
  return o && o.ok ? o.value : undefined;
}

function reason(o: Outcome<unknown> | undefined, fallback = 'skipped'): string {
  return o && !o.ok ? o.reason : fallback;
}

function cpuNote(target: number | null | undefined, load: number | null | undefined, targetName: string): string {
  const parts: string[] = [];
  if (target !== null && target !== undefined) parts.push(`${targetName} CPU ${fmt(target)}%`);
  if (load !== null && load !== undefined) parts.push(`load generator CPU ${fmt(load)}%`);
  return parts.join(', ');
}

/**
 * Req/s per core of target CPU makes the comparison independent of who saturated first;
 * a uWS baseline below ~85% CPU was held back by the load generator, so the ratio is
 * then an upper bound.
 */
function saturationNote(server: ThroughputFigures, uws: ThroughputFigures | undefined): string {
  if (!uws || !server.targetCpuPercent || !uws.targetCpuPercent) return '';
  const perCore = (t: ThroughputFigures) => t.requestsPerSecond / ((t.targetCpuPercent as number) / 100);
  const parts = [`per target core ${fmt(perCore(server))} vs uWS ${fmt(perCore(uws))} req/s (${ratioText(perCore(server) / perCore(uws))})`];
  if (uws.targetCpuPercent < 85) parts.push(`uWS ran at ${fmt(uws.targetCpuPercent)}% CPU, so its req/s is a lower bound`);
  return parts.join('; ');
}

export function buildRows(r: RunResults, opts: { connections: number; senders: number }): Row[] {
  const rows: Row[] = [];
  const uws = value(r.baselines.uws);
  const pgSerial = value(r.baselines.pgSerial);
  const pgConc = value(r.baselines.pgConcurrent);

  // Rows appear only for the phases that were selected.
  const joinNotes = (...parts: string[]) => parts.filter(Boolean).join('; ');
  if (r.baselines.uws) {
    rows.push(
      uws
        ? info(`uWS hello world (${opts.connections} conns)`, `${fmt(uws.requestsPerSecond)} req/s`, joinNotes(`p99 ${ms(uws.latency.p99)}`, cpuNote(uws.targetCpuPercent, uws.loadCpuPercent, 'uWS')), uws.requestsPerSecond)
        : naRow('uWS hello world', '', reason(r.baselines.uws)),
    );
  }
  if (r.baselines.pgSerial) {
    rows.push(
      pgSerial
        ? info('PG INSERT+COMMIT, serial', `${fmt(pgSerial.transactionsPerSecond)} tx/s`, `p50 ${ms(pgSerial.latency.p50)}, p99 ${ms(pgSerial.latency.p99)}`, pgSerial.transactionsPerSecond)
        : naRow('PG INSERT+COMMIT, serial', '', reason(r.baselines.pgSerial)),
    );
  }
  if (r.baselines.pgConcurrent) {
    rows.push(
      pgConc
        ? info(`PG INSERT+COMMIT, ×${pgConc.concurrency}`, `${fmt(pgConc.transactionsPerSecond)} tx/s`, `p50 ${ms(pgConc.latency.p50)}, p99 ${ms(pgConc.latency.p99)}`, pgConc.transactionsPerSecond)
        : naRow(`PG INSERT+COMMIT, ×${opts.senders}`, '', reason(r.baselines.pgConcurrent)),
    );
  }

  // Sends
  const sends = value(r.workloads.sends);
  if (sends) {
    const s = sends.saturated;
    const h = sends.halfRate;
    const deliveredPct = (d: { delivered: number; expected: number }) => (d.expected ? `${fmt((100 * d.delivered) / d.expected, 1)}% delivered` : '');
    const serialShown = pgSerial ? `${fmt(pgSerial.transactionsPerSecond)} tx/s` : 'n/a';
    const fixedNote = joinNotes(`p99 ${ms(s.latency.p99)}`, deliveredPct(s.delivery), cpuNote(s.serverCpuPercent, s.loadCpuPercent, 'server'), s.failed ? `${s.failed} failed: ${s.firstFailure}` : '');
    const fixedName = `Channel sends/s (${sends.senders} senders, ${sends.subscribers} polling subs)`;
    const cap = sends.capacity;
    if (cap) {
      // The bar is judged on the capacity: the best rate over the steps with more senders.
      const b = cap.best;
      const steps = cap.steps.map((st) => `${st.senders}: ${fmt(st.sendsPerSecond)}/s`).join(', ');
      rows.push(
        barRow(
          `Channel sends/s at capacity (${b.senders} senders, ${sends.subscribers} polling subs)`,
          `${fmt(b.sendsPerSecond)} /s`,
          b.sendsPerSecond,
          serialShown,
          pgSerial?.transactionsPerSecond,
          3,
          true,
          joinNotes(`senders ${steps}`, `p99 ${ms(b.latency.p99)}`, deliveredPct(b.delivery), cpuNote(b.serverCpuPercent, b.loadCpuPercent, 'server'), b.failed ? `${b.failed} failed: ${b.firstFailure}` : ''),
        ),
      );
      rows.push(
        pgSerial
          ? compareRow(fixedName, `${fmt(s.sendsPerSecond)} /s`, s.sendsPerSecond, serialShown, pgSerial.transactionsPerSecond, fixedNote)
          : info(fixedName, `${fmt(s.sendsPerSecond)} /s`, fixedNote, s.sendsPerSecond),
      );
    } else {
      rows.push(barRow(fixedName, `${fmt(s.sendsPerSecond)} /s`, s.sendsPerSecond, serialShown, pgSerial?.transactionsPerSecond, 3, true, fixedNote));
    }
    rows.push(
      barRow(
        `Send p99 at half rate (${fmt(h.targetRate)}/s, open loop)`,
        ms(h.latency.p99),
        h.latency.p99,
        pgConc ? `${ms(pgConc.latency.p99)} (PG ×${pgConc.concurrency} p99)` : 'n/a',
        pgConc?.latency.p99,
        3,
        false,
        joinNotes(`p50 ${ms(h.latency.p50)}`, `achieved ${fmt(h.sendsPerSecond)}/s`, cpuNote(h.serverCpuPercent, null, 'server'), h.failed || h.lost ? `${h.failed} failed, ${h.lost} lost: ${h.firstFailure ?? 'timeout'}` : ''),
      ),
    );
    rows.push(
      barRow(
        'Send→receive p99, every subscriber',
        ms(h.sendToReceive.p99),
        h.sendToReceive.p99,
        `${ms(h.latency.p99)} (send p99)`,
        h.latency.p99,
        2,
        false,
        joinNotes(`p50 ${ms(h.sendToReceive.p50)}`, `${fmt(h.sendToReceive.count)} receipts`, deliveredPct(h.delivery)),
      ),
    );
  } else if (r.workloads.sends) {
    const why = reason(r.workloads.sends);
    rows.push(naRow('Channel sends/s', '≥ 3×', why), naRow('Send p99 at half rate', '≤ 3×', why), naRow('Send→receive p99', '≤ 2×', why));
  }

  // GET /users/me
  const me = value(r.workloads.usersMe);
  if (r.workloads.usersMe) {
    rows.push(
      me
        ? barRow(
            `GET /users/me (${opts.connections} conns)`,
            `${fmt(me.requestsPerSecond)} req/s`,
            me.requestsPerSecond,
            uws ? `${fmt(uws.requestsPerSecond)} req/s (uWS)` : 'n/a',
            uws?.requestsPerSecond,
            0.4,
            true,
            joinNotes(`p99 ${ms(me.latency.p99)}`, cpuNote(me.targetCpuPercent, me.loadCpuPercent, 'server'), saturationNote(me, uws)),
          )
        : naRow('GET /users/me', '≥ 0.4×', reason(r.workloads.usersMe)),
    );
  }

  // Parked long-polls
  const idle = value(r.workloads.idle);
  if (idle) {
    const allOnTime = idle.attempted > 0 && idle.onTime === idle.attempted;
    const result: RowResult = allOnTime ? (idle.attempted >= IDLE_BAR ? 'PASS' : 'PASS*') : 'MISS';
    const judged = idle.rounds.slice(1);
    const notes = [
      `${judged.length} held rounds of ${idle.heartbeatSeconds}s heartbeats judged (limit +2 s): max wait ${ms(Math.max(...judged.map((x) => x.maxWaitMs)))}`,
      `parking round (not judged): ${fmt(idle.rounds[0]?.onTime)} on time, p99 ${ms(idle.rounds[0]?.p99WaitMs)}`,
      `registered in ${fmt(idle.registerSeconds, 1)} s, parked in ${fmt(idle.parkSeconds, 1)} s`,
      idle.clampedBy ? `asked ${fmt(idle.requested)}, clamped by ${idle.clampedBy}` : '',
      result === 'PASS*' ? `bar needs ${fmt(IDLE_BAR)}` : '',
      idle.failed ? `${idle.failed} failed: ${idle.firstFailure}` : '',
    ];
    rows.push({
      measure: 'Parked long-polls, heartbeat on time',
      value: `${fmt(idle.onTime)} / ${fmt(idle.attempted)}`,
      baseline: '',
      ratio: `${fmt((100 * idle.onTime) / Math.max(1, idle.attempted), 1)}%`,
      bar: `${fmt(IDLE_BAR)}, all`,
      result,
      note: joinNotes(...notes),
      figure: idle.onTime,
    });
    const mb = (b: number | null) => (b === null ? 'n/a' : `${fmt(b / 2 ** 20)} MB`);
    const perPoll =
      idle.rssParkedBytes !== null && idle.rssBeforeBytes !== null && idle.parked
        ? idle.rssParkedBytes > idle.rssBeforeBytes
          ? `${fmt((idle.rssParkedBytes - idle.rssBeforeBytes) / 1024 / idle.parked, 1)} KB per queue+poll`
          : 'no measurable growth (GC ran meanwhile)'
        : undefined;
    rows.push(info('Server RSS before → parked', `${mb(idle.rssBeforeBytes)} → ${mb(idle.rssParkedBytes)}`, joinNotes(perPoll ?? '', `after registering: ${mb(idle.rssRegisteredBytes)}`)));
  } else if (r.workloads.idle) {
    rows.push(naRow('Parked long-polls, heartbeat on time', `${fmt(IDLE_BAR)}, all`, reason(r.workloads.idle)));
  }

  // Register
  const reg = value(r.workloads.register);
  if (reg) {
    const size = `${reg.realmUsers === null ? '?' : fmt(reg.realmUsers)} users, ${reg.subscriptions === null ? '?' : fmt(reg.subscriptions)} subs`;
    rows.push(
      barRow(
        `POST /register p95 (${size})`,
        ms(reg.serial.latency.p95),
        reg.serial.latency.p95,
        `${ms(reg.stringify.ms)} (stringify ${fmt(reg.bodyBytes / 1024)} KB)`,
        reg.stringify.ms,
        3,
        false,
        `p50 ${ms(reg.serial.latency.p50)}; ${reg.serial.requests} serial requests`,
      ),
    );
    rows.push(
      info(
        `POST /register storm ×${reg.storm.concurrency}`,
        `${fmt(reg.storm.perSecond, 1)} req/s`,
        joinNotes(`p50 ${ms(reg.storm.latency.p50)}, p95 ${ms(reg.storm.latency.p95)}`, reg.storm.failed ? `${reg.storm.failed} failed` : '', cpuNote(reg.storm.serverCpuPercent, null, 'server')),
        reg.storm.perSecond,
      ),
    );
  } else if (r.workloads.register) {
    rows.push(naRow('POST /register p95', '≤ 3×', reason(r.workloads.register)));
  }

  rows.push(
    ...cpuPerOperationRows(r),
    ...renderRows(r.workloads.render),
    ...clusterOverheadRows(r.workloads.clusterOverhead),
    ...shardRows(r.workloads.shards, uws?.cpuMicrosPerRequest ?? undefined),
  );

  for (const s of r.seeding) {
    rows.push(info(`Seeding "${s.realm}" (${s.via})`, `${fmt(s.usersPerSecond, 1)} users/s`, `${fmt(s.users)} users, ${fmt(s.channels)} channels in ${fmt(s.seconds, 1)} s`));
  }
  return rows;
}

export function renderTable(rows: Row[], extraNotes: string[] = []): string {
  const header = ['Measure', 'Value', 'Baseline', 'Ratio', 'Bar', 'Result'];
  const cells = rows.map((r) => [r.measure, r.value, r.baseline, r.ratio, r.bar, r.result]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => '| ' + c.map((x, i) => x.padEnd(widths[i])).join(' | ') + ' |';
  const out = [line(header), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...cells.map(line)];
  const notes = [...rows.filter((r) => r.note).map((r) => `- ${r.measure}: ${r.note}`), ...extraNotes.map((n) => `- ${n}`)];
  const passes = rows.filter((r) => r.result === 'PASS' || r.result === 'PASS*').length;
  const measured = rows.filter((r) => r.bar && r.result !== 'n/a').length;
  const missing = rows.filter((r) => r.bar && r.result === 'n/a').length;
  const summary = `Bars met: ${passes} of ${measured} measured${missing ? `, ${missing} n/a` : ''} (PASS* = met at a smaller size than the bar asks).`;
  return [...out, '', summary, '', 'Notes:', ...notes, ''].join('\n');
}

export function writeJson(r: RunResults, stamp: string): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${stamp}.json`);
  writeFileSync(file, JSON.stringify(r, null, 2) + '\n');
  return file;
}

const RESULTS_MD = path.join(REPO_ROOT, 'bench', 'RESULTS.md');

const RESULTS_HEADER = `# Benchmark results

One line per run of \`npm run bench\` (appended by the runner; the full figures of each run
are in \`bench/results/<timestamp>.json\`, which is not committed). Ratios compare with
baselines measured in the same run on the same machine, so they travel between machines
better than the absolute numbers. See bench/README.md for what each workload does.

Columns:
- **uWS req/s**: raw uWebSockets.js hello world, same load generator and connections as GET /users/me.
- **PG tx/s**: raw Postgres one-row INSERT+COMMIT transactions per second, one connection.
- **PG p99 ×N**: p99 of those transactions with N concurrent connections (N = senders).
- **Sends/s**: channel messages per second, durable, into channels whose subscribers all long-poll; ratio to PG tx/s. Bar ≥ 3×. Since 2026-11-29 the rate at capacity: the best of closed loops with 16, 32, 64… senders (before, 16 senders only).
- **Send p99**: send latency at half the 16-sender rate (open loop); ratio to PG p99 ×N. Bar ≤ 3×.
- **S→R p99**: send→receive latency over every subscriber at half rate; ratio to send p99. Bar ≤ 2×.
- **/users/me**: GET /users/me requests per second; ratio to uWS req/s. Bar ≥ 0.4×.
- **Idle**: parked long-polls answered by their heartbeat within interval + 2 s in every round after the parking round, of those parked (fewer than asked when the server's open-file limit is lower). Bar: 20,000, all.
- **Register p95**: POST /register on the register realm; ratio to JSON.stringify of that response. Bar ≤ 3×.
- **Bars**: bars met of bars measured (PASS* counts as met at a smaller size).
- **Render**: messages/s through the render pool (server's default thread count, \`render()\` with many in flight); ratio to rendering in-thread in the same run. No bar.
- **Cluster**: ratios of a 1-front/1-worker cluster to one process, measured back to back in the same run: GET /users/me req/s, and channel sends/s; then CPU per GET /users/me and per send with its deliveries (bar ≤ ${CLUSTER_CPU_BAR}×).
- **Shards**: phase shards, one realm over two queue-shard processes: per send, p99 until all of the channel's subscribers received it (bar ≤ 1 s); POST /register p95 on its 100,000-user realm (ratio to JSON.stringify, bar ≤ 3×); parked long-polls on time (bar 40,000, all); recovery after kill -9 of a shard's worker (bar: its clients register again, no gap for the others, no acknowledged send lost).
- **CPU/op**: server CPU time (user + system over its process tree, from /proc) per GET /users/me (ratio to a uWS hello world answer), per channel send with its deliveries, per delivered message event, and per POST /register (ratio to JSON.stringify of its body).

Render and Cluster were added later, CPU/op later still, Shards last; older lines leave them empty.

n/a means the workload could not run (endpoint missing or failing); the JSON file says why.

| Date | Commit | Mode | uWS req/s | PG tx/s | PG p99 ×N | Sends/s | Send p99 | S→R p99 | /users/me | Idle | Register p95 | Bars | Render | Cluster | CPU/op | Shards |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
`;

/** "/users/me 0.85×, sends 0.90×; CPU/req 1.2×, CPU/send 1.1×" from the cluster-overhead rows. */
function clusterCell(rows: Row[]): string {
  const ratio = (prefix: string) => rows.find((row) => row.measure.startsWith(prefix))?.ratioValue;
  const shown = (r: number | undefined) => (r === undefined ? 'n/a' : ratioText(r));
  const me = ratio('Cluster 1f/1w GET /users/me (');
  const sends = ratio('Cluster 1f/1w sends/s');
  if (me === undefined && sends === undefined) return 'n/a';
  const cpuMe = ratio('Cluster 1f/1w CPU per GET');
  const cpuSend = ratio('Cluster 1f/1w CPU per send');
  const cpu = cpuMe === undefined && cpuSend === undefined ? '' : `; CPU/req ${shown(cpuMe)}, CPU/send ${shown(cpuSend)}`;
  return `/users/me ${shown(me)}, sends ${shown(sends)}${cpu}`;
}

/** "me 48 µs (3.1×), send 1.9 ms, event 37 µs, register 41 ms (1.1×)" from the CPU rows. */
function cpuCell(rows: Row[]): string {
  const parts: string[] = [];
  for (const [prefix, label] of [
    ['CPU per GET /users/me', 'me'],
    ['CPU per channel send', 'send'],
    ['CPU per delivered message', 'event'],
    ['CPU per POST /register', 'register'],
  ] as const) {
    const row = rows.find((x) => x.measure.startsWith(prefix));
    if (!row) continue;
    parts.push(`${label} ${row.value}${row.ratioValue !== undefined && !prefix.includes('send') && !prefix.includes('delivered') ? ` (${ratioText(row.ratioValue)})` : ''}`);
  }
  return parts.length ? parts.join(', ') : 'n/a';
}

/** "all received p99 640 ms PASS, register 1.2× PASS, polls 40,000 / 40,000 PASS, kill 7.9 s PASS" */
function shardsCell(rows: Row[]): string {
  const parts: string[] = [];
  for (const [prefix, label] of [
    ['Shards: all ', 'all received p99'],
    ['Shards: POST /register', 'register'],
    ['Shards: parked', 'polls'],
    ['Shards: kill', 'kill'],
  ] as const) {
    const row = rows.find((x) => x.measure.startsWith(prefix));
    if (!row) continue;
    const shown = row.result === 'n/a' ? 'n/a' : label === 'register' && row.ratioValue !== undefined ? ratioText(row.ratioValue) : row.value;
    parts.push(`${label} ${shown}${row.result && row.result !== 'n/a' ? ` ${row.result}` : ''}`);
  }
  return parts.length ? parts.join(', ') : 'n/a';
}

export function appendResultsLine(r: RunResults, rows: Row[]): void {
  const find = (prefix: string) => rows.find((row) => row.measure.startsWith(prefix));
  const cell = (row: Row | undefined, unit: (n: number) => string) => {
    if (!row || row.figure === undefined) return 'n/a';
    return row.ratioValue !== undefined ? `${unit(row.figure)} (${ratioText(row.ratioValue)})` : unit(row.figure);
  };
  const pgConc = value(r.baselines.pgConcurrent);
  const idle = find('Parked long-polls');
  const passes = rows.filter((x) => x.result === 'PASS' || x.result === 'PASS*').length;
  const measured = rows.filter((x) => x.bar && x.result !== 'n/a').length;
  const line = [
    r.startedAt.slice(0, 16).replace('T', ' '),
    r.commit,
    r.mode + (r.quick ? ' quick' : '') + (r.partial ? ` (${r.partial})` : ''),
    cell(find('uWS hello'), (n) => fmt(n)),
    cell(find('PG INSERT+COMMIT, serial'), (n) => fmt(n)),
    pgConc ? `${ms(pgConc.latency.p99)} ×${pgConc.concurrency}` : 'n/a',
    cell(find('Channel sends/s'), (n) => fmt(n)),
    cell(find('Send p99'), ms),
    cell(find('Send→receive'), ms),
    cell(find('GET /users/me'), (n) => fmt(n)),
    idle && idle.result !== 'n/a' ? `${idle.value} ${idle.result}` : 'n/a',
    cell(find('POST /register p95'), ms),
    `${passes}/${measured}`,
    cell(find('Render pool ×'), (n) => fmt(n)),
    clusterCell(rows),
    cpuCell(rows),
    shardsCell(rows),
  ];
  if (!existsSync(RESULTS_MD)) writeFileSync(RESULTS_MD, RESULTS_HEADER);
  appendFileSync(RESULTS_MD, `| ${line.join(' | ')} |\n`);
}
