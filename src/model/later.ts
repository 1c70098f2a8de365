// What a user keeps for later: scheduled messages and reminders, drafts, saved snippets and
// navigation views (Zulip's ScheduledMessage, Draft, SavedSnippet, NavigationView).

/** Zulip's ScheduledMessage.SEND_LATER and REMIND. */
export const SEND_LATER = 1;
export const REMIND = 2;
export type DeliveryType = typeof SEND_LATER | typeof REMIND;

/** Zulip's SCHEDULED_MESSAGE_LATE_CUTOFF_MINUTES: a message found this late is not sent any more. */
export const SCHEDULED_MESSAGE_LATE_CUTOFF_MS = 10 * 60 * 1000;

/** Zulip's MAX_DRAFTS_IN_REGISTER_RESPONSE. */
export const MAX_DRAFTS_IN_REGISTER_RESPONSE = 1000;

/** Zulip's SavedSnippet.MAX_TITLE_LENGTH. */
export const MAX_SAVED_SNIPPET_TITLE_LENGTH = 60;

/** The web app's views a user may pin or hide but not rename (Zulip's BUILT_IN_VIEW_FRAGMENTS). */
export const BUILT_IN_VIEW_FRAGMENTS = new Set([
  'inbox',
  'recent',
  'feed',
  'drafts',
  'narrow/has/reaction/sender/me',
  'narrow/is/mentioned',
  'narrow/is/starred',
]);

export interface ScheduledMessage {
  id: number;
  realmId: number;
  senderId: number;
  deliveryType: DeliveryType;
  /** A channel message's channel; null for a direct message. */
  streamId: number | null;
  /** A direct message's participants, sorted, the sender included; null for a channel message. */
  dmUserIds: number[] | null;
  topic: string;
  content: string;
  renderedContent: string;
  client: string;
  scheduledAt: Date;
  readBySender: boolean;
  delivered: boolean;
  deliveredMessageId: number | null;
  failed: boolean;
  failureMessage: string | null;
  reminderTargetMessageId: number | null;
}

export interface Draft {
  id: number;
  userId: number;
  streamId: number | null;
  /** Sorted participants, the user included; both this and streamId null: no recipient yet. */
  dmUserIds: number[] | null;
  topic: string;
  content: string;
  lastEditTime: Date;
}

export interface SavedSnippet {
  id: number;
  userId: number;
  title: string;
  content: string;
  dateCreated: Date;
}

export interface NavigationView {
  id: number;
  userId: number;
  fragment: string;
  isPinned: boolean;
  name: string | null;
}

/**
 * The `to` of a direct conversation as Zulip shows it to one of its participants: the other
 * participants, or the user alone for messages to oneself.
 */
export function otherParticipants(userIds: number[], userId: number): number[] {
  const others = userIds.filter((id) => id !== userId);
  return others.length > 0 ? others : [userId];
}
