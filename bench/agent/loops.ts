// Closed-loop and open-loop request generators.

import type { ClosedLoopJob, LoopResult, OpenLoopJob, OpenLoopResult } from '../lib/agent-protocol.js';
import { HttpConnection, type HttpResult } from '../lib/http-conn.js';
import { requestFactory } from '../lib/request-spec.js';
import { Samples, monotonicMs } from '../lib/stats.js';

class Tally {
  completed = 0;
  ok = 0;
  allOk = 0;
  failed = 0;
  statuses: Record<string, number> = {};
  firstFailure: string | undefined;
  readonly latency = new Samples();

  record(err: Error | null, res: HttpResult | null, latencyMs: number): void {
    this.completed++;
    if (err || !res) {
      this.failed++;
      this.statuses.error = (this.statuses.error ?? 0) + 1;
      this.firstFailure ??= err?.message ?? 'no response';
      return;
    }
    this.statuses[res.status] = (this.statuses[res.status] ?? 0) + 1;
    if (res.status >= 200 && res.status < 300) {
      this.ok++;
      this.latency.add(latencyMs);
    } else {
      this.failed++;
      this.firstFailure ??= `HTTP ${res.status}: ${res.body.toString('utf8', 0, 300)}`;
    }
  }

  result(windowMs: number, agentCpuMs: number): LoopResult {
    return {
      completed: this.completed,
      ok: this.ok,
      allOk: Math.max(this.allOk, this.ok),
      failed: this.failed,
      statuses: this.statuses,
      windowMs,
      latency: this.latency.summary(),
      firstFailure: this.firstFailure,
      agentCpuMs,
    };
  }
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export function runClosedLoop(job: ClosedLoopJob): Promise<LoopResult> {
  const factories = job.specs.map(requestFactory);
  const tally = new Tally();
  const start = monotonicMs();
  const windowStart = start + job.warmupMs;
  const windowEnd = job.requests === undefined ? windowStart + job.durationMs : Number.POSITIVE_INFINITY;
  let cpuAtWindowStart = -1;
  let cpuAtWindowEnd = -1;
  let seq = 0;

  return new Promise((resolve) => {
    let active = job.connections;
    const stopOne = (conn: HttpConnection) => {
      conn.destroy();
      if (--active === 0) {
        if (cpuAtWindowEnd < 0) cpuAtWindowEnd = cpuMs();
        const windowMs = job.requests === undefined ? job.durationMs : monotonicMs() - windowStart;
        resolve(tally.result(windowMs, cpuAtWindowEnd - Math.max(0, cpuAtWindowStart)));
      }
    };
    for (let i = 0; i < job.connections; i++) {
      const conn = new HttpConnection(job.endpoints[i % job.endpoints.length]);
      const make = factories[i % factories.length];
      const next = () => {
        const sentAt = monotonicMs();
        if (sentAt >= windowEnd || (job.requests !== undefined && seq >= job.requests)) {
          if (cpuAtWindowEnd < 0) cpuAtWindowEnd = cpuMs();
          stopOne(conn);
          return;
        }
        if (cpuAtWindowStart < 0 && sentAt >= windowStart) cpuAtWindowStart = cpuMs();
        conn.request(
          make(seq++),
          (err, res) => {
            const doneAt = monotonicMs();
            if (!err && res && res.status >= 200 && res.status < 300) tally.allOk++;
            if (doneAt >= windowStart && doneAt < windowEnd) tally.record(err, res, doneAt - sentAt);
            // After a transport error, pause briefly so a refused port does not spin the loop.
            if (err) setTimeout(next, 20);
            else next();
          },
          job.timeoutMs,
        );
      };
      next();
    }
  });
}

export function runOpenLoop(job: OpenLoopJob): Promise<OpenLoopResult> {
  const factories = job.specs.map(requestFactory);
  const tally = new Tally();
  const service = new Samples();
  const interval = 1000 / job.rate;
  const total = Math.max(1, Math.floor((job.rate * job.durationMs) / 1000));
  const idle: HttpConnection[] = [];
  const backlog: number[] = [];
  const okSeqs: number[] = [];
  let opened = 0;
  let inFlight = 0;
  let nextIndex = 0;
  let seq = 0;
  let maxBacklog = 0;
  const start = monotonicMs();
  const cpuStart = cpuMs();

  return new Promise((resolve) => {
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      for (const conn of idle) conn.destroy();
      const result = tally.result(monotonicMs() - start, cpuMs() - cpuStart);
      resolve({ ...result, scheduled: total, serviceLatency: service.summary(), maxBacklog, connectionsOpened: opened, okSeqs });
    };
    const send = (conn: HttpConnection, scheduledAt: number) => {
      inFlight++;
      const sentAt = monotonicMs();
      const n = seq++;
      conn.request(
        factories[n % factories.length](n, scheduledAt),
        (err, res) => {
          const doneAt = monotonicMs();
          inFlight--;
          tally.record(err, res, doneAt - scheduledAt);
          if (!err && res && res.status < 300) {
            service.add(doneAt - sentAt);
            okSeqs.push(n);
          }
          if (err) {
            conn.destroy();
            opened--;
          } else {
            idle.push(conn);
          }
          dispatch();
          if (nextIndex >= total && backlog.length === 0 && inFlight === 0) finish();
        },
        job.timeoutMs,
      );
    };
    const dispatch = () => {
      while (backlog.length > 0) {
        let conn = idle.pop();
        if (!conn) {
          if (opened >= job.maxConnections) break;
          conn = new HttpConnection(job.endpoints[opened % job.endpoints.length]);
          opened++;
        }
        send(conn, backlog.shift() as number);
      }
    };
    const tick = () => {
      const now = monotonicMs();
      while (nextIndex < total && start + nextIndex * interval <= now) {
        backlog.push(start + nextIndex * interval);
        nextIndex++;
      }
      maxBacklog = Math.max(maxBacklog, backlog.length);
      dispatch();
      if (nextIndex < total) {
        setTimeout(tick, Math.max(0, Math.min(1, start + nextIndex * interval - monotonicMs())));
      } else if (backlog.length === 0 && inFlight === 0) {
        finish();
      }
    };
    tick();
    // Whatever is still outstanding this long after the last scheduled start counts as lost.
    setTimeout(finish, job.durationMs + job.timeoutMs + 1000).unref();
  });
}
