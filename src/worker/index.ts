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
import { createMailTransport, logMailConfiguration } from './mail.js';
import { startEmailGateway } from './emailGateway.js';

export interface Worker {
  registry: RealmRegistry;
  handler: WorkerRequestHandler;
  /** Resolves once the jobs in flight finished (await it before closing the database). */
  stop(): Promise<void>;
}

/** One core stays with the actors; the rest render. */
export const defaultRenderThreads = () => Math.max(1, availableParallelism() - 1);

export async function startWorker(config: Config, sql: Sql, log: Logger, options: RegistryOptions = { activation: 'on_demand' }): Promise<Worker> {
  const jobs = await createJobRunner(config, log, jobTable);
  const render = RenderPool.start({
    threads: config.RENDER_THREADS ?? defaultRenderThreads(),
    budgetMs: config.RENDER_BUDGET_MS,
  });
  const registry = new RealmRegistry({ config, sql, log, render, jobs }, options);
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
  jobs.start({ config, sql, log, registry, mailer });
  if (mailer) {
    jobs.every('email-sweep', config.EMAIL_SWEEP_SECONDS * 1000, {}).catch((err: unknown) => log.error({ err }, 'could not schedule the email sweep'));
  }
  jobs.every('retention', config.RETENTION_INTERVAL_SECONDS * 1000, {}).catch((err: unknown) => log.error({ err }, 'could not schedule message retention'));
  // Also the recovery at start: scheduled messages whose jobs did not survive (in-process
  // timers after a restart, jobs of a crashed worker) are queued again.
  jobs.every('scheduled-sweep', config.SCHEDULED_SWEEP_SECONDS * 1000, {}).catch((err: unknown) => log.error({ err }, 'could not schedule the scheduled-message sweep'));
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
  const handler = new WorkerRequestHandler(registry, log, () => feed.catchUp());
  return {
    registry,
    handler,
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
