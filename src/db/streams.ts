// Queries on channels and subscriptions.
import type { Sql } from './connect.js';
import type { Stream, Subscription } from '../model/types.js';

interface StreamRow {
  id: number;
  realm_id: number;
  name: string;
  description: string;
  rendered_description: string;
  date_created: Date;
  creator_id: number | null;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  is_archived: boolean;
  is_default: boolean;
  message_retention_days: number | null;
  folder_id: number | null;
  topics_policy: Stream['topicsPolicy'];
  settings: Record<string, unknown>;
  first_message_id: number | null;
  is_recently_active: boolean;
}

export const toStream = (r: StreamRow): Stream => ({
  id: r.id,
  realmId: r.realm_id,
  name: r.name,
  description: r.description,
  renderedDescription: r.rendered_description,
  dateCreated: r.date_created,
  creatorId: r.creator_id,
  inviteOnly: r.invite_only,
  isWebPublic: r.is_web_public,
  historyPublicToSubscribers: r.history_public_to_subscribers,
  isArchived: r.is_archived,
  isDefault: r.is_default,
  messageRetentionDays: r.message_retention_days,
  folderId: r.folder_id,
  topicsPolicy: r.topics_policy,
  settings: r.settings,
  firstMessageId: r.first_message_id ?? null,
  isRecentlyActive: r.is_recently_active ?? true,
});

interface SubscriptionRow {
  user_id: number;
  stream_id: number;
  active: boolean;
  color: string;
  is_muted: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
}

export const toSubscription = (r: SubscriptionRow): Subscription => ({
  userId: r.user_id,
  streamId: r.stream_id,
  active: r.active,
  color: r.color,
  isMuted: r.is_muted,
  pinToTop: r.pin_to_top,
  desktopNotifications: r.desktop_notifications,
  audibleNotifications: r.audible_notifications,
  pushNotifications: r.push_notifications,
  emailNotifications: r.email_notifications,
  wildcardMentionsNotify: r.wildcard_mentions_notify,
});

export async function loadRealmStreams(sql: Sql, realmId: number): Promise<Stream[]> {
  const rows = await sql<StreamRow[]>`SELECT * FROM streams WHERE realm_id = ${realmId} ORDER BY id`;
  return rows.map(toStream);
}

export async function loadRealmSubscriptions(sql: Sql, realmId: number): Promise<Subscription[]> {
  const rows = await sql<SubscriptionRow[]>`
    SELECT s.* FROM subscriptions s JOIN streams st ON st.id = s.stream_id WHERE st.realm_id = ${realmId}`;
  return rows.map(toSubscription);
}

export interface NewStream {
  realmId: number;
  name: string;
  description: string;
  renderedDescription: string;
  creatorId: number;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  isDefault: boolean;
  messageRetentionDays: number | null;
  folderId: number | null;
  topicsPolicy: Stream['topicsPolicy'];
  settings: Record<string, unknown>;
}

export async function insertStream(sql: Sql, s: NewStream): Promise<Stream> {
  const rows = await sql<StreamRow[]>`
    INSERT INTO streams (realm_id, name, description, rendered_description, creator_id, invite_only,
                         is_web_public, history_public_to_subscribers, is_default, message_retention_days,
                         folder_id, topics_policy, settings)
    VALUES (${s.realmId}, ${s.name}, ${s.description}, ${s.renderedDescription}, ${s.creatorId}, ${s.inviteOnly},
            ${s.isWebPublic}, ${s.historyPublicToSubscribers}, ${s.isDefault}, ${s.messageRetentionDays},
            ${s.folderId}, ${s.topicsPolicy}, ${sql.json(s.settings as never)})
    RETURNING *`;
  return toStream(rows[0]!);
}

/** Writes every mutable column of a channel from its in-memory form. */
export async function saveStream(sql: Sql, s: Stream): Promise<void> {
  await sql`
    UPDATE streams SET name = ${s.name}, description = ${s.description},
      rendered_description = ${s.renderedDescription}, invite_only = ${s.inviteOnly},
      is_web_public = ${s.isWebPublic}, history_public_to_subscribers = ${s.historyPublicToSubscribers},
      is_archived = ${s.isArchived}, is_default = ${s.isDefault},
      message_retention_days = ${s.messageRetentionDays}, folder_id = ${s.folderId},
      topics_policy = ${s.topicsPolicy}, settings = ${sql.json(s.settings as never)},
      first_message_id = ${s.firstMessageId}, is_recently_active = ${s.isRecentlyActive}
    WHERE id = ${s.id} AND realm_id = ${s.realmId}`;
}
