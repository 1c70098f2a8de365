// The job interface shared by both runners (BullMQ, in-process) and the processors.
import type { Logger } from '../log.js';

export interface JobOptions {
  /** Tries in all, the first included (default: the job's own, else 1). */
  attempts?: number;
  /** Base of the exponential backoff between tries: backoffMs, 2·backoffMs, 4·backoffMs… */
  backoffMs?: number;
  /**
   * Wait before the first try. A job queued with a delay is a wake-up whose work is recorded
   * elsewhere (the database): the in-process runner drops it at close instead of waiting.
   */
  delayMs?: number;
  /** While a job with this id is queued, delayed or running, another with the same id is not added. */
  jobId?: string;
}

/** What a processor gets besides its data: the worker's services (given at start), the try, a logger. */
export interface JobContext<Deps = unknown> {
  deps: Deps;
  /** 1 on the first try. */
  attempt: number;
  log: Logger;
}

/**
 * One kind of job: a plain async function and its retry policy. Data crosses Redis as JSON,
 * so it must be plain data; the in-process runner copies it through JSON too, so a processor
 * sees the same thing under both runners.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface JobDefinition<D = never, Deps = any> {
  run(data: D, ctx: JobContext<Deps>): Promise<void>;
  attempts?: number;
  backoffMs?: number;
}

// `any` lets tables of differently typed definitions share one index type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JobTable = Record<string, JobDefinition<any, any>>;

export type JobData<D> = D extends JobDefinition<infer T> ? T : never;
/** The services every processor of a table shares. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JobDepsOf<T extends JobTable> = T[keyof T] extends JobDefinition<any, infer Deps> ? Deps : never;

/** The sending side of a runner: what the request path may do with jobs. */
export interface JobQueue<T extends JobTable = JobTable> {
  /** Queues a job; resolves once it is accepted (stored in Redis, or queued in memory). */
  enqueue<N extends keyof T & string>(name: N, data: JobData<T[N]>, opts?: JobOptions): Promise<void>;
}

export interface JobRunner<T extends JobTable = JobTable> extends JobQueue<T> {
  /** Runs a job now and then every `everyMs` in this process (jobs that work on this process's realms). */
  every<N extends keyof T & string>(name: N, everyMs: number, data: JobData<T[N]>): Promise<void>;
  /** Starts consuming; jobs queued before wait for it. */
  start(deps: JobDepsOf<T>): void;
  /** Stops schedules and consumers; waits for the jobs in flight (in-process: for every queued job). */
  close(): Promise<void>;
}

/** A failure that another try cannot fix: the job fails at once. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

/** The wait before try `attempt + 1` after try `attempt` failed (BullMQ's exponential backoff). */
export const backoffDelay = (backoffMs: number, attempt: number) => Math.round(backoffMs * 2 ** (attempt - 1));

export const describeError = (err: unknown) => (err instanceof Error ? err.message : String(err));
