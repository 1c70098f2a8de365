// Queries on saved snippets.
import type { Sql } from './connect.js';
import type { SavedSnippet } from '../model/later.js';

interface SnippetRow {
  id: number;
  user_id: number;
  title: string;
  content: string;
  date_created: Date;
}

const toSnippet = (r: SnippetRow): SavedSnippet => ({ id: r.id, userId: r.user_id, title: r.title, content: r.content, dateCreated: r.date_created });

export async function insertSavedSnippet(sql: Sql, realmId: number, userId: number, title: string, content: string): Promise<SavedSnippet> {
  const rows = await sql<SnippetRow[]>`
    INSERT INTO saved_snippets (realm_id, user_id, title, content) VALUES (${realmId}, ${userId}, ${title}, ${content})
    RETURNING id, user_id, title, content, date_created`;
  return toSnippet(rows[0]!);
}

export async function findSavedSnippet(sql: Sql, userId: number, id: number): Promise<SavedSnippet | null> {
  const rows = await sql<SnippetRow[]>`
    SELECT id, user_id, title, content, date_created FROM saved_snippets WHERE id = ${id} AND user_id = ${userId}`;
  return rows[0] ? toSnippet(rows[0]) : null;
}

export async function updateSavedSnippet(sql: Sql, id: number, title: string, content: string): Promise<SavedSnippet> {
  const rows = await sql<SnippetRow[]>`
    UPDATE saved_snippets SET title = ${title}, content = ${content} WHERE id = ${id}
    RETURNING id, user_id, title, content, date_created`;
  return toSnippet(rows[0]!);
}

export async function deleteSavedSnippet(sql: Sql, id: number): Promise<void> {
  await sql`DELETE FROM saved_snippets WHERE id = ${id}`;
}

/** A user's snippets, oldest first. */
export async function savedSnippetsOf(sql: Sql, userId: number): Promise<SavedSnippet[]> {
  const rows = await sql<SnippetRow[]>`
    SELECT id, user_id, title, content, date_created FROM saved_snippets WHERE user_id = ${userId} ORDER BY id`;
  return rows.map(toSnippet);
}
