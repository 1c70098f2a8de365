// PATCH /streams/{stream_id}: every editable property of a channel, checked together before
// anything is written, then one write, then the events.
import { ApiError, badRequest, mustBeOwner } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { Stream, User } from '../../model/types.js';
import type { EventSource } from '../../events/hub.js';
import { formatGroupSetting, type GroupSettingValue } from '../../permissions/groups.js';
import { hasRealmPermission } from '../../permissions/realmSettings.js';
import { canAccessChannelContent, metadataAudience } from '../../permissions/channelAccess.js';
import { CHANNEL_GROUP_SETTINGS, CHANNEL_SETTING_NAMES, channelSetting } from '../../permissions/channelSettings.js';
import { applyGroupSettingChange } from '../../permissions/groupPermissions.js';
import { saveStream } from '../../db/streams.js';
import { channelHasNonEmptyTopicMessages } from '../../queries/messages.js';
import { streamPostPolicy, STREAM_POST_POLICY_ADMINS } from '../../views/channels.js';
import { renderContent } from '../messages/render.js';
import { cannotManageDefaultChannels, channelForAdministration, checkChannelName, checkPrivacyPolicy, normalizeDescription, parseRetentionDays, parseTopicsPolicy } from './channels.js';
import { publishDefaultStreams, publishStreamChange, channelCreated, channelChanged } from './events.js';
import { isAdmin, isOwner } from '../../model/roles.js';
import { hasCapability } from '../../events/shape.js';

export interface ChannelUpdate {
  description?: string;
  newName?: string;
  isPrivate?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefaultStream?: boolean;
  messageRetentionDays?: string | number;
  isArchived?: boolean;
  /** undefined: unchanged; null: no folder. */
  folderId?: number | null;
  topicsPolicy?: string;
  groupSettings: Record<string, { new: GroupSettingValue; old?: GroupSettingValue }>;
}

const contentAccessRequired = () => badRequest('Channel content access is required.');

/** Settings whose change needs the caller to read the channel, on any channel. */
const SETTINGS_NEEDING_CONTENT_ACCESS = new Set(['can_add_subscribers_group', 'can_remove_subscribers_group', 'can_subscribe_group']);

export function updateChannel(actor: RealmActor, user: User, streamId: number, u: ChannelUpdate): Promise<void> {
  return actor.exclusive(async () => {
    const { state } = actor;
    const stream = channelForAdministration(state, user, streamId);
    const next: Stream = { ...stream, settings: { ...stream.settings } };
    const hasContent = canAccessChannelContent(state, user, stream);

    // Privacy: the proposed combination must be valid, and the change must pass the creation policy.
    const privacyChange = u.isPrivate !== undefined || u.isWebPublic !== undefined || u.historyPublicToSubscribers !== undefined;
    const isPrivate = u.isPrivate ?? stream.inviteOnly;
    const isWebPublic = u.isWebPublic ?? stream.isWebPublic;
    const history = u.historyPublicToSubscribers ?? (u.isPrivate !== undefined ? !u.isPrivate : stream.historyPublicToSubscribers);
    const isDefault = u.isDefaultStream ?? stream.isDefault;
    if (isWebPublic && (!history || isPrivate)) throw badRequest('Invalid parameters');
    if (!isPrivate && !history) throw badRequest('Invalid parameters');
    if (isPrivate && isDefault) throw badRequest('A default channel cannot be private.');
    if (privacyChange && !hasContent) throw contentAccessRequired();
    if (u.isPrivate !== undefined) checkPrivacyPolicy(actor, user, { inviteOnly: u.isPrivate });
    if (u.isWebPublic === true) checkPrivacyPolicy(actor, user, { isWebPublic: true });
    next.inviteOnly = isPrivate;
    next.isWebPublic = isWebPublic;
    next.historyPublicToSubscribers = history;

    if (u.isDefaultStream !== undefined) {
      if (!isAdmin(user)) throw cannotManageDefaultChannels();
      next.isDefault = u.isDefaultStream;
    }
    if (u.messageRetentionDays !== undefined) {
      if (!isOwner(user)) throw mustBeOwner();
      next.messageRetentionDays = parseRetentionDays(u.messageRetentionDays);
    }
    if (u.isArchived === true) throw badRequest('Channels are archived with DELETE /streams/{stream_id}; only unarchiving is allowed here.');
    if (u.isArchived === false) {
      if (!stream.isArchived) throw badRequest('Channel is not currently deactivated');
      if (stream.inviteOnly && state.subscriberIds(stream.id).length === 0) throw badRequest('Channel is private and have no subscribers');
      next.isArchived = false;
      // Archived private channels could carry the contradictory web-public flag; drop it.
      if (next.inviteOnly) next.isWebPublic = false;
    }
    if (u.topicsPolicy !== undefined) {
      const policy = parseTopicsPolicy(u.topicsPolicy);
      if (!hasRealmPermission(state, user, 'can_set_topics_policy_group')) throw badRequest('Insufficient permission');
      if (policy === 'empty_topic_only' && (await channelHasNonEmptyTopicMessages(actor, stream.id))) {
        throw new ApiError(
          'BAD_REQUEST',
          'To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.',
          400,
        );
      }
      next.topicsPolicy = policy;
    }
    let renderedDescription: string | undefined;
    if (u.description !== undefined) {
      next.description = normalizeDescription(u.description);
      renderedDescription = next.description ? (await renderContent(actor, next.description, { senderId: user.id })).html : '';
      next.renderedDescription = renderedDescription;
    }
    if (u.newName !== undefined) {
      const name = checkChannelName(u.newName);
      if (name === stream.name) throw badRequest('Channel already has that name.');
      const other = state.streamByName(name);
      if (other && other.id !== stream.id) throw badRequest(`Channel '${name}' already exists`);
      next.name = name;
    }
    if (u.folderId !== undefined) {
      if (u.folderId !== null && !state.channelFolders.has(u.folderId)) {
        throw badRequest('Invalid channel folder ID');
      }
      next.folderId = u.folderId;
    }
    const changedSettings: string[] = [];
    for (const name of CHANNEL_SETTING_NAMES) {
      const change = u.groupSettings[name];
      if (!change) continue;
      const value = applyGroupSettingChange(state, name, channelSetting(state, stream, name), change, CHANNEL_GROUP_SETTINGS[name]!);
      if (value === null) continue;
      // Changing who may act on a private channel needs access to its content, as do the
      // subscriber-management settings anywhere.
      if ((stream.inviteOnly || SETTINGS_NEEDING_CONTENT_ACCESS.has(name)) && !hasContent) throw contentAccessRequired();
      next.settings[name] = value;
      changedSettings.push(name);
    }

    const before = metadataAudience(state, stream);
    await saveStream(actor.sql, next);
    state.putStream(next);
    publishChannelUpdate(actor, stream, next, u, changedSettings, before);
  });
}

