// What realm actors share within one worker process.
import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import type { Logger } from '../log.js';
import type { RenderPool } from '../render/pool.js';
import type { ServerJobQueue } from '../jobs/payloads.js';
import type { RealmRecord } from '../model/types.js';
import type { RealmActor } from './actor.js';
import { ApiError } from '../model/errors.js';

export interface Services {
  config: Config;
  sql: Sql;
  log: Logger;
  /** Markdown rendering off the actors' thread, with a time budget per message. */
  render: RenderPool;
  /** Side effects off the request path (push notifications, retention): BullMQ or in-process. */
  jobs: ServerJobQueue;
  // Cluster seams (cluster/worker.ts sets them; the one-process mode leaves them unset).
  /** The `sql` a realm's actor writes through: in a cluster, fenced by the realm's lease. */
  sqlForRealm?: (realmId: number) => Sql;
  /** Called before a realm is activated; false means another worker owns it (see realmNotHere). */
  acquireRealm?: (realm: RealmRecord) => Promise<boolean>;
  /** Called after a realm's state is loaded and before any request sees it (event queues handed over). */
  realmActivated?: (actor: RealmActor) => Promise<void>;
}

/** The error code a worker answers with for a realm it does not hold; a front re-routes it. */
export const REALM_NOT_HERE = 'REALM_NOT_HERE';

export const realmNotHere = (msg = 'This organization is served by another worker') =>
  new ApiError(REALM_NOT_HERE, msg, 503);
