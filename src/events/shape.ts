// How a client's declared capabilities change what it receives. Zulip clients announce them
// in POST /register (`client_capabilities`); events and the initial state follow them. Actions
// that emit events use these helpers inside a per-queue publish function, e.g.
//   actor.events.publish((q) => ({ type: 'typing', ..., topic: topicForQueue(q, topic) }), ids)
// and register sections use the same helpers with the register arguments.
import type { EventQueue } from './queue.js';
import type { ServerEvent } from './catalog/index.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../model/limits.js';

export type ClientCapability =
  | 'notification_settings_null'
  | 'bulk_message_deletion'
  | 'user_avatar_url_field_optional'
  | 'stream_typing_notifications'
  | 'user_settings_object'
  | 'linkifier_url_template'
  | 'user_list_incomplete'
  | 'include_deactivated_groups'
  | 'archived_channels'
  | 'empty_topic_name';

/** A queue, or the parsed POST /register arguments (for the initial state). */
export type CapabilityHolder = EventQueue | { client_capabilities: Record<string, boolean> };

export function hasCapability(holder: CapabilityHolder, capability: ClientCapability): boolean {
  const caps = 'opts' in holder ? holder.opts.clientCapabilities : holder.client_capabilities;
  return caps[capability] === true;
}

/** The topic as this client shows it: without `empty_topic_name`, "" becomes the display name. */
export function topicForQueue(holder: CapabilityHolder, topic: string): string {
  return topic === '' && !hasCapability(holder, 'empty_topic_name') ? EMPTY_TOPIC_DISPLAY_NAME : topic;
}


/** With `bulk_message_deletion`, one delete_message event lists `message_ids`; else one per message. */
export const wantsBulkDeletion = (h: CapabilityHolder) => hasCapability(h, 'bulk_message_deletion');

/** With `notification_settings_null`, per-channel notification settings stay null (= inherit). */
export const notificationSettingsNull = (h: CapabilityHolder) => hasCapability(h, 'notification_settings_null');

/** Without `stream_typing_notifications`, channel typing events are not delivered. */
export const wantsStreamTyping = (h: CapabilityHolder) => hasCapability(h, 'stream_typing_notifications');

/** Without `user_settings_object`, settings changes also arrive in the two legacy event forms. */
export const usesUserSettingsObject = (h: CapabilityHolder) => hasCapability(h, 'user_settings_object');

/** Without `linkifier_url_template`, `realm_linkifiers` is [] and no linkifier events arrive. */
export const wantsLinkifierUrlTemplate = (h: CapabilityHolder) => hasCapability(h, 'linkifier_url_template');

/** Without `archived_channels`, archived channels are left out of channel data and events. */
export const wantsArchivedChannels = (h: CapabilityHolder) => hasCapability(h, 'archived_channels');

/** Without `include_deactivated_groups`, deactivated groups are left out. */
export const wantsDeactivatedGroups = (h: CapabilityHolder) => hasCapability(h, 'include_deactivated_groups');

/** With `user_avatar_url_field_optional`, the server may omit `avatar_url` from user objects. */
export const avatarUrlOptional = (h: CapabilityHolder) => hasCapability(h, 'user_avatar_url_field_optional');

/**
 * Rules a queue applies to every event, whoever emits it: the narrow on message events,
 * capability-gated event types.
 */
export function acceptsEvent(queue: EventQueue, event: ServerEvent): boolean {
  switch (event.type) {
    case 'message':
      return queue.messageFilter === null || queue.messageFilter(event);
    case 'typing':
      return event.message_type !== 'stream' || wantsStreamTyping(queue);
    case 'update_display_settings':
    case 'update_global_notifications':
      return !usesUserSettingsObject(queue);
    default:
      return true;
  }
}
