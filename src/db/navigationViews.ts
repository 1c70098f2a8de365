// Queries on navigation views.
import type { Sql } from './connect.js';
import type { NavigationView } from '../model/later.js';

interface ViewRow {
  id: number;
  user_id: number;
  fragment: string;
  is_pinned: boolean;
  name: string | null;
}

const toView = (r: ViewRow): NavigationView => ({ id: r.id, userId: r.user_id, fragment: r.fragment, isPinned: r.is_pinned, name: r.name });

export async function insertNavigationView(
  sql: Sql,
  realmId: number,
  userId: number,
  v: { fragment: string; isPinned: boolean; name: string | null },
): Promise<NavigationView> {
  const rows = await sql<ViewRow[]>`
    INSERT INTO navigation_views (realm_id, user_id, fragment, is_pinned, name)
    VALUES (${realmId}, ${userId}, ${v.fragment}, ${v.isPinned}, ${v.name})
    RETURNING id, user_id, fragment, is_pinned, name`;
  return toView(rows[0]!);
}

export async function updateNavigationView(sql: Sql, id: number, isPinned: boolean, name: string | null): Promise<void> {
  await sql`UPDATE navigation_views SET is_pinned = ${isPinned}, name = ${name} WHERE id = ${id}`;
}

export async function deleteNavigationView(sql: Sql, id: number): Promise<void> {
  await sql`DELETE FROM navigation_views WHERE id = ${id}`;
}

/** A user's navigation views, in the order they were added. */
export async function navigationViewsOf(sql: Sql, userId: number): Promise<NavigationView[]> {
  const rows = await sql<ViewRow[]>`
    SELECT id, user_id, fragment, is_pinned, name FROM navigation_views WHERE user_id = ${userId} ORDER BY id`;
  return rows.map(toView);
}
