// The subscription log a register's unread section needs, kept per user between registers
// so the section costs one database round trip instead of two. Every write to the log goes
// with a putSubscription in the same actor turn, so the cache holds while the realm's
// subscriptionsVersion is unchanged, and is dropped as a whole when it moves.
import type { RealmActor } from '../../realm/actor.js';
import { CacheKey } from '../../realm/caches.js';
import type { User } from '../../model/types.js';
import { loadUserSubscriptionLog, type LogRow } from '../../db/messageHistory.js';
import { buildReader, type Reader } from '../../permissions/messageAccess.js';

interface LogCache {
  subscriptionsVersion: number;
  logs: Map<number, LogRow[]>;
}

/** Per actor: the current log cache (replaced when subscriptions change). */
const logCaches = new CacheKey('subscription logs', () => ({ current: null as LogCache | null }));

function cacheOf(actor: RealmActor): LogCache {
  const { state } = actor;
  const slot = actor.caches.get(logCaches);
  let cache = slot.current;
  if (!cache || cache.subscriptionsVersion !== state.subscriptionsVersion) {
    cache = { subscriptionsVersion: state.subscriptionsVersion, logs: new Map() };
    slot.current = cache;
  }
  return cache;
}

/** What `user` may read (as loadReader), with the subscription log from memory when held. */
export async function cachedReader(actor: RealmActor, user: User): Promise<Reader> {
  const { state } = actor;
  const cache = cacheOf(actor);
  let log = cache.logs.get(user.id);
  if (!log) {
    log = await loadUserSubscriptionLog(actor.sql, user.id);
    // Only keep it if no subscription changed while it was read.
    if (actor.caches.get(logCaches).current === cache && cache.subscriptionsVersion === state.subscriptionsVersion) cache.logs.set(user.id, log);
  }
  return buildReader(state, user, log);
}
