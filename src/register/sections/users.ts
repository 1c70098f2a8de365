// Register section `realm_user`: every user of the realm as the caller sees them, and the
// caller's own account and abilities.
import type { Config } from '../../config.js';
import type { RealmActor } from '../../realm/actor.js';
import { CacheKey } from '../../realm/caches.js';
import { Role, type RealmRecord, type User } from '../../model/types.js';
import { apiEmail, avatarUrl, inaccessibleUserView, registerUserJson } from '../../views/users.js';
import { hasCapability } from '../../events/shape.js';
import { profileDataFor } from '../../views/profileFields.js';
import { JsonBytes, JsonText } from '../../http/jsonText.js';
import { hasRealmPermission } from '../../permissions/realmSettings.js';
import { canAccessAllUsers, canAccessUser } from '../../permissions/userAccess.js';
import { emailViewerClass, roleSeesRealEmail } from '../../permissions/email.js';
import type { RegisterArgs } from '../args.js';

/**
 * One user list (`[…]`) as UTF-8 JSON, with where each user's entry lies in it, so that the
 * caller's own entry (which shows the caller its own address) can be put in its place.
 */
interface ListBytes {
  bytes: Buffer;
  /** The listed users' ids, ascending, as in the list. */
  ids: Int32Array;
  /** Byte offset of each entry; `starts[i + 1] - 1` is where entry i ends (before its comma). */
  starts: Float64Array;
}

/**
 * Both lists as viewers of one email class see them with one client_gravatar, every user in
 * the class's view (its own entry included). They depend on the users (usersVersion), their
 * profile data (profileVersion), the realm record (placeholder emails name its host) and the
 * configuration; nothing else of the viewer than its class.
 */
interface UserLists {
  /** The state the lists show; brought forward by patchLists. */
  usersVersion: number;
  profileVersion: number;
  realm: RealmRecord;
  stringId: string;
  config: Config;
  active: ListBytes;
  inactive: ListBytes;
}

/**
 * Per actor: by `class:client_gravatar`. At most four variants are kept (the lists of a
 * 100,000-user realm are some 34 MB each): the oldest made goes first.
 */
const userLists = new CacheKey('register user lists', () => new Map<string, UserLists>());
const MAX_VARIANTS = 4;
/** More users changed than this since a variant was made: it is made again whole. */
const MAX_PATCHED_USERS = 1000;

function listBytes(ids: number[], texts: string[]): ListBytes {
  const starts = new Float64Array(texts.length + 1);
  let at = 1; // after '['
  for (let i = 0; i < texts.length; i++) {
    starts[i] = at;
    at += Buffer.byteLength(texts[i]!, 'utf8') + 1; // the entry and its comma
  }
  starts[texts.length] = at;
  return { bytes: Buffer.from(`[${texts.join(',')}]`, 'utf8'), ids: Int32Array.from(ids), starts };
}

const COMMA = Buffer.from(',');
const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');

/**
 * `list` with the entries of the users `changed` (ascending ids) made again: a changed user's
 * entry is `texts.get(id)`, or left out when it has none (it belongs to the other list). The
 * other entries are copied as they are, in runs, not made again.
 */
function patchList(list: ListBytes, changed: readonly number[], texts: ReadonlyMap<number, string>): ListBytes {
  const old = list.ids;
  const ids: number[] = [];
  const starts: number[] = [];
  const pieces: Buffer[] = [OPEN];
  let at = 1; // after '['
  const separate = () => {
    if (ids.length === 0) return;
    pieces.push(COMMA);
    at += 1;
  };
  /** Old entries from..to-1, with the commas between them. */
  const copyRun = (from: number, to: number) => {
    if (from >= to) return;
    separate();
    const begin = list.starts[from]!;
    const end = list.starts[to]! - 1;
    for (let i = from; i < to; i++) {
      ids.push(old[i]!);
      starts.push(list.starts[i]! - begin + at);
    }
    pieces.push(list.bytes.subarray(begin, end));
    at += end - begin;
  };
  let i = 0;
  for (const id of changed) {
    let j = i;
    while (j < old.length && old[j]! < id) j++;
    copyRun(i, j);
    if (j < old.length && old[j] === id) j++; // its old entry, made again below if it stays
    i = j;
    const text = texts.get(id);
    if (text === undefined) continue;
    separate();
    const bytes = Buffer.from(text, 'utf8');
    ids.push(id);
    starts.push(at);
    pieces.push(bytes);
    at += bytes.length;
  }
  copyRun(i, old.length);
  // As listBytes: one more start, one past where the last entry's comma would be.
  starts.push(ids.length === 0 ? 1 : at + 1);
  pieces.push(CLOSE);
  return { bytes: Buffer.concat(pieces), ids: Int32Array.from(ids), starts: Float64Array.from(starts) };
}

