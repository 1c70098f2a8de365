// Queries on code playgrounds.
import type { Sql } from './connect.js';
import type { CodePlayground } from '../model/types.js';

interface PlaygroundRow {
  id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

const toPlayground = (r: PlaygroundRow): CodePlayground => ({
  id: r.id,
  name: r.name,
  pygmentsLanguage: r.pygments_language,
  urlTemplate: r.url_template,
});

export async function loadRealmPlaygrounds(sql: Sql, realmId: number): Promise<CodePlayground[]> {
  const rows = await sql<PlaygroundRow[]>`
    SELECT id, name, pygments_language, url_template FROM realm_playgrounds WHERE realm_id = ${realmId} ORDER BY id`;
  return rows.map(toPlayground);
}

export async function insertPlayground(
  sql: Sql,
  p: { realmId: number; name: string; pygmentsLanguage: string; urlTemplate: string },
): Promise<CodePlayground> {
  const rows = await sql<PlaygroundRow[]>`
    INSERT INTO realm_playgrounds (realm_id, name, pygments_language, url_template)
    VALUES (${p.realmId}, ${p.name}, ${p.pygmentsLanguage}, ${p.urlTemplate})
    RETURNING id, name, pygments_language, url_template`;
  return toPlayground(rows[0]!);
}

export async function deletePlayground(sql: Sql, realmId: number, id: number): Promise<void> {
  await sql`DELETE FROM realm_playgrounds WHERE id = ${id} AND realm_id = ${realmId}`;
}
