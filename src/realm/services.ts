// What realm actors share within one worker process.
import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import type { Logger } from '../log.js';
import type { RenderPool } from '../render/pool.js';
import type { ServerJobQueue } from '../jobs/payloads.js';
import type { FileStorage } from '../storage/index.js';
import type { EventHub, HubCounters, HubLimits } from '../events/hub.js';
import type { RealmRecord } from '../model/types.js';
import type { SendCounters } from './sendQueue.js';

/** Tallies the actors of one process add to since it started; exported as metrics. */
export type WorkerCounters = HubCounters & SendCounters;

export function newWorkerCounters(): WorkerCounters {
  return { eventsDelivered: 0, queuesOverflowed: 0, messagesCommitted: 0, batches: 0, commitSeconds: 0, sendsFailed: 0 };
}

export interface Services {
  config: Config;
  sql: Sql;
  log: Logger;
  /** Markdown rendering off the actors' thread, with a time budget per message. */
  render: RenderPool;
  /** Side effects off the request path (push notifications, retention): BullMQ or in-process. */
  jobs: ServerJobQueue;
  /** Uploaded files, avatars and emoji: a local directory or S3-compatible storage. */
  storage: FileStorage;
  /** Process-wide counters (sends, deliveries) for the metrics; optional for tools and tests. */
  counters?: WorkerCounters;
  /**
   * Where a realm's event queues live: absent, in the actor's own EventHub; a cluster with
   * queue shards gives a hub whose queues live in shard processes.
   */
  eventHub?: (realm: RealmRecord, limits: HubLimits) => EventHub;
}

/**
 * The realm is not held by this process, and this process may not take it up on its own (in a
 * cluster, only under the realm's lease). Thrown by the registry for an inactive realm, and by
 * a fenced write whose lease is gone; nothing of the request was committed, so the caller may
 * send it again to the realm's owner.
 */
export class RealmNotHereError extends Error {
  readonly code = 'REALM_NOT_HERE';
}