/**
 * Brings a class's lists up to date with the users put since they were made (each changed
 * user's entry made again, in the list it now belongs to), instead of making every entry again.
 */
function patchLists(actor: RealmActor, lists: UserLists, viewer: User, viewerClass: number, clientGravatar: boolean, changedIds: readonly number[]): void {
  const { state } = actor;
  const changed = [...new Set(changedIds)].sort((a, b) => a - b);
  const active = new Map<number, string>();
  const inactive = new Map<number, string>();
  for (const id of changed) {
    const u = state.users.get(id);
    if (!u) continue;
    (u.isActive ? active : inactive).set(id, userEntry(actor, viewer, u, clientGravatar, roleSeesRealEmail(viewerClass, u)));
  }
  lists.active = patchList(lists.active, changed, active);
  lists.inactive = patchList(lists.inactive, changed, inactive);
  lists.usersVersion = state.usersVersion;
}

/**
 * A user's entry in register's lists as `viewer` sees it (`realEmailVisible`: by the viewer's
 * class when the entry is shared by the class; by default, the viewer's own right).
 */
function userEntry(actor: RealmActor, viewer: User, u: User, clientGravatar: boolean, realEmailVisible?: boolean): string {
  const { state } = actor;
  const values = state.profileValues.get(u.id);
  const profileData = values && values.size > 0 ? () => profileDataFor(state, u.id) : null;
  return registerUserJson(actor.services.config, actor.realm, viewer, u, clientGravatar, profileData, realEmailVisible);
}

function buildLists(actor: RealmActor, viewer: User, viewerClass: number, clientGravatar: boolean): UserLists {
  const { config } = actor.services;
  const { state } = actor;
  const ids = [...state.users.keys()].sort((a, b) => a - b);
  const active: { ids: number[]; texts: string[] } = { ids: [], texts: [] };
  const inactive: { ids: number[]; texts: string[] } = { ids: [], texts: [] };
  for (const id of ids) {
    const u = state.users.get(id)!;
    // The class's view of everyone, the viewer too: its own entry is put in at each register.
    const text = userEntry(actor, viewer, u, clientGravatar, roleSeesRealEmail(viewerClass, u));
    // The list a user is in says whether it is active.
    const list = u.isActive ? active : inactive;
    list.ids.push(id);
    list.texts.push(text);
  }
  return {
    usersVersion: state.usersVersion,
    profileVersion: state.profileVersion,
    realm: actor.realm,
    stringId: actor.realm.stringId,
    config,
    active: listBytes(active.ids, active.texts),
    inactive: listBytes(inactive.ids, inactive.texts),
  };
}

function cachedLists(actor: RealmActor, viewer: User, clientGravatar: boolean): UserLists {
  const { state } = actor;
  const viewerClass = emailViewerClass(viewer.role);
  const key = `${viewerClass}:${clientGravatar}`;
  const variants = actor.caches.get(userLists);
  const hit = variants.get(key);
  if (
    hit &&
    hit.profileVersion === state.profileVersion &&
    hit.realm === actor.realm &&
    hit.stringId === actor.realm.stringId &&
    hit.config === actor.services.config
  ) {
    if (hit.usersVersion === state.usersVersion) return hit;
    // Some users changed since: only their entries are made again.
    const changed = state.usersPutSince(hit.usersVersion);
    if (changed !== null && changed.length <= MAX_PATCHED_USERS) {
      patchLists(actor, hit, viewer, viewerClass, clientGravatar, changed);
      return hit;
    }
  }
  const lists = buildLists(actor, viewer, viewerClass, clientGravatar);
  variants.delete(key);
  // Variants made for a state that is gone, and that cannot be brought up to date, are of no more use.
  for (const [k, v] of variants) if (v.profileVersion !== lists.profileVersion || state.usersPutSince(v.usersVersion) === null) variants.delete(k);
  while (variants.size >= MAX_VARIANTS) variants.delete(variants.keys().next().value!);
  variants.set(key, lists);
  return lists;
}

