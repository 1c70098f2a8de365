// Redis connections of a cluster process. Each is named after the cluster's key prefix, so an
// operator (or a test) can tell this cluster's clients apart in CLIENT LIST.
import { Redis } from 'ioredis';

export interface RedisKeys {
  prefix: string;
  members: string;
  member: (id: string) => string;
  membershipChannel: string;
  queues: (realmId: number) => string;
  dirtyQueues: (realmId: number) => string;
  /** A queue shard's lease (the worker id holding it) and its queues while it moves. */
  shardLease: (unit: string) => string;
  shardHandoff: (unit: string) => string;
  /** Set by a realm's actor that handed its realm over with queue shards intact. */
  shardedRealmHandoff: (realmId: number) => string;
}

export function redisKeys(prefix: string): RedisKeys {
  return {
    prefix,
    members: `${prefix}members`,
    member: (id) => `${prefix}member:${id}`,
    membershipChannel: `${prefix}membership`,
    queues: (realmId) => `${prefix}realm:${realmId}:queues`,
    dirtyQueues: (realmId) => `${prefix}realm:${realmId}:dirty`,
    shardLease: (unit) => `${prefix}shard:${unit}:lease`,
    shardHandoff: (unit) => `${prefix}shard:${unit}:handoff`,
    shardedRealmHandoff: (realmId) => `${prefix}realm:${realmId}:sharded-handoff`,
  };
}

/** The name a cluster's connections carry: CLIENT LIST shows it. */
export const connectionNameFor = (prefix: string, purpose: string) =>
  `${prefix.replace(/[^A-Za-z0-9_.-]/g, '_')}${purpose}`;

/** What a connection logs through (a pino logger, or the keeper thread's messages). */
export interface RedisLog {
  warn(data: object, msg: string): void;
  info(data: object, msg: string): void;
}

export function connectRedis(url: string, prefix: string, purpose: string, log: RedisLog): Redis {
  const redis = new Redis(url, {
    connectionName: connectionNameFor(prefix, purpose),
    // CLIENT SETINFO is sent late, after a subscriber connection may have entered
    // subscriber mode, where Redis refuses it; the library name is not worth that noise.
    disableClientInfo: true,
    // Commands issued while disconnected wait for the reconnect instead of failing at once;
    // callers still see an error after a few attempts, and every caller retries on its own timer.
    maxRetriesPerRequest: 3,
    retryStrategy: (times) => Math.min(50 * times, 1000),
  });
  let lastError = '';
  redis.on('error', (err: Error) => {
    // ioredis reports every failed reconnect attempt; one line per distinct problem is enough.
    if (err.message !== lastError) log.warn({ err: err.message, purpose }, 'redis connection problem');
    lastError = err.message;
  });
  redis.on('ready', () => {
    if (lastError) log.info({ purpose }, 'redis connection restored');
    lastError = '';
  });
  return redis;
}
