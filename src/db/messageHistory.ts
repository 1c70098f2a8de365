// Which channel messages a user received: the subscription log of every channel at once
// (the per-channel form is historyRanges in actions/subscriptionHistory.ts).
import type { Sql } from './connect.js';
import type { SubscriptionLogEvent } from './subscriptions.js';

export interface LogRow {
  streamId: number;
  event: SubscriptionLogEvent;
  messageIdAt: number;
}

/** One user's subscription log over all channels, oldest first. */
export async function loadUserSubscriptionLog(sql: Sql, userId: number): Promise<LogRow[]> {
  const rows = await sql<{ stream_id: number; event: SubscriptionLogEvent; message_id_at: number }[]>`
    SELECT stream_id, event, message_id_at FROM subscription_log WHERE user_id = ${userId} ORDER BY id`;
  return rows.map((r) => ({ streamId: r.stream_id, event: r.event, messageIdAt: r.message_id_at }));
}

/** Every user's log on one channel, oldest first. */
export async function loadChannelSubscriptionLog(sql: Sql, streamId: number): Promise<Array<LogRow & { userId: number }>> {
  const rows = await sql<{ user_id: number; event: SubscriptionLogEvent; message_id_at: number }[]>`
    SELECT user_id, event, message_id_at FROM subscription_log WHERE stream_id = ${streamId} ORDER BY id`;
  return rows.map((r) => ({ userId: r.user_id, streamId, event: r.event, messageIdAt: r.message_id_at }));
}
