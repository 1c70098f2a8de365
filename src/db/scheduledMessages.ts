// Queries on scheduled messages and reminders (one table, told apart by delivery_type).
import type { Sql } from './connect.js';
import type { DeliveryType, ScheduledMessage } from '../model/later.js';

interface ScheduledMessageRow {
  id: number;
  realm_id: number;
  sender_id: number;
  delivery_type: number;
  stream_id: number | null;
  dm_user_ids: number[] | null;
  topic: string;
  content: string;
  rendered_content: string;
  client: string;
  scheduled_at: Date;
  read_by_sender: boolean;
  delivered: boolean;
  delivered_message_id: string | number | null;
  failed: boolean;
  failure_message: string | null;
  reminder_target_message_id: string | number | null;
}

const toScheduled = (r: ScheduledMessageRow): ScheduledMessage => ({
  id: r.id,
  realmId: r.realm_id,
  senderId: r.sender_id,
  deliveryType: r.delivery_type as DeliveryType,
  streamId: r.stream_id,
  dmUserIds: r.dm_user_ids,
  topic: r.topic,
  content: r.content,
  renderedContent: r.rendered_content,
  client: r.client,
  scheduledAt: r.scheduled_at,
  readBySender: r.read_by_sender,
  delivered: r.delivered,
  deliveredMessageId: r.delivered_message_id === null ? null : Number(r.delivered_message_id),
  failed: r.failed,
  failureMessage: r.failure_message,
  reminderTargetMessageId: r.reminder_target_message_id === null ? null : Number(r.reminder_target_message_id),
});

export type NewScheduledMessage = Omit<ScheduledMessage, 'id' | 'delivered' | 'deliveredMessageId' | 'failed' | 'failureMessage'>;

export async function insertScheduledMessage(sql: Sql, m: NewScheduledMessage): Promise<ScheduledMessage> {
  const rows = await sql<ScheduledMessageRow[]>`
    INSERT INTO scheduled_messages (realm_id, sender_id, delivery_type, stream_id, dm_user_ids, topic, content,
      rendered_content, client, scheduled_at, read_by_sender, reminder_target_message_id)
    VALUES (${m.realmId}, ${m.senderId}, ${m.deliveryType}, ${m.streamId}, ${m.dmUserIds}::int[], ${m.topic}, ${m.content},
      ${m.renderedContent}, ${m.client}, ${m.scheduledAt}, ${m.readBySender}, ${m.reminderTargetMessageId})
    RETURNING *`;
  return toScheduled(rows[0]!);
}

/** One of a user's rows of one kind (delivered ones included), or null. */
export async function findScheduledMessage(sql: Sql, realmId: number, senderId: number, type: DeliveryType, id: number): Promise<ScheduledMessage | null> {
  const rows = await sql<ScheduledMessageRow[]>`
    SELECT * FROM scheduled_messages
    WHERE id = ${id} AND realm_id = ${realmId} AND sender_id = ${senderId} AND delivery_type = ${type}`;
  return rows[0] ? toScheduled(rows[0]) : null;
}

/** A row of the realm by id, whoever sent it (delivery). */
export async function loadScheduledMessage(sql: Sql, realmId: number, id: number): Promise<ScheduledMessage | null> {
  const rows = await sql<ScheduledMessageRow[]>`SELECT * FROM scheduled_messages WHERE id = ${id} AND realm_id = ${realmId}`;
  return rows[0] ? toScheduled(rows[0]) : null;
}

/** A user's undelivered rows of one kind (failed ones included), by delivery time. */
export async function undeliveredOf(sql: Sql, realmId: number, senderId: number, type: DeliveryType): Promise<ScheduledMessage[]> {
  const rows = await sql<ScheduledMessageRow[]>`
    SELECT * FROM scheduled_messages
    WHERE realm_id = ${realmId} AND sender_id = ${senderId} AND delivery_type = ${type} AND NOT delivered
    ORDER BY scheduled_at, id`;
  return rows.map(toScheduled);
}

export interface ScheduledMessageChange {
  streamId: number | null;
  dmUserIds: number[] | null;
  topic: string;
  content: string;
  renderedContent: string;
  client: string;
  scheduledAt: Date;
}

/** An edit: the new values, and a failed row becomes pending again. Only undelivered rows change. */
export async function updateScheduledMessage(sql: Sql, id: number, c: ScheduledMessageChange): Promise<ScheduledMessage | null> {
  const rows = await sql<ScheduledMessageRow[]>`
    UPDATE scheduled_messages SET stream_id = ${c.streamId}, dm_user_ids = ${c.dmUserIds}::int[], topic = ${c.topic},
      content = ${c.content}, rendered_content = ${c.renderedContent}, client = ${c.client},
      scheduled_at = ${c.scheduledAt}, failed = false, failure_message = NULL
    WHERE id = ${id} AND NOT delivered
    RETURNING *`;
  return rows[0] ? toScheduled(rows[0]) : null;
}

export async function deleteScheduledMessage(sql: Sql, id: number): Promise<void> {
  await sql`DELETE FROM scheduled_messages WHERE id = ${id}`;
}

/**
 * The claim of a delivery: marks the row delivered unless it already is (or failed, or was
 * moved to another time). True when this call delivered it.
 */
export async function claimDelivered(sql: Sql, id: number, scheduledAt: Date, messageId: number): Promise<boolean> {
  const rows = await sql`
    UPDATE scheduled_messages SET delivered = true, delivered_message_id = ${messageId}
    WHERE id = ${id} AND NOT delivered AND NOT failed AND scheduled_at = ${scheduledAt}
    RETURNING id`;
  return rows.length === 1;
}

/** Records a refused delivery; null when the row was delivered, failed or moved meanwhile. */
export async function markFailed(sql: Sql, id: number, scheduledAt: Date, reason: string): Promise<ScheduledMessage | null> {
  const rows = await sql<ScheduledMessageRow[]>`
    UPDATE scheduled_messages SET failed = true, failure_message = ${reason}
    WHERE id = ${id} AND NOT delivered AND NOT failed AND scheduled_at = ${scheduledAt}
    RETURNING *`;
  return rows[0] ? toScheduled(rows[0]) : null;
}

export interface PendingDelivery {
  id: number;
  realmId: number;
  scheduledAt: Date;
}

/** Every row still to deliver (any realm) due before `until`: what the sweep wakes up. */
export async function pendingDeliveries(sql: Sql, until: Date, limit: number): Promise<PendingDelivery[]> {
  const rows = await sql<{ id: number; realm_id: number; scheduled_at: Date }[]>`
    SELECT s.id, s.realm_id, s.scheduled_at FROM scheduled_messages s JOIN realms r ON r.id = s.realm_id
    WHERE NOT s.delivered AND NOT s.failed AND s.scheduled_at <= ${until} AND NOT r.deactivated
    ORDER BY s.scheduled_at, s.id
    LIMIT ${limit}`;
  return rows.map((r) => ({ id: r.id, realmId: r.realm_id, scheduledAt: r.scheduled_at }));
}
