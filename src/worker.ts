// The worker role: realm actors, their request handler and the change feed.
import type { Config } from './config.js';
import type { Sql } from './db/connect.js';
import type { Logger } from './log.js';
import { RealmRegistry } from './realm/registry.js';
import { ChangeFeed } from './realm/changeFeed.js';
import { WorkerRequestHandler } from './api/handler.js';

export interface Worker {
  registry: RealmRegistry;
  handler: WorkerRequestHandler;
  stop(): void;
}

export async function startWorker(config: Config, sql: Sql, log: Logger): Promise<Worker> {
  const registry = new RealmRegistry({ config, sql, log });
  const feed = new ChangeFeed(registry);
  await feed.start();
  const handler = new WorkerRequestHandler(registry, log, () => feed.catchUp());
  return {
    registry,
    handler,
    stop() {
      feed.stop();
      registry.close();
    },
  };
}
