// Queries on custom emoji.
import type { Sql } from './connect.js';
import type { RealmEmoji } from '../model/types.js';

interface Row {
  id: number;
  name: string;
  author_id: number | null;
  deactivated: boolean;
}

const toEmoji = (r: Row): RealmEmoji => ({ id: r.id, name: r.name, authorId: r.author_id, deactivated: r.deactivated });

export async function loadRealmEmoji(sql: Sql, realmId: number): Promise<RealmEmoji[]> {
  const rows = await sql<Row[]>`SELECT id, name, author_id, deactivated FROM realm_emoji WHERE realm_id = ${realmId} ORDER BY id`;
  return rows.map(toEmoji);
}

export async function insertRealmEmoji(sql: Sql, realmId: number, name: string, authorId: number): Promise<RealmEmoji> {
  const [row] = await sql<Row[]>`
    INSERT INTO realm_emoji (realm_id, name, author_id) VALUES (${realmId}, ${name}, ${authorId})
    RETURNING id, name, author_id, deactivated`;
  return toEmoji(row!);
}

export async function deactivateRealmEmoji(sql: Sql, realmId: number, id: number): Promise<void> {
  await sql`UPDATE realm_emoji SET deactivated = true WHERE realm_id = ${realmId} AND id = ${id}`;
}
