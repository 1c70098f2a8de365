// Queries on channel folders.
import type { Sql } from './connect.js';
import type { ChannelFolder } from '../model/types.js';

interface FolderRow {
  id: number;
  realm_id: number;
  name: string;
  description: string;
  rendered_description: string;
  date_created: Date;
  creator_id: number | null;
  is_archived: boolean;
}

const toFolder = (r: FolderRow): ChannelFolder => ({
  id: r.id,
  realmId: r.realm_id,
  name: r.name,
  description: r.description,
  renderedDescription: r.rendered_description,
  dateCreated: r.date_created,
  creatorId: r.creator_id,
  isArchived: r.is_archived,
});

export async function loadRealmFolders(sql: Sql, realmId: number): Promise<ChannelFolder[]> {
  const rows = await sql<FolderRow[]>`SELECT * FROM channel_folders WHERE realm_id = ${realmId} ORDER BY id`;
  return rows.map(toFolder);
}

export async function insertFolder(
  sql: Sql,
  f: { realmId: number; name: string; description: string; renderedDescription: string; creatorId: number },
): Promise<ChannelFolder> {
  const rows = await sql<FolderRow[]>`
    INSERT INTO channel_folders (realm_id, name, description, rendered_description, creator_id)
    VALUES (${f.realmId}, ${f.name}, ${f.description}, ${f.renderedDescription}, ${f.creatorId})
    RETURNING *`;
  return toFolder(rows[0]!);
}

export async function saveFolder(sql: Sql, f: ChannelFolder): Promise<void> {
  await sql`
    UPDATE channel_folders SET name = ${f.name}, description = ${f.description},
      rendered_description = ${f.renderedDescription}, is_archived = ${f.isArchived}
    WHERE id = ${f.id} AND realm_id = ${f.realmId}`;
}
