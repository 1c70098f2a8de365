// The journal of changes made outside the realm actors (the admin CLI).
import type { Sql } from './connect.js';

export interface RealmChange {
  id: string;
  realm_id: number;
  /** 'user': one user written (object_id); 'users': many users written at once (object_id null). */
  kind: 'user' | 'users';
  object_id: number | null;
}

export async function recordRealmChange(sql: Sql, realmId: number, kind: RealmChange['kind'], objectId: number | null): Promise<void> {
  await sql`INSERT INTO realm_changes (realm_id, kind, object_id) VALUES (${realmId}, ${kind}, ${objectId})`;
}

export async function changesAfter(sql: Sql, afterId: string): Promise<RealmChange[]> {
  return sql<RealmChange[]>`SELECT id::text AS id, realm_id, kind, object_id FROM realm_changes WHERE id > ${afterId} ORDER BY id LIMIT 1000`;
}

export async function latestChangeId(sql: Sql): Promise<string> {
  const rows = await sql<{ id: string }[]>`SELECT coalesce(max(id), 0)::text AS id FROM realm_changes`;
  return rows[0]!.id;
}
