// Queries on realms.
import type { Sql } from './connect.js';
import { DEFAULT_REALM_SETTINGS, type RealmRecord, type RealmSettings } from '../model/types.js';

interface RealmRow {
  id: number;
  string_id: string;
  name: string;
  description: string;
  date_created: Date;
  deactivated: boolean;
  settings: Partial<RealmSettings>;
}

const toRealm = (r: RealmRow): RealmRecord => ({
  id: r.id,
  stringId: r.string_id,
  name: r.name,
  description: r.description,
  dateCreated: r.date_created,
  deactivated: r.deactivated,
  settings: { ...DEFAULT_REALM_SETTINGS, ...r.settings },
});

export async function findRealmBySubdomain(sql: Sql, subdomain: string): Promise<RealmRecord | null> {
  const rows = await sql<RealmRow[]>`SELECT * FROM realms WHERE string_id = ${subdomain}`;
  return rows[0] ? toRealm(rows[0]) : null;
}

export async function findRealmById(sql: Sql, id: number): Promise<RealmRecord | null> {
  const rows = await sql<RealmRow[]>`SELECT * FROM realms WHERE id = ${id}`;
  return rows[0] ? toRealm(rows[0]) : null;
}

export async function insertRealm(
  sql: Sql,
  r: { stringId: string; name: string; settings?: Partial<RealmSettings> },
): Promise<RealmRecord> {
  const rows = await sql<RealmRow[]>`
    INSERT INTO realms (string_id, name, settings)
    VALUES (${r.stringId}, ${r.name}, ${sql.json((r.settings ?? {}) as never)})
    RETURNING *`;
  return toRealm(rows[0]!);
}

export async function countRealms(sql: Sql): Promise<number> {
  const rows = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM realms`;
  return rows[0]!.n;
}
