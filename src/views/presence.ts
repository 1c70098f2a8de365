// Presence as clients see it. Presence lives in the realm actor's memory only (a ping a
// minute per client is far too frequent for a database write); each row keeps when the user
// was last active and last connected, and a realm-wide sequence number of its last change.
import type { Config } from '../config.js';
import type { RealmState } from '../model/realmState.js';
import type { User, UserPresence } from '../model/types.js';
import { apiEmail } from './users.js';
import { canAccessUser } from '../permissions/userAccess.js';
import { PRESENCE_OFFLINE_THRESHOLD_SECONDS } from '../model/limits.js';
import { type LegacyPresence } from '../events/catalog/index.js';

/** A row is considered active (legacy status) when activity is at most this much older than the last connection. */
const LEGACY_ACTIVITY_OFFSET_SECONDS = 70;
const DEFAULT_HISTORY_DAYS = 14;

export const nowSeconds = () => Date.now() / 1000;

/**
 * When the user was last active. Never active: Zulip falls back to the join date; capped at
 * the last connection, so a user who joined a minute ago and turned presence off does not
 * read as active.
 */
function activeTime(p: UserPresence, user: User): number {
  return Math.floor(p.lastActiveTime ?? Math.min(user.dateJoined.getTime() / 1000, p.lastConnectedTime));
}

/** The modern form: `{active_timestamp, idle_timestamp}`. */
export function modernPresence(p: UserPresence, user: User) {
  return { active_timestamp: activeTime(p, user), idle_timestamp: Math.floor(p.lastConnectedTime) };
}

/** The legacy single-client form `{client, status, timestamp, pushable}`. */
export function legacyPresenceDict(p: UserPresence, user: User): LegacyPresence {
  const active = activeTime(p, user);
  const connected = Math.floor(p.lastConnectedTime);
  const isActive = active + LEGACY_ACTIVITY_OFFSET_SECONDS >= connected;
  return { client: 'website', status: isActive ? 'active' : 'idle', timestamp: isActive ? active : connected, pushable: false };
}

/** The legacy per-user form: `aggregated` plus the one client, `website`. */
export function legacyPresenceInfo(p: UserPresence, user: User) {
  const website = legacyPresenceDict(p, user);
  return { aggregated: { client: website.client, status: website.status, timestamp: website.timestamp }, website };
}

export interface PresenceQuery {
  slim: boolean;
  lastUpdateId?: number;
  historyDays?: number;
}

export function presenceDisabled(state: RealmState): boolean {
  return state.realm.settings.presence_disabled === true;
}

/**
 * The realm's presence data as one viewer may see it: keyed by user id (slim) or API email
 * (legacy); with `lastUpdateId`, only rows changed after it. Returns the newest sequence
 * number included (or the client's own, or -1).
 */
export function realmPresences(config: Config, state: RealmState, viewer: User, q: PresenceQuery) {
  const presences: Record<string, unknown> = {};
  if (presenceDisabled(state)) return { presences, presence_last_update_id: -1 };
  const historyDays = q.historyDays ?? DEFAULT_HISTORY_DAYS;
  const since = nowSeconds() - historyDays * 24 * 3600;
  const filterByTime = q.lastUpdateId === undefined || q.lastUpdateId <= 0;
  let maxId: number | null = null;
  if (historyDays !== 0) {
    for (const [userId, p] of state.presence) {
      const user = state.users.get(userId);
      if (!user || !user.isActive || user.isBot) continue;
      if (q.lastUpdateId !== undefined && p.lastUpdateId <= q.lastUpdateId) continue;
      if (filterByTime && p.lastConnectedTime < since) continue;
      if (!canAccessUser(state, viewer, user)) continue;
      if (q.slim) presences[String(userId)] = modernPresence(p, user);
      else presences[apiEmail(config, state.realm, user)] = legacyPresenceInfo(p, user);
      maxId = Math.max(maxId ?? -1, p.lastUpdateId);
    }
  }
  const lastId = maxId ?? q.lastUpdateId ?? -1;
  return { presences, presence_last_update_id: lastId };
}

/** GET /users/{user}/presence: one user's presence; legacy data says `offline` when stale. */
export function userPresenceView(p: UserPresence, user: User, slim: boolean) {
  if (slim) return modernPresence(p, user);
  const info = legacyPresenceInfo(p, user);
  const status = nowSeconds() - info.aggregated.timestamp > PRESENCE_OFFLINE_THRESHOLD_SECONDS ? 'offline' : info.aggregated.status;
  return {
    aggregated: { status, timestamp: info.aggregated.timestamp },
    website: { status: info.website.status, timestamp: info.website.timestamp },
  };
}
