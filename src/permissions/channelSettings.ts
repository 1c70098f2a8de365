// Channel-level permission settings: their defaults and who may hold them. Values live in
// Stream.settings keyed by setting name; validation is the shared group-setting code.
import type { RealmState } from '../model/realmState.js';
import type { Stream, User } from '../model/types.js';
import { systemGroup, type GroupSettingValue } from './groups.js';
import { checkGroupSettingValue, hasGroupPermission, type PermissionConfig } from './groupPermissions.js';

/** Zulip's Stream.stream_permission_group_settings; 'channel_creator' is an anonymous group of the creator. */
const setting = (defaultGroup: string, allowEveryone: boolean): PermissionConfig => ({
  defaultGroup,
  allowEveryone,
  requireSystemGroup: false,
  allowInternet: false,
  allowNobody: true,
  allowOwners: true,
});

/**
 * The channel settings of our feature level (406). Zulip added can_delete_any_message_group
 * and can_delete_own_message_group at 407 and can_create_topic_group at 441: none of them
 * exists here, so deleting is governed by the realm settings and anyone who may post may
 * start a topic.
 */
export const CHANNEL_GROUP_SETTINGS: Record<string, PermissionConfig> = {
  can_add_subscribers_group: setting('role:nobody', false),
  can_administer_channel_group: setting('channel_creator', false),
  can_move_messages_out_of_channel_group: setting('role:nobody', true),
  can_move_messages_within_channel_group: setting('role:nobody', true),
  can_remove_subscribers_group: setting('role:administrators', true),
  can_resolve_topics_group: setting('role:nobody', true),
  can_send_message_group: setting('role:everyone', true),
  can_subscribe_group: setting('role:nobody', false),
};

export const CHANNEL_SETTING_NAMES = Object.keys(CHANNEL_GROUP_SETTINGS);

/** Settings whose members may see the channel's metadata (name, description, subscribers). */
export const METADATA_GRANTING_SETTINGS = ['can_add_subscribers_group', 'can_administer_channel_group', 'can_subscribe_group'];

export function defaultChannelSetting(state: RealmState, name: string, creator: User | null): GroupSettingValue {
  const config = CHANNEL_GROUP_SETTINGS[name];
  if (!config) throw new Error(`unknown channel setting ${name}`);
  if (config.defaultGroup === 'channel_creator') {
    return creator ? { direct_members: [creator.id], direct_subgroups: [] } : systemGroup(state, 'role:nobody').id;
  }
  return systemGroup(state, config.defaultGroup).id;
}

/** A channel's value of a setting (channels stored before a setting existed get its default). */
export function channelSetting(state: RealmState, stream: Stream, name: string): GroupSettingValue {
  const stored = stream.settings[name];
  if (stored !== undefined) return stored as GroupSettingValue;
  return defaultChannelSetting(state, name, stream.creatorId === null ? null : (state.users.get(stream.creatorId) ?? null));
}

/** Whether a user holds a channel-level permission through the channel's setting. */
export function hasChannelPermission(state: RealmState, user: User, stream: Stream, name: string): boolean {
  return hasGroupPermission(state, user, channelSetting(state, stream, name), CHANNEL_GROUP_SETTINGS[name]!);
}

/** Validates a client's value for a channel setting and returns its canonical form. */
export function parseChannelGroupSetting(state: RealmState, name: string, raw: GroupSettingValue): GroupSettingValue {
  return checkGroupSettingValue(state, name, raw, CHANNEL_GROUP_SETTINGS[name]!);
}
