// What clients must hear when a user is deactivated or reactivated, besides the user's own
// `realm_user` update: a deactivated user leaves every subscriber list, group membership and
// anonymous group setting a client holds; a reactivated one comes back to all of them (as
// Zulip's send_events_for_user_deactivation and do_reactivate_user tell clients).
import type { RealmActor } from '../../realm/actor.js';
import type { Stream, User } from '../../model/types.js';
import type { GroupSettingValue } from '../../permissions/groups.js';
import { formatGroupSetting } from '../../permissions/groups.js';
import { REALM_PERMISSION_SETTINGS } from '../../permissions/realmDefaults.js';
import { realmGroupSetting } from '../../permissions/realmSettings.js';
import { USER_GROUP_SETTINGS } from '../../permissions/groupPermissions.js';
import { CHANNEL_SETTING_NAMES, channelSetting } from '../../permissions/channelSettings.js';
import { metadataAudience } from '../../permissions/channelAccess.js';
import { groupSettingOf, isDirectSystemMember } from '../../views/groups.js';
import { hasCapability } from '../../events/shape.js';
import { realmUpdateDictEvent, userGroupMembersEvent, userGroupUpdateEvent } from '../../events/catalog/index.js';
import { channelChanged, publishPeerEvents } from '../channels/events.js';
import { usersWhoCannotAccess } from '../../permissions/userAccess.js';

const names = (value: GroupSettingValue, userId: number) => typeof value === 'object' && value.direct_members.includes(userId);

/** Channels the user is subscribed to (archived ones keep their subscriber lists unchanged). */
function subscribedChannels(actor: RealmActor, user: User): Stream[] {
  const out: Stream[] = [];
  for (const sub of actor.state.subsByUser.get(user.id)?.values() ?? []) {
    const stream = actor.state.streams.get(sub.streamId);
    if (sub.active && stream && !stream.isArchived) out.push(stream);
  }
  return out;
}

/** Channel settings naming the user in an anonymous group: its new value, to who sees the channel. */
function publishChannelSettingsNaming(actor: RealmActor, user: User): void {
  const { state } = actor;
  for (const stream of state.streams.values()) {
    for (const name of CHANNEL_SETTING_NAMES) {
      const value = channelSetting(state, stream, name);
      if (!names(value, user.id)) continue;
      const event = channelChanged(stream, name, formatGroupSetting(state, value));
      const audience = [...metadataAudience(state, stream)];
      // Archived channels are only in the data of clients that asked for them.
      actor.events.publish(stream.isArchived ? (q) => (hasCapability(q, 'archived_channels') ? event : null) : event, audience);
    }
  }
}

/** Ids of the groups the user is a direct member of; asked while the user is active. */
export function directGroupIds(actor: RealmActor, user: User): number[] {
  const out: number[] = [];
  for (const group of actor.state.groups.values()) {
    if (group.isSystemGroup ? isDirectSystemMember(actor.state, group, user) : group.members.has(user.id)) out.push(group.id);
  }
  return out;
}

/**
 * After a deactivation: the user leaves subscriber lists, and channel settings naming them.
 * `groupIds`: the groups the user was a direct member of (see directGroupIds).
 */
export function publishDeactivation(actor: RealmActor, user: User, groupIds: readonly number[]): void {
  publishPeerEvents(actor, 'peer_remove', new Map(subscribedChannels(actor, user).map((s) => [s, new Set([user.id])])));
  publishChannelSettingsNaming(actor, user);
  publishLeftGroupsToUnseeing(actor, user, groupIds);
}

/**
 * Clients drop a deactivated user from groups and anonymous group settings on its `realm_user`
 * update; users who cannot see the user (guests it has no direct messages with, where the
 * realm limits guests' sight) do not get that update, so they are told each group and setting
 * it left, as Zulip's send_events_for_user_deactivation does.
 */
function publishLeftGroupsToUnseeing(actor: RealmActor, user: User, groupIds: readonly number[]): void {
  const { state } = actor;
  const unseeing = usersWhoCannotAccess(state, user);
  if (unseeing.length === 0) return;
  for (const id of groupIds) actor.events.publish(userGroupMembersEvent('remove_members', id, [user.id]), unseeing);
  publishGroupSettingsNaming(actor, user, unseeing);
}

/** Realm and group settings whose anonymous group names the user: their value now, to `audience`. */
function publishGroupSettingsNaming(actor: RealmActor, user: User, audience: readonly number[]): void {
  const { state } = actor;
  for (const name of Object.keys(REALM_PERMISSION_SETTINGS)) {
    const value = realmGroupSetting(state, name);
    if (names(value, user.id)) actor.events.publish(realmUpdateDictEvent({ [name]: formatGroupSetting(state, value) }), audience);
  }
  for (const group of state.groups.values()) {
    for (const name of Object.keys(USER_GROUP_SETTINGS)) {
      const value = groupSettingOf(state, group, name);
      if (names(value, user.id)) actor.events.publish(userGroupUpdateEvent(group.id, { [name]: formatGroupSetting(state, value) }), audience);
    }
  }
}

/** After a reactivation: subscriber lists, group memberships and settings take the user back. */
export function publishReactivation(actor: RealmActor, user: User): void {
  publishPeerEvents(actor, 'peer_add', new Map(subscribedChannels(actor, user).map((s) => [s, new Set([user.id])])));
  const everyone = actor.state.activeUsers().map((u) => u.id);
  for (const id of directGroupIds(actor, user)) actor.events.publish(userGroupMembersEvent('add_members', id, [user.id]), everyone);
  publishGroupSettingsNaming(actor, user, everyone);
  publishChannelSettingsNaming(actor, user);
}
