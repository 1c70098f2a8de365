// Queries on messages and conversations, and the loading of a realm's messaging state.
import type { Sql } from './connect.js';
import type { RealmState } from '../model/realmState.js';
import type { EditHistoryEntry, MessageRecord } from '../model/messageState.js';
import { loadUserTopics } from './topics.js';
import { statementFence } from './statementFence.js';

interface MessageRow {
  id: string | number;
  realm_id: number;
  sender_id: number;
  recipient_id: number;
  stream_id: number | null;
  topic: string;
  content: string;
  rendered_content: string;
  date_sent: Date;
  last_edit_time: Date | null;
  last_moved_time: Date | null;
  edit_history: EditHistoryEntry[] | null;
  is_me_message: boolean;
  has_link: boolean;
  has_image: boolean;
  has_attachment: boolean;
  client: string;
  recipients_listed: boolean;
  mentions_stream_wildcard: boolean;
}

/** Every column but the search vector, qualified with the `m` alias. */
export const MESSAGE_COLUMNS = [
  'id', 'realm_id', 'sender_id', 'recipient_id', 'stream_id', 'topic', 'content', 'rendered_content',
  'date_sent', 'last_edit_time', 'last_moved_time', 'edit_history', 'is_me_message', 'has_link',
  'has_image', 'has_attachment', 'client', 'recipients_listed', 'mentions_stream_wildcard',
].map((c) => `m.${c}`);

export const toMessage = (r: MessageRow): MessageRecord => ({
  id: Number(r.id),
  realmId: r.realm_id,
  senderId: r.sender_id,
  recipientId: r.recipient_id,
  streamId: r.stream_id,
  topic: r.topic,
  content: r.content,
  renderedContent: r.rendered_content,
  dateSent: r.date_sent,
  lastEditTime: r.last_edit_time,
  lastMovedTime: r.last_moved_time,
  editHistory: r.edit_history,
  isMeMessage: r.is_me_message,
  hasLink: r.has_link,
  hasImage: r.has_image,
  hasAttachment: r.has_attachment,
  client: r.client,
  recipientsListed: r.recipients_listed,
  mentionsStreamWildcard: r.mentions_stream_wildcard,
});

/** Messages of a realm by id, in id order; ids of other realms are simply absent. */
export async function loadMessages(sql: Sql, realmId: number, ids: number[]): Promise<MessageRecord[]> {
  if (ids.length === 0) return [];
  const rows = await sql<MessageRow[]>`
    SELECT ${sql(MESSAGE_COLUMNS)} FROM messages m
    WHERE m.realm_id = ${realmId} AND m.id = ANY(${ids}::int8[]) ORDER BY m.id`;
  return rows.map(toMessage);
}