function publishChannelUpdate(actor: RealmActor, old: Stream, next: Stream, u: ChannelUpdate, settings: string[], before: Set<number>): void {
  const { state } = actor;
  const events: EventSource[] = [];
  // Each event names the channel as it was called when that part of the change applied.
  const named = (name: string) => ({ ...next, name });
  if (u.isPrivate !== undefined || u.isWebPublic !== undefined || u.historyPublicToSubscribers !== undefined) {
    events.push(
      channelChanged(named(old.name), 'invite_only', next.inviteOnly, {
        history_public_to_subscribers: next.historyPublicToSubscribers,
        is_web_public: next.isWebPublic,
      }),
    );
  }
  if (old.messageRetentionDays !== next.messageRetentionDays) {
    events.push(channelChanged(named(old.name), 'message_retention_days', next.messageRetentionDays));
  }
  if (old.isArchived && !next.isArchived) {
    events.push((q) => (hasCapability(q, 'archived_channels') ? channelChanged(named(old.name), 'is_archived', false) : null));
    events.push((q) => (hasCapability(q, 'archived_channels') ? null : channelCreated(actor, next, true)));
  }
  if (old.topicsPolicy !== next.topicsPolicy) events.push(channelChanged(named(old.name), 'topics_policy', next.topicsPolicy));
  if (u.description !== undefined && old.description !== next.description) {
    events.push(
      channelChanged(named(old.name), 'description', next.description, { rendered_description: next.renderedDescription }),
    );
  }
  if (old.name !== next.name) events.push(channelChanged(named(old.name), 'name', next.name));
  if (old.folderId !== next.folderId) events.push(channelChanged(next, 'folder_id', next.folderId));
  for (const name of settings) {
    events.push(channelChanged(next, name, formatGroupSetting(state, next.settings[name] as GroupSettingValue)));
    if (name === 'can_send_message_group') {
      const [oldPolicy, newPolicy] = [streamPostPolicy(state, old), streamPostPolicy(state, next)];
      if (oldPolicy !== newPolicy) {
        events.push(channelChanged(next, 'stream_post_policy', newPolicy));
        events.push(channelChanged(next, 'is_announcement_only', newPolicy === STREAM_POST_POLICY_ADMINS));
      }
    }
  }
  publishStreamChange(actor, next, before, events);
  if (old.isDefault !== next.isDefault) publishDefaultStreams(actor);
}
