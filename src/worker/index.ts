// The composition root of a worker: realm actors, their request handler, the change feed, the
// render pool and the job runner with its processors. The one place that knows every folder.
import { availableParallelism } from 'node:os';
import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import type { Logger } from '../log.js';
import { RealmRegistry, type RegistryOptions } from '../realm/registry.js';
import { ChangeFeed } from './changeFeed.js';
import { WorkerRequestHandler } from '../api/dispatch.js';
import { RenderPool } from '../render/pool.js';
import { createJobRunner } from '../jobs/index.js';
import { jobTable } from './jobs/table.js';
import { MemoryRateLimitStore, parseRateLimits, type RateLimitStore } from '../auth/rateLimit.js';
import { createStorage } from '../storage/index.js';
import { newWorkerCounters, type WorkerCounters } from '../realm/services.js';
import { countedJobTable, type JobCounts } from './jobCounts.js';
import { createMailTransport, logMailConfiguration } from './mail.js';
import { startEmailGateway } from './emailGateway.js';

export interface Worker {
  registry: RealmRegistry;
  handler: WorkerRequestHandler;
  /** For the metrics: what the actors did, the render pool, the job runs. */
  counters: WorkerCounters;
  render: RenderPool;
  jobCounts: JobCounts;
  /** Resolves once the jobs in flight finished (await it before closing the database). */
  stop(): Promise<void>;
}

/** One core stays with the actors; the rest render. */
export const defaultRenderThreads = () => Math.max(1, availableParallelism() - 1);

export async function startWorker(
  config: Config,
  sql: Sql,
  log: Logger,
  options: RegistryOptions = { activation: 'on_demand' },
  /** Where rate-limit buckets live: a cluster shares them through Redis; one process keeps them in memory. */
  rateLimitStore: RateLimitStore = new MemoryRateLimitStore(),
): Promise<Worker> {
  const rateLimits = parseRateLimits(config.RATE_LIMITS);
  const jobCounts: JobCounts = new Map();
  const jobs = await createJobRunner(config, log, countedJobTable(jobTable, jobCounts));
  const counters = newWorkerCounters();
  const render = RenderPool.start({
    threads: config.RENDER_THREADS ?? defaultRenderThreads(),
    budgetMs: config.RENDER_BUDGET_MS,
  });
  const storage = createStorage(config);
  const registry = new RealmRegistry({ config, sql, log, render, jobs, storage, counters, eventHub: options.eventHub }, options);
  const feed = new ChangeFeed(registry);
  try {
    await feed.start();
  } catch (err) {
    await render.close();
    await jobs.close();
    throw err;
  }
  logMailConfiguration(config, log);
  const mailer = createMailTransport(config);
  jobs.start({ config, sql, log, registry, mailer, storage });
  if (mailer) {
    jobs.every('email-sweep', config.EMAIL_SWEEP_SECONDS * 1000, {}).catch((err: unknown) => log.error({ err }, 'could not schedule the email sweep'));
  }
  jobs.every('retention', config.RETENTION_INTERVAL_SECONDS * 1000, {}).catch((err: unknown) => log.error({ err }, 'could not schedule message retention'));
  // Also the recovery at start: scheduled messages whose jobs did not survive (in-process
  // timers after a restart, jobs of a crashed worker) are queued again.
  jobs.every('scheduled-sweep', config.SCHEDULED_SWEEP_SECONDS * 1000, {}).catch((err: unknown) => log.error({ err }, 'could not schedule the scheduled-message sweep'));
  jobs.every('upload-cleanup', config.UPLOAD_CLEANUP_INTERVAL_SECONDS * 1000, {}).catch((err: unknown) => log.error({ err }, 'could not schedule the upload cleanup'));
  let gateway;
  try {
    gateway = await startEmailGateway(config, registry, log);
  } catch (err) {
    feed.stop();
    registry.close();
    mailer?.close();
    await render.close();
    await jobs.close();
    throw err;
  }
  const handler = new WorkerRequestHandler(registry, log, () => feed.catchUp(), { rules: rateLimits, store: rateLimitStore });
  return {
    registry,
    handler,
    counters,
    render,
    jobCounts,
    stop() {
      const jobsClosed = jobs
        .close()
        .catch((err: unknown) => log.warn({ err }, 'closing the job runner failed'))
        .finally(() => mailer?.close());
      feed.stop();
      gateway?.close().catch((err: unknown) => log.warn({ err }, 'closing the email gateway failed'));
      registry.close();
      // Renders still queued fail with RenderPoolClosedError; nothing waits for the threads.
      render.close().catch((err: unknown) => log.warn({ err }, 'closing the render pool failed'));
      return jobsClosed;
    },
  };
}
