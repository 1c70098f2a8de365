// Register section `realm_user_groups`. Resolving system group membership walks every user
// for each system group, the costliest part of a large realm's register; the result depends
// only on the group objects (replaced on every change), the users (state.usersVersion), the
// realm's waiting period, and the clock through full membership. It is kept until one of
// them changes, the clock included: until the next moment a user becomes a full member.
import type { RealmState } from '../../model/realmState.js';
import type { RealmActor } from '../../realm/actor.js';
import { CacheKey } from '../../realm/caches.js';
import type { UserGroup } from '../../model/types.js';
import { formatGroups } from '../../views/groups.js';
import { JsonBytes } from '../../http/jsonText.js';

const DAY_MS = 24 * 3600 * 1000;

interface CachedGroups {
  groups: UserGroup[];
  usersVersion: number;
  waitingDays: number;
  validUntil: number;
  formatted: Record<string, unknown>[];
  /** The list's JSON (system groups list every member: 100,000 ids in a large realm), made once. */
  json?: JsonBytes;
}

/** Per actor: by include_deactivated_groups. */
const groupLists = new CacheKey('register group lists', () => new Map<boolean, CachedGroups>());

function sameGroups(state: RealmState, groups: UserGroup[]): boolean {
  if (state.groups.size !== groups.length) return false;
  let i = 0;
  for (const g of state.groups.values()) if (g !== groups[i++]) return false;
  return true;
}

/** When the next user not yet a full member becomes one (Infinity: nobody is waiting). */
function nextFullMemberAt(state: RealmState, waitingDays: number, now: number): number {
  let next = Infinity;
  if (waitingDays <= 0) return next;
  for (const u of state.users.values()) {
    const at = u.dateJoined.getTime() + waitingDays * DAY_MS;
    if (at > now && at < next) next = at;
  }
  return next;
}

/** The list as UTF-8 JSON, kept with the list. */
export function realmUserGroupsJson(actor: RealmActor, includeDeactivated: boolean): JsonBytes {
  const entry = cachedGroups(actor, includeDeactivated);
  return (entry.json ??= new JsonBytes([Buffer.from(JSON.stringify(entry.formatted), 'utf8')]));
}

function cachedGroups(actor: RealmActor, includeDeactivated: boolean): CachedGroups {
  const { state } = actor;
  const now = Date.now();
  const waitingDays = state.realm.settings.waiting_period_threshold;
  const byFlag = actor.caches.get(groupLists);
  const hit = byFlag.get(includeDeactivated);
  if (hit && hit.usersVersion === state.usersVersion && hit.waitingDays === waitingDays && now < hit.validUntil && sameGroups(state, hit.groups)) {
    return hit;
  }
  const entry: CachedGroups = {
    groups: [...state.groups.values()],
    usersVersion: state.usersVersion,
    waitingDays,
    validUntil: nextFullMemberAt(state, waitingDays, now),
    formatted: formatGroups(state, includeDeactivated),
  };
  byFlag.set(includeDeactivated, entry);
  return entry;
}