/** Index of `id` in ascending `ids`, or -1. */
function indexOf(ids: Int32Array, id: number): number {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid]!;
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** A cached list with the viewer's own entry (as the viewer sees itself) in its place. */
function withOwnEntry(list: ListBytes, viewerId: number, ownEntry: () => string): JsonBytes {
  const i = indexOf(list.ids, viewerId);
  if (i < 0) return new JsonBytes([list.bytes]);
  const start = list.starts[i]!;
  const end = list.starts[i + 1]! - 1;
  return new JsonBytes([list.bytes.subarray(0, start), Buffer.from(ownEntry(), 'utf8'), list.bytes.subarray(end)]);
}

export function realmUserSection(actor: RealmActor, user: User, args: RegisterArgs): Record<string, unknown> {
  const { config } = actor.services;
  const { state } = actor;
  let lists: { realm_users: JsonText | JsonBytes; realm_non_active_users: JsonText | JsonBytes };
  // Decided once, not per listed user.
  if (canAccessAllUsers(state, user)) {
    // Kept between registers as UTF-8 bytes per viewer class: a hundred thousand user
    // texts joined and encoded per register were most of its cost.
    const cached = cachedLists(actor, user, args.client_gravatar);
    const own = () => {
      const values = state.profileValues.get(user.id);
      const profileData = values && values.size > 0 ? () => profileDataFor(state, user.id) : null;
      return registerUserJson(config, actor.realm, user, user, args.client_gravatar, profileData);
    };
    lists = {
      realm_users: withOwnEntry(cached.active, user.id, own),
      realm_non_active_users: withOwnEntry(cached.inactive, user.id, own),
    };
  } else {
    // A guest who sees only some users: its lists are its own, made from per-user text.
    // Clients without `user_list_incomplete` expect every user listed: those out of sight
    // (active or not) are listed among the active as Zulip's "Unknown user" placeholder.
    const placeholders = !hasCapability(args, 'user_list_incomplete');
    const active: string[] = [];
    const inactive: string[] = [];
    const ids = [...state.users.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      const u = state.users.get(id)!;
      if (!canAccessUser(state, user, u)) {
        if (placeholders) active.push(JSON.stringify(inaccessibleUserView(config, actor.realm, id)));
        continue;
      }
      (u.isActive ? active : inactive).push(userEntry(actor, user, u, args.client_gravatar));
    }
    lists = { realm_users: new JsonText(`[${active.join(',')}]`), realm_non_active_users: new JsonText(`[${inactive.join(',')}]`) };
  }
  const can = (name: string) => hasRealmPermission(state, user, name);
  const publicStreams = can('can_create_public_channel_group');
  const privateStreams = can('can_create_private_channel_group');
  const webPublicStreams = config.WEB_PUBLIC_STREAMS_ENABLED && can('can_create_web_public_channel_group');
  return {
    ...lists,
    cross_realm_bots: [],
    user_id: user.id,
    email: apiEmail(config, actor.realm, user),
    delivery_email: user.deliveryEmail,
    full_name: user.fullName,
    avatar_source: user.avatarSource,
    avatar_url: avatarUrl(user),
    avatar_url_medium: avatarUrl(user, true),
    is_admin: user.role <= Role.ADMINISTRATOR,
    is_owner: user.role === Role.OWNER,
    is_moderator: user.role <= Role.MODERATOR,
    is_guest: user.role === Role.GUEST,
    can_create_public_streams: publicStreams,
    can_create_private_streams: privateStreams,
    can_create_web_public_streams: webPublicStreams,
    can_create_streams: publicStreams || privateStreams || webPublicStreams,
    can_invite_others_to_realm: can('can_invite_users_group'),
  };
}
