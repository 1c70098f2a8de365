// Who may see and do what in a channel. Every check reads the realm's in-memory state.
//
// For other parts of the server:
// - canAccessChannelMetadata(state, user, stream): may know the channel exists (name,
//   description, settings). Spectators (user null) only for web-public channels of realms
//   with spectator access.
// - canAccessChannelContent(state, user, stream): may read its messages (subject to
//   historyRanges for protected history, see actions/subscriptionHistory.ts).
// - canAdministerChannel(state, user, stream): may edit its settings and archive it.
// - canSeeSubscribers(state, user, stream): may list its subscribers (peer events follow it).
// - canSubscribeOthers / canRemoveSubscribers(state, user, stream): may add / remove
//   other users.
// - metadataAudience / subscriberAudience(state, stream): user ids for event delivery.
// None of these look at is_archived: callers decide what an archived channel allows.
import type { RealmState } from '../model/realmState.js';
import type { Stream, User } from '../model/types.js';
import { hasChannelPermission, METADATA_GRANTING_SETTINGS } from './channelSettings.js';
import { hasRealmPermission } from './realmSettings.js';
import { isAdmin, isGuest } from '../model/roles.js';


/** Metadata access through can_administer_channel_group, can_add_subscribers_group or can_subscribe_group. */
export function hasMetadataAccessViaGroups(state: RealmState, user: User, stream: Stream): boolean {
  if (isGuest(user)) return false;
  return METADATA_GRANTING_SETTINGS.some((name) => hasChannelPermission(state, user, stream, name));
}

export function canAccessChannelMetadata(state: RealmState, user: User | null, stream: Stream): boolean {
  if (!user) return stream.isWebPublic && state.realm.settings.enable_spectator_access === true;
  if (!user.isActive) return false;
  if (stream.isWebPublic) return true;
  if (state.isSubscribed(user.id, stream.id)) return true;
  if (isGuest(user)) return false;
  if (!stream.inviteOnly) return true;
  if (isAdmin(user)) return true;
  return hasMetadataAccessViaGroups(state, user, stream);
}

export function canAccessChannelContent(state: RealmState, user: User | null, stream: Stream): boolean {
  if (!user) return stream.isWebPublic && state.realm.settings.enable_spectator_access === true;
  if (!user.isActive) return false;
  if (stream.isWebPublic) return true;
  if (state.isSubscribed(user.id, stream.id)) return true;
  if (isGuest(user)) return false;
  if (!stream.inviteOnly) return true;
  // Those who may subscribe themselves or others can read what they would join.
  return hasChannelPermission(state, user, stream, 'can_subscribe_group') || hasChannelPermission(state, user, stream, 'can_add_subscribers_group');
}

/** Organization administrators administer every channel; others through can_administer_channel_group. */
export function canAdministerChannel(state: RealmState, user: User, stream: Stream): boolean {
  if (!user.isActive) return false;
  if (isAdmin(user)) return true;
  return hasChannelPermission(state, user, stream, 'can_administer_channel_group');
}

export function canSeeSubscribers(state: RealmState, user: User, stream: Stream): boolean {
  if (!user.isActive) return false;
  if (stream.isWebPublic) return true;
  const subscribed = state.isSubscribed(user.id, stream.id);
  if (isGuest(user)) return subscribed;
  if (!stream.inviteOnly) return true;
  if (subscribed || isAdmin(user)) return true;
  return hasMetadataAccessViaGroups(state, user, stream);
}

/** Adding others to a channel the caller can read (the caller checks content access first). */
export function canSubscribeOthers(state: RealmState, user: User, stream: Stream): boolean {
  if (!user.isActive || isGuest(user)) return false;
  if (isAdmin(user)) return true;
  if (hasRealmPermission(state, user, 'can_add_subscribers_group')) return true;
  return (
    hasChannelPermission(state, user, stream, 'can_administer_channel_group') ||
    hasChannelPermission(state, user, stream, 'can_add_subscribers_group')
  );
}

/** Removing others: administrators anywhere; channel administrators; can_remove_subscribers_group with access. */
export function canRemoveSubscribers(state: RealmState, user: User, stream: Stream): boolean {
  if (!user.isActive) return false;
  if (isAdmin(user)) return true;
  if (isGuest(user)) return false;
  if (hasChannelPermission(state, user, stream, 'can_administer_channel_group')) return true;
  return canAccessChannelMetadata(state, user, stream) && hasChannelPermission(state, user, stream, 'can_remove_subscribers_group');
}

/** Active users who may see the channel exist: the audience of its stream events. */
export function metadataAudience(state: RealmState, stream: Stream): Set<number> {
  const out = new Set<number>();
  for (const u of state.users.values()) if (canAccessChannelMetadata(state, u, stream)) out.add(u.id);
  return out;
}

/** Active users who may see the channel's subscribers: the audience of its peer events. */
export function subscriberAudience(state: RealmState, stream: Stream): Set<number> {
  const out = new Set<number>();
  for (const u of state.users.values()) if (canSeeSubscribers(state, u, stream)) out.add(u.id);
  return out;
}
