// The initial state of POST /register, one section per fetch_event_types value.
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';
import type { RegisterArgs } from './args.js';
import type { NarrowTerm } from '../model/narrow.js';
import { fallbackSections, realmLinkifiersSection, realmPlaygroundsSection, realmEmojiSection, realmSection } from './sections/realm.js';
import { realmUserSection } from './sections/users.js';
import { alertWordsSection, legacyDisplaySettingsSection, legacyNotificationSettingsSection, presenceSection, realmUserSettingsDefaults, userSettingsSection } from './sections/settings.js';
import { realmUserGroupsJson } from './sections/groups.js';
import { realmUserSettingsDefaultsState } from '../views/realmSettings.js';
import { customProfileFieldTypes, formatField } from '../views/profileFields.js';
import { defaultStreamIds, subscriptionLists, visibleStreams } from '../views/channels.js';
import { maxMessageIdSection, mutedTopicsSection, recentPrivateConversationsSection, starredMessagesSection, unreadMsgsSection, userTopicsSection } from './sections/messages.js';
import { botsVisibleTo, formatBot } from '../views/bots.js';
import { listFolders } from '../views/folders.js';
import { laterSections } from './sections/later.js';
import { personalSections } from './sections/personal.js';

type SectionState = Record<string, unknown>;
/**
 * A section may be async (message data comes from the database). Every section is started in
 * the same turn as the queue's creation and awaited afterwards, so whatever a section reads
 * synchronously at its start is the state the queue's first event follows.
 */
type Section = (actor: RealmActor, user: User, args: RegisterArgs, narrow: NarrowTerm[]) => SectionState | Promise<SectionState>;

const sections: Record<string, Section> = {
  subscription(actor, user, args) {
    return subscriptionLists(actor.state, user, {
      includeSubscribers: args.include_subscribers,
      notificationSettingsNull: args.client_capabilities.notification_settings_null === true,
      includeArchived: args.client_capabilities.archived_channels === true,
    });
  },
  stream(actor, user, args) {
    return { streams: visibleStreams(actor.state, user, args.client_capabilities.archived_channels === true) };
  },
  default_streams(actor, user) {
    return { realm_default_streams: defaultStreamIds(actor.state, user) };
  },
  realm_user_groups(actor, _user, args) {
    return { realm_user_groups: realmUserGroupsJson(actor, args.client_capabilities.include_deactivated_groups === true) };
  },
  realm_bot(actor, user) {
    return { realm_bots: botsVisibleTo(actor, user).map((b) => formatBot(actor, b)) };
  },
  channel_folders(actor) {
    return { channel_folders: listFolders(actor, true) };
  },
  custom_profile_fields(actor) {
    const fields = [...actor.state.profileFields.values()].sort((a, b) => a.order - b.order || a.id - b.id);
    return { custom_profile_fields: fields.map(formatField), custom_profile_field_types: customProfileFieldTypes() };
  },
  realm_user_settings_defaults(actor) {
    // Every setting's default, over what the organization stored.
    const stored = realmUserSettingsDefaultsState(actor).realm_user_settings_defaults as Record<string, unknown>;
    return { realm_user_settings_defaults: realmUserSettingsDefaults(stored) };
  },
  // General parts (events engineer): the organization, its users, the caller's settings.
  realm: realmSection,
  realm_user: realmUserSection,
  user_settings: userSettingsSection,
  update_display_settings: legacyDisplaySettingsSection,
  update_global_notifications: legacyNotificationSettingsSection,
  alert_words: alertWordsSection,
  presence: presenceSection,
  // Messages: unread counts, stars, recent conversations, topic policies.
  message: maxMessageIdSection,
  update_message_flags: unreadMsgsSection,
  starred_messages: starredMessagesSection,
  recent_private_conversations: recentPrivateConversationsSection,
  user_topic: userTopicsSection,
  muted_topics: mutedTopicsSection,
  // Linkifiers and code playgrounds.
  realm_linkifiers: realmLinkifiersSection,
  realm_playgrounds: realmPlaygroundsSection,
  realm_emoji: realmEmojiSection,
  // Scheduled messages, reminders, drafts, saved snippets, navigation views.
  ...laterSections,
  // Muted users and user status.
  ...personalSections,
};

/** Every section by name; an entry in `sections` replaces the fallback of the same name. */
const allSections: Record<string, Section> = { ...fallbackSections, ...sections };

export async function initialState(
  actor: RealmActor,
  user: User,
  fetchTypes: Set<string> | null,
  args: RegisterArgs,
  narrow: NarrowTerm[],
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const parts: Array<SectionState | Promise<SectionState>> = [];
  for (const [name, section] of Object.entries(allSections)) {
    if (fetchTypes === null || fetchTypes.has(name)) parts.push(section(actor, user, args, narrow));
  }
  for (const part of await Promise.all(parts)) Object.assign(out, part);
  return out;
}
