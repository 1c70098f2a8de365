// Per-user message flags. A row exists only where a user's flags differ from the default
// (a recipient's message starts unread and unflagged), or where the row itself records that
// the user received the message (the sender; recipients of a message moved between channels).
import type { Sql } from './connect.js';

export const Flag = {
  READ: 1,
  STARRED: 2,
  COLLAPSED: 4,
  MENTIONED: 8,
  STREAM_WILDCARD_MENTIONED: 16,
  TOPIC_WILDCARD_MENTIONED: 32,
  HAS_ALERT_WORD: 64,
  /** The user did not receive the message; the row holds flags set on it later (a star). */
  HISTORICAL: 128,
} as const;

/** API names in the order Zulip lists them. */
export const FLAG_NAMES: Array<[string, number]> = [
  ['read', Flag.READ],
  ['starred', Flag.STARRED],
  ['collapsed', Flag.COLLAPSED],
  ['mentioned', Flag.MENTIONED],
  ['stream_wildcard_mentioned', Flag.STREAM_WILDCARD_MENTIONED],
  ['topic_wildcard_mentioned', Flag.TOPIC_WILDCARD_MENTIONED],
  ['has_alert_word', Flag.HAS_ALERT_WORD],
  ['historical', Flag.HISTORICAL],
];

export const flagBit = (name: string): number | undefined => FLAG_NAMES.find(([n]) => n === name)?.[1];

/** Flag names of a bit set, plus the deprecated `wildcard_mentioned` Zulip still sends. */
export function flagNames(bits: number): string[] {
  const out: string[] = [];
  for (const [name, bit] of FLAG_NAMES) if (bits & bit) out.push(name);
  if (bits & (Flag.STREAM_WILDCARD_MENTIONED | Flag.TOPIC_WILDCARD_MENTIONED)) out.push('wildcard_mentioned');
  return out;
}

/** Every user's row for one message: user id → flags. */
export async function loadMessageFlagRows(sql: Sql, messageIds: number[]): Promise<Array<{ userId: number; messageId: number; flags: number }>> {
  if (messageIds.length === 0) return [];
  const rows = await sql<{ user_id: number; message_id: string; flags: number }[]>`
    SELECT user_id, message_id, flags FROM message_flags WHERE message_id = ANY(${messageIds}::int8[])`;
  return rows.map((r) => ({ userId: r.user_id, messageId: Number(r.message_id), flags: r.flags }));
}

/** Writes exact flag values for one user (rows created as needed). */
export async function writeFlags(sql: Sql, userId: number, entries: Array<{ messageId: number; flags: number }>): Promise<void> {
  if (entries.length === 0) return;
  await sql`
    INSERT INTO message_flags (user_id, message_id, flags)
    SELECT ${userId}, * FROM unnest(${entries.map((e) => e.messageId)}::int8[], ${entries.map((e) => e.flags)}::int[])
    ON CONFLICT (user_id, message_id) DO UPDATE SET flags = EXCLUDED.flags`;
}

/** Writes rows for many users (each row's exact flags). */
export async function writeFlagRows(sql: Sql, rows: Array<{ userId: number; messageId: number; flags: number }>): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    INSERT INTO message_flags (user_id, message_id, flags)
    SELECT * FROM unnest(${rows.map((r) => r.userId)}::int[], ${rows.map((r) => r.messageId)}::int8[], ${rows.map((r) => r.flags)}::int[])
    ON CONFLICT (user_id, message_id) DO UPDATE SET flags = EXCLUDED.flags`;
}

export async function deleteFlagRows(sql: Sql, rows: Array<{ userId: number; messageId: number }>): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    DELETE FROM message_flags f USING unnest(${rows.map((r) => r.userId)}::int[], ${rows.map((r) => r.messageId)}::int8[]) AS d(u, m)
    WHERE f.user_id = d.u AND f.message_id = d.m`;
}

export async function starredMessageIds(sql: Sql, userId: number): Promise<number[]> {
  const rows = await sql<{ message_id: string }[]>`
    SELECT message_id FROM message_flags WHERE user_id = ${userId} AND (flags & ${Flag.STARRED}) <> 0 ORDER BY message_id`;
  return rows.map((r) => Number(r.message_id));
}

/** Sets a bit on messages for one user, creating rows as needed (mark as read). */
export async function addFlagBit(sql: Sql, userId: number, messageIds: number[], bit: number): Promise<void> {
  if (messageIds.length === 0) return;
  await sql`
    INSERT INTO message_flags (user_id, message_id, flags)
    SELECT ${userId}, id, ${bit} FROM unnest(${messageIds}::int8[]) AS id
    ON CONFLICT (user_id, message_id) DO UPDATE SET flags = message_flags.flags | ${bit}`;
}
