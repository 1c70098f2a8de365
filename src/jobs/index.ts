// Jobs: side effects that may be slow or retried (push notifications, emails, retention cleanup) run
// here, never on the request path. With REDIS_URL they are BullMQ jobs shared by every worker
// process; without it, an in-process runner runs the same processors (given by the worker,
// src/worker/jobs) with the same retry policy. This folder knows no processor: it holds the
// runners and the payload catalog (payloads.ts).
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { BullJobRunner } from './bull.js';
import { InProcessJobRunner } from './inProcess.js';
import type { JobRunner, JobTable } from './types.js';

/** The runner the configuration asks for; with Redis, fails when Redis cannot be reached. */
export async function createJobRunner<T extends JobTable>(config: Config, log: Logger, jobTable: T): Promise<JobRunner<T>> {
  const jlog = log.child({ component: 'jobs' });
  if (!config.REDIS_URL) return new InProcessJobRunner({ table: jobTable, log: jlog, concurrency: config.JOB_CONCURRENCY });
  const runner = new BullJobRunner({
    table: jobTable,
    log: jlog,
    redisUrl: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    concurrency: config.JOB_CONCURRENCY,
  });
  try {
    await runner.ready();
  } catch (err) {
    runner.abort();
    throw err;
  }
  return runner;
}
