// Queries on emoji reactions.
import type { Sql } from './connect.js';
import { type ReactionType } from '../model/types.js';

export interface Reaction {
  messageId: number;
  userId: number;
  emojiName: string;
  emojiCode: string;
  reactionType: ReactionType;
}

interface ReactionRow {
  message_id: string;
  user_id: number;
  emoji_name: string;
  emoji_code: string;
  reaction_type: ReactionType;
}

const toReaction = (r: ReactionRow): Reaction => ({
  messageId: Number(r.message_id),
  userId: r.user_id,
  emojiName: r.emoji_name,
  emojiCode: r.emoji_code,
  reactionType: r.reaction_type,
});

/** Reactions of these messages, oldest first. */
export async function loadReactions(sql: Sql, messageIds: number[]): Promise<Reaction[]> {
  if (messageIds.length === 0) return [];
  const rows = await sql<ReactionRow[]>`
    SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions
    WHERE message_id = ANY(${messageIds}::int8[]) ORDER BY id`;
  return rows.map(toReaction);
}

/** Inserts a reaction; false when the user already reacted with that emoji. */
export async function insertReaction(sql: Sql, r: Reaction): Promise<boolean> {
  const rows = await sql`
    INSERT INTO reactions (message_id, user_id, emoji_name, emoji_code, reaction_type)
    VALUES (${r.messageId}, ${r.userId}, ${r.emojiName}, ${r.emojiCode}, ${r.reactionType})
    ON CONFLICT (message_id, user_id, reaction_type, emoji_code) DO NOTHING RETURNING id`;
  return rows.length > 0;
}

/** Deletes a user's reaction; returns the deleted row (null when there was none). */
export async function deleteReaction(
  sql: Sql,
  key: { messageId: number; userId: number; reactionType: string; emojiCode: string },
): Promise<Reaction | null> {
  const rows = await sql<ReactionRow[]>`
    DELETE FROM reactions WHERE message_id = ${key.messageId} AND user_id = ${key.userId}
      AND reaction_type = ${key.reactionType} AND emoji_code = ${key.emojiCode}
    RETURNING message_id, user_id, emoji_name, emoji_code, reaction_type`;
  return rows[0] ? toReaction(rows[0]) : null;
}
