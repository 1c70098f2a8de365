// Queries on per-user features: muted users, user status, bot storage.
import type { Sql } from './connect.js';
import type { UserStatus } from '../model/types.js';

/** Every mute of a realm: user id → muted user id → when (seconds since the epoch). */
export async function loadRealmMutedUsers(sql: Sql, realmId: number): Promise<Map<number, Map<number, number>>> {
  const rows = await sql<{ user_id: number; muted_user_id: number; date_muted: Date }[]>`
    SELECT user_id, muted_user_id, date_muted FROM muted_users WHERE realm_id = ${realmId} ORDER BY date_muted, muted_user_id`;
  const out = new Map<number, Map<number, number>>();
  for (const r of rows) {
    let mine = out.get(r.user_id);
    if (!mine) out.set(r.user_id, (mine = new Map()));
    mine.set(r.muted_user_id, Math.floor(r.date_muted.getTime() / 1000));
  }
  return out;
}

export async function insertMutedUser(sql: Sql, realmId: number, userId: number, mutedUserId: number, when: Date): Promise<void> {
  await sql`
    INSERT INTO muted_users (realm_id, user_id, muted_user_id, date_muted) VALUES (${realmId}, ${userId}, ${mutedUserId}, ${when})
    ON CONFLICT DO NOTHING`;
}

export async function deleteMutedUser(sql: Sql, userId: number, mutedUserId: number): Promise<void> {
  await sql`DELETE FROM muted_users WHERE user_id = ${userId} AND muted_user_id = ${mutedUserId}`;
}

interface StatusRow {
  user_id: number;
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
}

const toStatus = (r: StatusRow): UserStatus => ({
  statusText: r.status_text,
  emojiName: r.emoji_name,
  emojiCode: r.emoji_code,
  reactionType: r.reaction_type,
});

export async function loadRealmUserStatuses(sql: Sql, realmId: number): Promise<Map<number, UserStatus>> {
  const rows = await sql<StatusRow[]>`
    SELECT user_id, status_text, emoji_name, emoji_code, reaction_type FROM user_status WHERE realm_id = ${realmId}`;
  return new Map(rows.map((r) => [r.user_id, toStatus(r)]));
}

export async function saveUserStatus(sql: Sql, realmId: number, userId: number, s: UserStatus): Promise<void> {
  await sql`
    INSERT INTO user_status (user_id, realm_id, status_text, emoji_name, emoji_code, reaction_type, updated_at)
    VALUES (${userId}, ${realmId}, ${s.statusText}, ${s.emojiName}, ${s.emojiCode}, ${s.reactionType}, now())
    ON CONFLICT (user_id) DO UPDATE SET status_text = EXCLUDED.status_text,
      emoji_name = EXCLUDED.emoji_name, emoji_code = EXCLUDED.emoji_code, reaction_type = EXCLUDED.reaction_type,
      updated_at = EXCLUDED.updated_at`;
}

/** A user's storage entries (all, or those of the given keys that exist). */
export async function botStorageEntries(sql: Sql, userId: number, keys: string[] | null): Promise<Map<string, string>> {
  const rows = keys === null
    ? await sql<{ key: string; value: string }[]>`SELECT key, value FROM bot_storage WHERE user_id = ${userId} ORDER BY key`
    : await sql<{ key: string; value: string }[]>`SELECT key, value FROM bot_storage WHERE user_id = ${userId} AND key = ANY(${keys}::text[])`;
  return new Map(rows.map((r) => [r.key, r.value]));
}

/** Characters a user's storage holds (keys and values), as Zulip counts its size. */
export async function botStorageSize(sql: Sql, userId: number): Promise<number> {
  const [row] = await sql<{ size: string | null }[]>`
    SELECT sum(char_length(key) + char_length(value)) AS size FROM bot_storage WHERE user_id = ${userId}`;
  return Number(row?.size ?? 0);
}

export async function putBotStorage(sql: Sql, userId: number, entries: Array<[string, string]>): Promise<void> {
  if (entries.length === 0) return;
  await sql`
    INSERT INTO bot_storage (user_id, key, value)
    SELECT ${userId}, * FROM unnest(${entries.map((e) => e[0])}::text[], ${entries.map((e) => e[1])}::text[])
    ON CONFLICT (user_id, key) DO UPDATE SET value = EXCLUDED.value`;
}

export async function deleteBotStorage(sql: Sql, userId: number, keys: string[]): Promise<void> {
  await sql`DELETE FROM bot_storage WHERE user_id = ${userId} AND key = ANY(${keys}::text[])`;
}
