// The in-process runner: the one-process mode's jobs (no Redis). Same processors and retry
// policy as the BullMQ runner; jobs live in memory, at most `concurrency` run at once, and
// close() drains them (delayed tries included) before it returns. Jobs queued with a delay
// are wake-ups whose work the database records (a scheduled message): close() drops them at
// once, and the next start finds that work again.
import type { Logger } from '../log.js';
import { backoffDelay, describeError, PermanentJobError, type JobData, type JobDepsOf, type JobOptions, type JobRunner, type JobTable } from './types.js';

interface QueuedJob {
  id: number;
  name: string;
  data: unknown;
  attemptsMade: number;
  attempts: number;
  backoffMs: number;
  /** Set for runs of a schedule, so that one slow run does not pile up the next ones. */
  schedule?: string;
  /** JobOptions.jobId: no second job with it while this one is pending. */
  key?: string;
  /** Queued with a delay: waiting for its first try, it is dropped at close. */
  wakeUp: boolean;
}

/** The longest wait setTimeout takes as given. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface InProcessOptions<T extends JobTable> {
  table: T;
  log: Logger;
  concurrency?: number;
  /** The longest close() waits for delayed tries; what is still waiting then is dropped (and logged). */
  drainTimeoutMs?: number;
}

export class InProcessJobRunner<T extends JobTable> implements JobRunner<T> {
  private readonly table: T;
  private readonly log: Logger;
  private readonly concurrency: number;
  private readonly drainTimeoutMs: number;
  private readonly ready: QueuedJob[] = [];
  private readonly delayed = new Map<NodeJS.Timeout, QueuedJob>();
  private readonly intervals: NodeJS.Timeout[] = [];
  private readonly busySchedules = new Set<string>();
  private readonly pendingKeys = new Set<string>();
  private running = 0;
  private nextId = 0;
  private deps: JobDepsOf<T> | null = null;
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(opts: InProcessOptions<T>) {
    this.table = opts.table;
    this.log = opts.log;
    this.concurrency = Math.max(1, opts.concurrency ?? 8);
    this.drainTimeoutMs = opts.drainTimeoutMs ?? 10_000;
  }

  async enqueue<N extends keyof T & string>(name: N, data: JobData<T[N]>, opts: JobOptions = {}): Promise<void> {
    this.add(name, data, opts);
  }

  private add(name: string, data: unknown, opts: JobOptions, schedule?: string): void {
    if (this.closed) throw new Error(`The job runner is closed; job '${name}' was not queued`);
    const def = this.table[name];
    if (!def) throw new Error(`Unknown job '${name}'`);
    if (opts.jobId !== undefined) {
      if (this.pendingKeys.has(opts.jobId)) return;
      this.pendingKeys.add(opts.jobId);
    }
    const job: QueuedJob = {
      id: ++this.nextId,
      name,
      // The same plain-data copy a processor gets from Redis.
      data: data === undefined ? undefined : JSON.parse(JSON.stringify(data)),
      attemptsMade: 0,
      attempts: Math.max(1, opts.attempts ?? def.attempts ?? 1),
      backoffMs: opts.backoffMs ?? def.backoffMs ?? 1000,
      schedule,
      key: opts.jobId,
      wakeUp: !!opts.delayMs && opts.delayMs > 0,
    };
    if (schedule) this.busySchedules.add(schedule);
    if (opts.delayMs && opts.delayMs > 0) this.later(job, opts.delayMs);
    else this.ready.push(job);
    this.pump();
  }

  async every<N extends keyof T & string>(name: N, everyMs: number, data: JobData<T[N]>): Promise<void> {
    if (!this.table[name]) throw new Error(`Unknown job '${name}'`);
    const tick = () => {
      if (this.closed || this.busySchedules.has(name)) return;
      this.add(name, data, {}, name);
    };
    const timer = setInterval(tick, everyMs);
    timer.unref();
    this.intervals.push(timer);
    tick();
  }

  start(deps: JobDepsOf<T>): void {
    this.deps = deps;
    this.pump();
  }

  private later(job: QueuedJob, ms: number): void {
    // setTimeout fires at once beyond 2^31-1 ms; a longer wait is taken in steps.
    const step = Math.min(ms, MAX_TIMER_MS);
    const timer = setTimeout(() => {
      this.delayed.delete(timer);
      if (step < ms) {
        this.later(job, ms - step);
        return;
      }
      this.ready.push(job);
      this.pump();
    }, step);
    // A pending retry does not keep the process alive; close() waits for it on its own.
    timer.unref();
    this.delayed.set(timer, job);
  }

  private pump(): void {
    if (!this.deps) return;
    while (this.running < this.concurrency && this.ready.length > 0) void this.run(this.ready.shift()!, this.deps);
    this.notifyIfIdle();
  }

  private async run(job: QueuedJob, deps: JobDepsOf<T>): Promise<void> {
    this.running++;
    job.attemptsMade++;
    const log = this.log.child({ job: job.name, jobId: job.id, attempt: job.attemptsMade });
    let done = true;
    try {
      await this.table[job.name]!.run(job.data as never, { deps, attempt: job.attemptsMade, log });
    } catch (err) {
      const permanent = err instanceof PermanentJobError;
      if (!permanent && job.attemptsMade < job.attempts) {
        const wait = backoffDelay(job.backoffMs, job.attemptsMade);
        log.warn({ err: describeError(err), retryInMs: wait }, 'job failed; will retry');
        this.later(job, wait);
        done = false;
      } else {
        log.error({ err: describeError(err), attempts: job.attemptsMade }, 'job failed');
      }
    } finally {
      if (done && job.schedule) this.busySchedules.delete(job.schedule);
      if (done && job.key !== undefined) this.pendingKeys.delete(job.key);
      this.running--;
      this.pump();
    }
  }

  private get idle(): boolean {
    return this.running === 0 && this.ready.length === 0 && this.delayed.size === 0;
  }

  private notifyIfIdle(): void {
    if (!this.idle || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Pending work: queued, running, and waiting for a delayed try. */
  get pending(): { ready: number; running: number; delayed: number } {
    return { ready: this.ready.length, running: this.running, delayed: this.delayed.size };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.intervals.splice(0)) clearInterval(t);
    // Never started: nothing can run what is queued.
    if (!this.deps) {
      this.dropPending('job runner closed before it started');
      return;
    }
    this.dropWakeUps();
    if (this.idle) return;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await new Promise<boolean>((resolve) => {
      this.idleWaiters.push(() => resolve(false));
      timer = setTimeout(() => resolve(true), this.drainTimeoutMs);
    });
    clearTimeout(timer);
    if (timedOut) this.dropPending('jobs still pending at shutdown were dropped');
  }

  /** Wake-ups not yet due: their work stays in the database for the next start. */
  private dropWakeUps(): void {
    let dropped = 0;
    for (const [timer, job] of this.delayed) {
      if (!job.wakeUp || job.attemptsMade > 0) continue;
      clearTimeout(timer);
      this.delayed.delete(timer);
      if (job.key !== undefined) this.pendingKeys.delete(job.key);
      dropped++;
    }
    if (dropped > 0) this.log.debug({ dropped }, 'delayed wake-ups dropped at shutdown');
  }

  private dropPending(reason: string): void {
    const dropped = [...this.ready, ...this.delayed.values()];
    for (const t of this.delayed.keys()) clearTimeout(t);
    this.delayed.clear();
    this.ready.length = 0;
    this.pendingKeys.clear();
    if (dropped.length > 0 || this.running > 0) {
      this.log.warn({ dropped: dropped.map((j) => j.name), running: this.running }, reason);
    }
  }
}
