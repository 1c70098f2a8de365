// Presence: clients report every minute whether their user is active or idle. Held in the
// realm actor's memory only; a report changes state synchronously (no database, no await),
// so it needs no turn in the mailbox.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User, UserPresence } from '../../model/types.js';
import { apiEmail } from '../../views/users.js';
import { usersWhoCanAccess } from '../../permissions/userAccess.js';
import { legacyPresenceDict, nowSeconds, presenceDisabled } from '../../views/presence.js';
import { PRESENCE_OFFLINE_THRESHOLD_SECONDS, PRESENCE_PING_INTERVAL_SECONDS, USER_LIMIT_FOR_PRESENCE_EVENTS } from '../../model/limits.js';
import { userSettingValue } from '../../model/userSettings.js';
import { legacyPresenceEvent } from '../../events/catalog/index.js';

/** Several open tabs ping within a minute; one change per 55 s is enough. */
const PRESENCE_UPDATE_MIN_FREQ_SECONDS = 55;
/** A user whose last activity is older than this is treated as newly online when active again. */
const NEWLY_ONLINE_SECONDS = PRESENCE_OFFLINE_THRESHOLD_SECONDS - PRESENCE_PING_INTERVAL_SECONDS - 10;
const NEVER = 24 * 3600;

export type PresenceStatus = 'active' | 'idle';

export function parsePresenceStatus(status: string): PresenceStatus {
  if (status !== 'active' && status !== 'idle') throw badRequest(`Invalid status: ${status}`);
  return status;
}

/**
 * Tells the realm at once that a user came online (live events are skipped in large realms,
 * where they would cost quadratic work; clients poll presence there). At feature level 406
 * every client gets the legacy form: the modern `presences` form and the
 * `simplified_presence_events` capability that asks for it came at 419.
 */
function announcePresence(actor: RealmActor, user: User, row: UserPresence, force: boolean): void {
  const audience = usersWhoCanAccess(actor.state, user);
  if (audience.length > USER_LIMIT_FOR_PRESENCE_EVENTS && !force) return;
  const email = apiEmail(actor.services.config, actor.realm, user);
  actor.events.publish(legacyPresenceEvent(user.id, email, nowSeconds(), legacyPresenceDict(row, user)), audience);
}

/** Records one report at time `at` (seconds); returns whether the stored row changed. */
function recordPresence(actor: RealmActor, user: User, status: PresenceStatus, at: number, force: boolean): boolean {
  const { state } = actor;
  const active = status === 'active';
  let row = state.presence.get(user.id);
  const created = row === undefined;
  const sinceActive = row?.lastActiveTime != null ? at - row.lastActiveTime : NEVER;
  const sinceConnected = row ? at - row.lastConnectedTime : NEVER;
  let changed = created;
  if (!row) {
    row = { lastActiveTime: active ? at : null, lastConnectedTime: at, lastUpdateId: 0 };
  } else {
    if (sinceConnected > PRESENCE_UPDATE_MIN_FREQ_SECONDS) {
      row.lastConnectedTime = at;
      changed = true;
    }
    if (active && sinceActive > PRESENCE_UPDATE_MIN_FREQ_SECONDS) {
      row.lastActiveTime = at;
      if (at > row.lastConnectedTime) row.lastConnectedTime = at;
      changed = true;
    }
  }
  if (changed) {
    row.lastUpdateId = ++state.presenceLastUpdateId;
    state.presence.set(user.id, row);
  }
  const becameOnline = active && sinceActive > NEWLY_ONLINE_SECONDS;
  if (force || (!presenceDisabled(state) && (created || becameOnline))) announcePresence(actor, user, row, force);
  return changed;
}

/** POST /users/me/presence: a client's report. Users who turned presence off are not recorded. */
export function reportPresence(actor: RealmActor, user: User, status: PresenceStatus): void {
  if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
  if (userSettingValue(user.settings, 'presence_enabled') !== true) return;
  recordPresence(actor, user, status, nowSeconds(), false);
}

/**
 * The user turned presence on or off: everyone sees the new state at once. Turning it off
 * replaces the user's row with one old enough to read as offline.
 */
export function presenceSettingChanged(actor: RealmActor, user: User, enabled: boolean): void {
  if (enabled) {
    recordPresence(actor, user, 'active', nowSeconds(), true);
    return;
  }
  actor.state.presence.delete(user.id);
  recordPresence(actor, user, 'idle', nowSeconds() - (PRESENCE_OFFLINE_THRESHOLD_SECONDS + 120), true);
}
