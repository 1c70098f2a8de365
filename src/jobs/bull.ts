// The BullMQ runner (REDIS_URL set). Every worker process consumes the shared queue, so a job
// runs once somewhere in the cluster and survives the process that queued it. Schedules
// (`every`) go to a queue of this process alone: they work on the realms this process holds,
// and each process runs its own.
import { randomBytes } from 'node:crypto';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { describeError, PermanentJobError, type JobData, type JobDepsOf, type JobOptions, type JobRunner, type JobTable } from './types.js';

export interface BullOptions<T extends JobTable> {
  table: T;
  log: Logger;
  redisUrl: string;
  /** Every key starts with it (REDIS_PREFIX), so deployments and tests sharing a Redis stay apart. */
  prefix: string;
  concurrency?: number;
}

const SHARED_QUEUE = 'jobs';
/** Failed jobs kept for inspection. */
const KEEP_FAILED = { count: 1000, age: 7 * 24 * 3600 };

export class BullJobRunner<T extends JobTable> implements JobRunner<T> {
  private readonly table: T;
  private readonly log: Logger;
  private readonly concurrency: number;
  /** BullMQ joins prefix and queue name with ':'. */
  private readonly bullPrefix: string;
  /** Commands; a failing Redis fails an enqueue after a few tries instead of hanging it. */
  private readonly conn: Redis;
  /** Workers block on Redis: BullMQ wants no per-request retry limit there. */
  private readonly workerConn: Redis;
  private readonly shared: Queue;
  private readonly local: Queue;
  private readonly workers: Worker[] = [];
  private readonly redisUrl: string;
  private closed = false;

  constructor(opts: BullOptions<T>) {
    this.table = opts.table;
    this.log = opts.log;
    this.concurrency = Math.max(1, opts.concurrency ?? 8);
    this.bullPrefix = opts.prefix.replace(/:$/, '');
    this.redisUrl = opts.redisUrl;
    this.conn = new Redis(opts.redisUrl, { maxRetriesPerRequest: 3 });
    this.workerConn = new Redis(opts.redisUrl, { maxRetriesPerRequest: null });
    for (const c of [this.conn, this.workerConn]) {
      c.on('error', (err: Error) => this.log.warn({ err: err.message }, 'job queue redis connection problem'));
    }
    this.shared = new Queue(SHARED_QUEUE, { connection: this.conn, prefix: this.bullPrefix });
    this.local = new Queue(`local-${randomBytes(6).toString('hex')}`, { connection: this.conn, prefix: this.bullPrefix });
    for (const q of [this.shared, this.local]) q.on('error', (err: Error) => this.log.warn({ err: err.message }, 'job queue error'));
  }

  /** Fails when Redis cannot be reached, so a misconfigured server stops at start. */
  async ready(): Promise<void> {
    await this.conn.ping().catch((err: Error) => {
      throw new Error(`Cannot reach Redis for jobs at ${this.redisUrl}: ${err.message}`);
    });
  }

  async enqueue<N extends keyof T & string>(name: N, data: JobData<T[N]>, opts: JobOptions = {}): Promise<void> {
    if (this.closed) throw new Error(`The job runner is closed; job '${name}' was not queued`);
    const def = this.table[name];
    if (!def) throw new Error(`Unknown job '${name}'`);
    await this.shared.add(name, data, {
      attempts: Math.max(1, opts.attempts ?? def.attempts ?? 1),
      backoff: { type: 'exponential', delay: opts.backoffMs ?? def.backoffMs ?? 1000 },
      delay: opts.delayMs,
      // BullMQ ignores an add whose id exists (a failed job kept for inspection included).
      jobId: opts.jobId,
      removeOnComplete: true,
      removeOnFail: KEEP_FAILED,
    });
  }

  async every<N extends keyof T & string>(name: N, everyMs: number, data: JobData<T[N]>): Promise<void> {
    if (!this.table[name]) throw new Error(`Unknown job '${name}'`);
    await this.local.upsertJobScheduler(name, { every: everyMs }, { name, data, opts: { removeOnComplete: true, removeOnFail: true } });
  }

  start(deps: JobDepsOf<T>): void {
    for (const queue of [this.shared, this.local]) {
      const worker = new Worker(queue.name, (job: Job) => this.process(job, deps), {
        connection: this.workerConn,
        prefix: this.bullPrefix,
        // One run of a schedule at a time: a slow sweep does not overlap the next one.
        concurrency: queue === this.local ? 1 : this.concurrency,
      });
      worker.on('failed', (job, err) => {
        if (!job) return;
        const final = job.attemptsMade >= (job.opts.attempts ?? 1) || err instanceof UnrecoverableError;
        const fields = { job: job.name, jobId: job.id, attempt: job.attemptsMade, err: err.message };
        if (final) this.log.error(fields, 'job failed');
        else this.log.warn(fields, 'job failed; will retry');
      });
      worker.on('error', (err: Error) => this.log.warn({ err: err.message }, 'job worker error'));
      this.workers.push(worker);
    }
  }

  private async process(job: Job, deps: JobDepsOf<T>): Promise<void> {
    const def = this.table[job.name];
    if (!def) throw new UnrecoverableError(`Unknown job '${job.name}'`);
    const attempt = job.attemptsMade + 1;
    try {
      await def.run(job.data as never, { deps, attempt, log: this.log.child({ job: job.name, jobId: job.id, attempt }) });
    } catch (err) {
      if (err instanceof PermanentJobError) throw new UnrecoverableError(err.message);
      throw err instanceof Error ? err : new Error(describeError(err));
    }
  }

  /** Drops the connections at once (Redis was never reachable, so there is nothing to drain). */
  abort(): void {
    this.closed = true;
    this.conn.disconnect();
    this.workerConn.disconnect();
  }

  /**
   * Waits for the jobs in flight here; queued and delayed ones stay in Redis for the other
   * workers (or the next start). This process's schedules go with it.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.close()));
    await this.local.obliterate({ force: true }).catch((err: unknown) => this.log.warn({ err: describeError(err) }, 'could not remove the local job queue'));
    await Promise.all([this.shared.close(), this.local.close()]);
    await Promise.all([this.conn.quit(), this.workerConn.quit()]).catch((err: unknown) => this.log.debug({ err: describeError(err) }, 'redis quit failed'));
  }
}
