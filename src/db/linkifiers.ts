// Queries on realm linkifiers.
import type { Sql } from './connect.js';
import type { Linkifier } from '../model/types.js';

interface LinkifierRow {
  id: number;
  pattern: string;
  url_template: string;
}

const toLinkifier = (r: LinkifierRow): Linkifier => ({ id: r.id, pattern: r.pattern, urlTemplate: r.url_template });

/** The realm's linkifiers in their order (ties by id, as Zulip orders them). */
export async function loadRealmLinkifiers(sql: Sql, realmId: number): Promise<Linkifier[]> {
  const rows = await sql<LinkifierRow[]>`
    SELECT id, pattern, url_template FROM realm_linkifiers WHERE realm_id = ${realmId} ORDER BY sort_order, id`;
  return rows.map(toLinkifier);
}

/** Adds a linkifier after the realm's others. */
export async function insertLinkifier(sql: Sql, l: { realmId: number; pattern: string; urlTemplate: string }): Promise<Linkifier> {
  const rows = await sql<LinkifierRow[]>`
    INSERT INTO realm_linkifiers (realm_id, pattern, url_template, sort_order)
    SELECT ${l.realmId}, ${l.pattern}, ${l.urlTemplate}, coalesce(max(sort_order), -1) + 1
    FROM realm_linkifiers WHERE realm_id = ${l.realmId}
    RETURNING id, pattern, url_template`;
  return toLinkifier(rows[0]!);
}

export async function saveLinkifier(sql: Sql, realmId: number, l: Linkifier): Promise<void> {
  await sql`
    UPDATE realm_linkifiers SET pattern = ${l.pattern}, url_template = ${l.urlTemplate}
    WHERE id = ${l.id} AND realm_id = ${realmId}`;
}

export async function deleteLinkifier(sql: Sql, realmId: number, id: number): Promise<void> {
  await sql`DELETE FROM realm_linkifiers WHERE id = ${id} AND realm_id = ${realmId}`;
}

/** Stores a new order: the linkifier ids in their new sequence. */
export async function saveLinkifierOrder(sql: Sql, realmId: number, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    UPDATE realm_linkifiers AS l SET sort_order = o.ord - 1
    FROM unnest(${ids}::int[]) WITH ORDINALITY AS o(id, ord)
    WHERE l.id = o.id AND l.realm_id = ${realmId}`;
}
