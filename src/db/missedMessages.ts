// Missed-message emails: the messages waiting for a user's next email, what the email shows of
// them, and the Reply-To addresses that route a reply back into a conversation.
import type { Sql } from './connect.js';

/**
 * Adds messages to the user's waiting batch and returns when it is due: the batch already
 * waiting, or a new one due after the user's batching period.
 */
export async function addPendingMissedMessages(
  sql: Sql,
  realmId: number,
  userId: number,
  entries: { messageId: number; trigger: string }[],
  periodSeconds: number,
): Promise<Date> {
  return sql.begin(async (tx) => {
    const waiting = await tx<{ due_at: Date }[]>`SELECT min(due_at) AS due_at FROM missed_message_pending WHERE user_id = ${userId}`;
    const due = waiting[0]?.due_at ?? new Date(Date.now() + periodSeconds * 1000);
    for (const e of entries) {
      await tx`
        INSERT INTO missed_message_pending (realm_id, user_id, message_id, trigger, due_at)
        VALUES (${realmId}, ${userId}, ${e.messageId}, ${e.trigger}, ${due})
        ON CONFLICT DO NOTHING`;
    }
    return due;
  });
}

export interface PendingMissedMessage {
  messageId: number;
  trigger: string;
}

/** Takes (removes) the user's messages whose batch is due. */
export async function takeDueMissedMessages(sql: Sql, userId: number): Promise<PendingMissedMessage[]> {
  const rows = await sql<{ message_id: string; trigger: string }[]>`
    DELETE FROM missed_message_pending WHERE user_id = ${userId} AND due_at <= now() + interval '1 second'
    RETURNING message_id, trigger`;
  return rows.map((r) => ({ messageId: Number(r.message_id), trigger: r.trigger })).sort((a, b) => a.messageId - b.messageId);
}

/** The next batch still waiting for a user (after one was taken), if any. */
export async function nextMissedMessageDue(sql: Sql, userId: number): Promise<Date | null> {
  const rows = await sql<{ due_at: Date | null }[]>`SELECT min(due_at) AS due_at FROM missed_message_pending WHERE user_id = ${userId}`;
  return rows[0]?.due_at ?? null;
}

export interface MissedMessageDetail {
  id: number;
  senderId: number;
  senderName: string;
  streamId: number | null;
  streamName: string | null;
  topic: string;
  renderedContent: string;
  recipientId: number;
  /** Participants of a direct conversation (sender included). */
  userIds: number[] | null;
  dateSent: Date;
  /** The receiving user's flag bits (null: no row, no flag set). */
  flags: number | null;
}

export async function loadMissedMessageDetails(sql: Sql, userId: number, messageIds: number[]): Promise<MissedMessageDetail[]> {
  if (messageIds.length === 0) return [];
  const rows = await sql<
    {
      id: string; sender_id: number; sender_name: string; stream_id: number | null; stream_name: string | null; topic: string;
      rendered_content: string; recipient_id: number; user_ids: number[] | null; date_sent: Date; flags: number | null;
    }[]
  >`
    SELECT m.id, m.sender_id, u.full_name AS sender_name, m.stream_id, s.name AS stream_name, m.topic,
           m.rendered_content, m.recipient_id, r.user_ids, m.date_sent, f.flags
    FROM messages m
    JOIN users u ON u.id = m.sender_id
    JOIN message_recipients r ON r.id = m.recipient_id
    LEFT JOIN streams s ON s.id = m.stream_id
    LEFT JOIN message_flags f ON f.message_id = m.id AND f.user_id = ${userId}
    WHERE m.id = ANY(${messageIds}::bigint[])
    ORDER BY m.id`;
  return rows.map((r) => ({
    id: Number(r.id),
    senderId: r.sender_id,
    senderName: r.sender_name,
    streamId: r.stream_id,
    streamName: r.stream_name,
    topic: r.topic,
    renderedContent: r.rendered_content,
    recipientId: r.recipient_id,
    userIds: r.user_ids,
    dateSent: r.date_sent,
    flags: r.flags,
  }));
}

/** Names of users by id (participants of group conversations). */
export async function userNames(sql: Sql, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: number; full_name: string }[]>`SELECT id, full_name FROM users WHERE id = ANY(${ids}::int[])`;
  return new Map(rows.map((r) => [r.id, r.full_name]));
}

export async function insertMissedMessageAddress(sql: Sql, token: string, realmId: number, userId: number, messageId: number): Promise<void> {
  await sql`INSERT INTO missed_message_addresses (token, realm_id, user_id, message_id) VALUES (${token}, ${realmId}, ${userId}, ${messageId})`;
}

export interface MissedMessageAddress {
  realmId: number;
  userId: number;
  messageId: number;
}

export async function findMissedMessageAddress(sql: Sql, token: string): Promise<MissedMessageAddress | null> {
  const rows = await sql<{ realm_id: number; user_id: number; message_id: string }[]>`
    SELECT realm_id, user_id, message_id FROM missed_message_addresses WHERE token = ${token}`;
  const r = rows[0];
  return r ? { realmId: r.realm_id, userId: r.user_id, messageId: Number(r.message_id) } : null;
}

/** Users with a batch overdue before `before` (its wake-up was lost). */
export async function overdueMissedMessageUsers(sql: Sql, before: Date, limit: number): Promise<{ realmId: number; userId: number }[]> {
  const rows = await sql<{ realm_id: number; user_id: number }[]>`
    SELECT DISTINCT realm_id, user_id FROM missed_message_pending WHERE due_at < ${before} LIMIT ${limit}`;
  return rows.map((r) => ({ realmId: r.realm_id, userId: r.user_id }));
}