/** Draws `n` ids from the message id sequence (ascending). */
export async function reserveMessageIds(sql: Sql, n: number): Promise<number[]> {
  const rows = await sql<{ id: string }[]>`SELECT nextval('messages_id_seq') AS id FROM generate_series(1, ${n})`;
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** The conversation row of a channel or a set of participants, created on first use. */
export async function ensureConversation(
  sql: Sql,
  realmId: number,
  target: { streamId: number } | { userIds: number[] },
): Promise<number> {
  if ('streamId' in target) {
    const rows = await sql<{ id: number }[]>`
      INSERT INTO message_recipients (realm_id, stream_id) VALUES (${realmId}, ${target.streamId})
      ON CONFLICT (stream_id) DO UPDATE SET stream_id = EXCLUDED.stream_id RETURNING id`;
    return rows[0]!.id;
  }
  const rows = await sql<{ id: number }[]>`
    INSERT INTO message_recipients (realm_id, user_ids) VALUES (${realmId}, ${target.userIds}::int[])
    ON CONFLICT (realm_id, user_ids) WHERE user_ids IS NOT NULL DO UPDATE SET user_ids = EXCLUDED.user_ids
    RETURNING id`;
  return rows[0]!.id;
}

/** A message as written at send time: the row without the fields later edits and moves set. */
export type NewMessage = Omit<MessageRecord, 'lastEditTime' | 'lastMovedTime' | 'editHistory' | 'recipientsListed'> & {
  idempotencyKey: string | null;
};

export interface FlagRow {
  userId: number;
  messageId: number;
  flags: number;
}

export interface UserTopicRow {
  userId: number;
  streamId: number;
  topicName: string;
  visibilityPolicy: number;
  lastUpdated: Date;
}

/**
 * Writes a batch of sent messages, their flags rows and the topic policies the sends set, as
 * one statement (one round trip, one commit), also where the realm's writes are fenced.
 */
export async function insertMessageBatch(
  sql: Sql,
  messages: NewMessage[],
  flags: FlagRow[],
  userTopics: UserTopicRow[],
  firstInStream: Array<{ streamId: number; messageId: number }>,
): Promise<void> {
  // Where the realm's writes are fenced (a cluster), the statement carries the lease check
  // itself and runs alone: no BEGIN, check and COMMIT around it (see statementFence.ts). The
  // check is a column of the final count, which is one row whatever the batch inserted.
  const fence = statementFence(sql);
  // One array per column, unnested: the statement's text is the same whatever the batch size
  // (one prepared statement instead of one per size, each with 16 parameters per row), and
  // Postgres spends about a sixth less per row than on a multi-row VALUES list.
  const column = <T>(pick: (m: NewMessage) => T): T[] => messages.map(pick);
  // Booleans go as text: the driver would send an array of booleans as one boolean.
  const flag = (pick: (m: NewMessage) => boolean): string[] => messages.map((m) => (pick(m) ? 't' : 'f'));
  const flagPart = flags.length
    ? sql`, f AS (
        INSERT INTO message_flags (user_id, message_id, flags)
        SELECT * FROM unnest(${flags.map((f) => f.userId)}::int[], ${flags.map((f) => f.messageId)}::int8[], ${flags.map((f) => f.flags)}::int[])
        ON CONFLICT (user_id, message_id) DO UPDATE SET flags = message_flags.flags | EXCLUDED.flags
        RETURNING 1)`
    : sql``;
  const topicPart = userTopics.length
    ? sql`, t AS (
        INSERT INTO user_topics (user_id, stream_id, topic_name, visibility_policy, last_updated)
        SELECT * FROM unnest(${userTopics.map((t) => t.userId)}::int[], ${userTopics.map((t) => t.streamId)}::int[],
                             ${userTopics.map((t) => t.topicName)}::text[], ${userTopics.map((t) => t.visibilityPolicy)}::int2[],
                             ${userTopics.map((t) => t.lastUpdated.toISOString())}::text[]::timestamptz[])
        ON CONFLICT (user_id, stream_id, lower(topic_name)) DO UPDATE
          SET visibility_policy = EXCLUDED.visibility_policy, last_updated = EXCLUDED.last_updated
        RETURNING 1)`
    : sql``;
  const firstPart = firstInStream.length
    ? sql`, s AS (
        UPDATE streams SET first_message_id = x.m
        FROM unnest(${firstInStream.map((f) => f.streamId)}::int[], ${firstInStream.map((f) => f.messageId)}::int[]) AS x(s, m)
        WHERE streams.id = x.s AND streams.first_message_id IS NULL
        RETURNING 1)`
    : sql``;
  const statement = (db: Sql) => db`
    WITH m AS (
      INSERT INTO messages (id, realm_id, sender_id, recipient_id, stream_id, topic, content, rendered_content, date_sent,
                            is_me_message, has_link, has_image, has_attachment, client, idempotency_key, mentions_stream_wildcard)
      SELECT * FROM unnest(
        ${column((m) => m.id)}::int8[], ${column((m) => m.realmId)}::int[], ${column((m) => m.senderId)}::int[],
        ${column((m) => m.recipientId)}::int[], ${column((m) => m.streamId)}::int[], ${column((m) => m.topic)}::text[],
        ${column((m) => m.content)}::text[], ${column((m) => m.renderedContent)}::text[],
        ${column((m) => m.dateSent.toISOString())}::text[]::timestamptz[],
        ${flag((m) => m.isMeMessage)}::text[]::bool[], ${flag((m) => m.hasLink)}::text[]::bool[], ${flag((m) => m.hasImage)}::text[]::bool[],
        ${flag((m) => m.hasAttachment)}::text[]::bool[], ${column((m) => m.client)}::text[], ${column((m) => m.idempotencyKey)}::text[],
        ${flag((m) => m.mentionsStreamWildcard)}::text[]::bool[])
      RETURNING id) ${flagPart} ${topicPart} ${firstPart}
    SELECT count(*)${fence ? db`, ${fence.condition()} AS held` : db``} FROM m`;
  await (fence ? fence.run(statement) : statement(sql));
}

/** Which of these message ids of a realm are stored. */
export async function storedMessageIds(sql: Sql, realmId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await sql<{ id: string }[]>`SELECT id FROM messages WHERE realm_id = ${realmId} AND id = ANY(${ids}::int8[])`;
  return new Set(rows.map((r) => Number(r.id)));
}

/** The constraint a second message with a stored id runs into. */
export const MESSAGE_ID_KEY = 'messages_pkey';

/** The id of an earlier message sent by this user with this idempotency key. */
export async function messageIdForIdempotencyKey(sql: Sql, senderId: number, key: string): Promise<number | null> {
  const rows = await sql<{ id: string }[]>`
    SELECT id FROM messages WHERE sender_id = ${senderId} AND idempotency_key = ${key}`;
  return rows[0] ? Number(rows[0].id) : null;
}

/** Loads what the actor keeps in memory: conversations, topics, policies, the highest id. */
export async function loadMessageState(sql: Sql, state: RealmState): Promise<void> {
  const realmId = state.realm.id;
  const conversations = await sql<{ id: number; stream_id: number | null; user_ids: number[] | null; has_messages: boolean }[]>`
    SELECT r.id, r.stream_id, r.user_ids,
           CASE WHEN r.user_ids IS NULL THEN false
                ELSE EXISTS (SELECT 1 FROM messages m WHERE m.recipient_id = r.id) END AS has_messages
    FROM message_recipients r WHERE r.realm_id = ${realmId}`;
  for (const c of conversations) {
    const conversation = { id: c.id, streamId: c.stream_id, userIds: c.user_ids };
    state.messaging.putConversation(conversation);
    if (c.has_messages) state.messaging.noteDirectMessage(conversation);
  }
  const topics = await sql<{ stream_id: number; topic: string; id: string }[]>`
    SELECT DISTINCT ON (stream_id, lower(topic)) stream_id, topic, id FROM messages
    WHERE realm_id = ${realmId} AND stream_id IS NOT NULL
    ORDER BY stream_id, lower(topic), id DESC`;
  for (const t of topics) state.messaging.noteTopicMessage(t.stream_id, t.topic, Number(t.id));
  for (const t of await loadUserTopics(sql, realmId)) state.messaging.putUserTopic(t);
  const [max] = await sql<{ id: string | null }[]>`SELECT max(id) AS id FROM messages WHERE realm_id = ${realmId}`;
  state.maxMessageId = Math.max(state.maxMessageId, Number(max?.id ?? 0));
  state.messaging.publishedUpTo = state.maxMessageId;
}

/** The latest message of a topic (after messages left it), or null when it is empty now. */
export async function latestInTopic(sql: Sql, streamId: number, topic: string): Promise<{ name: string; maxId: number } | null> {
  const rows = await sql<{ topic: string; id: string }[]>`
    SELECT topic, id FROM messages WHERE stream_id = ${streamId} AND lower(topic) = lower(${topic})
    ORDER BY id DESC LIMIT 1`;
  return rows[0] ? { name: rows[0].topic, maxId: Number(rows[0].id) } : null;
}

/** Whether a topic has a message within the given id ranges. */
export async function topicHasMessageIn(sql: Sql, streamId: number, topic: string, ranges: Array<[number, number]>): Promise<boolean> {
  if (ranges.length === 0) return false;
  const rows = await sql`
    SELECT 1 FROM messages m WHERE m.stream_id = ${streamId} AND lower(m.topic) = lower(${topic})
      AND EXISTS (SELECT 1 FROM unnest(${ranges.map((r) => r[0])}::int8[], ${ranges.map((r) => r[1])}::int8[]) AS r(a, b)
                  WHERE m.id BETWEEN r.a AND r.b)
    LIMIT 1`;
  return rows.length > 0;
}

/** Distinct senders and reacters of a topic: Zulip's topic participants. */
export async function topicParticipantIds(sql: Sql, streamId: number, topic: string): Promise<number[]> {
  const rows = await sql<{ user_id: number }[]>`
    SELECT sender_id AS user_id FROM messages WHERE stream_id = ${streamId} AND lower(topic) = lower(${topic})
    UNION
    SELECT r.user_id FROM reactions r JOIN messages m ON m.id = r.message_id
    WHERE m.stream_id = ${streamId} AND lower(m.topic) = lower(${topic})`;
  return rows.map((r) => r.user_id);
}

export interface ContentChange {
  content: string;
  renderedContent: string;
  isMeMessage: boolean;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  mentionsStreamWildcard: boolean;
  lastEditTime: Date;
  editHistory: EditHistoryEntry[];
}

/** Writes a content edit of one message. */
export async function updateMessageContent(sql: Sql, id: number, c: ContentChange): Promise<void> {
  await sql`
    UPDATE messages SET content = ${c.content}, rendered_content = ${c.renderedContent},
      is_me_message = ${c.isMeMessage}, has_link = ${c.hasLink}, has_image = ${c.hasImage},
      has_attachment = ${c.hasAttachment}, mentions_stream_wildcard = ${c.mentionsStreamWildcard},
      last_edit_time = ${c.lastEditTime}, edit_history = ${sql.json(c.editHistory as never)}
    WHERE id = ${id}`;
}

/** Moves messages to a topic and/or channel, appending one history entry to each. */
export async function moveMessages(
  sql: Sql,
  ids: number[],
  move: { streamId: number; recipientId: number; topic: string; movedAt: Date | null; entry: EditHistoryEntry; recipientsListed: boolean },
): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    UPDATE messages SET stream_id = ${move.streamId}, recipient_id = ${move.recipientId}, topic = ${move.topic},
      last_moved_time = coalesce(${move.movedAt}::timestamptz, last_moved_time),
      recipients_listed = recipients_listed OR ${move.recipientsListed},
      edit_history = jsonb_build_array(${sql.json(move.entry as never)}::jsonb) || coalesce(edit_history, '[]'::jsonb)
    WHERE id = ANY(${ids}::int8[])`;
}

/** The oldest message left in a channel, or null. */
export async function firstMessageIdIn(sql: Sql, streamId: number): Promise<number | null> {
  const rows = await sql<Array<{ id: string | null }>>`SELECT min(id) AS id FROM messages WHERE stream_id = ${streamId}`;
  return rows[0]?.id == null ? null : Number(rows[0].id);
}

export async function deleteMessages(sql: Sql, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`DELETE FROM messages WHERE id = ANY(${ids}::int8[])`;
}
