// Queries on subscriptions and the subscription history log.
import type { Sql } from './connect.js';
import type { Subscription } from '../model/types.js';

/** Inserts a subscription, or rewrites the row the user kept from an earlier subscription. */
export async function saveSubscription(sql: Sql, s: Subscription): Promise<void> {
  await sql`
    INSERT INTO subscriptions (user_id, stream_id, active, color, is_muted, pin_to_top, desktop_notifications,
                               audible_notifications, push_notifications, email_notifications, wildcard_mentions_notify)
    VALUES (${s.userId}, ${s.streamId}, ${s.active}, ${s.color}, ${s.isMuted}, ${s.pinToTop}, ${s.desktopNotifications},
            ${s.audibleNotifications}, ${s.pushNotifications}, ${s.emailNotifications}, ${s.wildcardMentionsNotify})
    ON CONFLICT (user_id, stream_id) DO UPDATE SET
      active = EXCLUDED.active, color = EXCLUDED.color, is_muted = EXCLUDED.is_muted,
      pin_to_top = EXCLUDED.pin_to_top, desktop_notifications = EXCLUDED.desktop_notifications,
      audible_notifications = EXCLUDED.audible_notifications, push_notifications = EXCLUDED.push_notifications,
      email_notifications = EXCLUDED.email_notifications, wildcard_mentions_notify = EXCLUDED.wildcard_mentions_notify`;
}

export type SubscriptionLogEvent = 'subscribed' | 'unsubscribed';

export interface SubscriptionLogEntry {
  userId: number;
  streamId: number;
  event: SubscriptionLogEvent;
  messageIdAt: number;
}

export async function insertSubscriptionLog(sql: Sql, entries: SubscriptionLogEntry[]): Promise<void> {
  for (const e of entries) {
    await sql`INSERT INTO subscription_log (user_id, stream_id, event, message_id_at)
              VALUES (${e.userId}, ${e.streamId}, ${e.event}, ${e.messageIdAt})`;
  }
}

/** One user's history on one channel, oldest first. */
export async function loadSubscriptionLog(sql: Sql, userId: number, streamId: number): Promise<SubscriptionLogEntry[]> {
  const rows = await sql<{ event: SubscriptionLogEvent; message_id_at: number }[]>`
    SELECT event, message_id_at FROM subscription_log
    WHERE user_id = ${userId} AND stream_id = ${streamId} ORDER BY id`;
  return rows.map((r) => ({ userId, streamId, event: r.event, messageIdAt: r.message_id_at }));
}
