// Queries on alert words.
import type { Sql } from './connect.js';

/** Every user's alert words in a realm, in the order they were added. */
export async function loadRealmAlertWords(sql: Sql, realmId: number): Promise<Map<number, string[]>> {
  const rows = await sql<{ user_id: number; word: string }[]>`
    SELECT user_id, word FROM alert_words WHERE realm_id = ${realmId} ORDER BY id`;
  const out = new Map<number, string[]>();
  for (const r of rows) {
    let list = out.get(r.user_id);
    if (!list) out.set(r.user_id, (list = []));
    list.push(r.word);
  }
  return out;
}

export async function insertAlertWords(sql: Sql, realmId: number, userId: number, words: string[]): Promise<void> {
  if (words.length === 0) return;
  const rows = words.map((word) => ({ realm_id: realmId, user_id: userId, word }));
  await sql`INSERT INTO alert_words ${sql(rows, 'realm_id', 'user_id', 'word')} ON CONFLICT DO NOTHING`;
}

/** Removes the given words, compared without regard to case. */
export async function deleteAlertWords(sql: Sql, userId: number, words: string[]): Promise<void> {
  if (words.length === 0) return;
  const lowered = words.map((w) => w.toLowerCase());
  await sql`DELETE FROM alert_words WHERE user_id = ${userId} AND lower(word) = ANY(${lowered})`;
}
