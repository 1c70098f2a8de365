// Queries on drafts.
import type { Sql } from './connect.js';
import type { Draft } from '../model/later.js';

interface DraftRow {
  id: number;
  user_id: number;
  stream_id: number | null;
  dm_user_ids: number[] | null;
  topic: string;
  content: string;
  last_edit_time: Date;
}

const toDraft = (r: DraftRow): Draft => ({
  id: r.id,
  userId: r.user_id,
  streamId: r.stream_id,
  dmUserIds: r.dm_user_ids,
  topic: r.topic,
  content: r.content,
  lastEditTime: r.last_edit_time,
});

export type DraftValues = Omit<Draft, 'id' | 'userId'>;

/** Several drafts of one user in one transaction, in the order given. */
export async function insertDrafts(sql: Sql, realmId: number, userId: number, drafts: DraftValues[]): Promise<Draft[]> {
  if (drafts.length === 0) return [];
  const out: Draft[] = [];
  await sql.begin(async (tx) => {
    for (const d of drafts) {
      const rows = await tx<DraftRow[]>`
        INSERT INTO drafts (realm_id, user_id, stream_id, dm_user_ids, topic, content, last_edit_time)
        VALUES (${realmId}, ${userId}, ${d.streamId}, ${d.dmUserIds}::int[], ${d.topic}, ${d.content}, ${d.lastEditTime})
        RETURNING id, user_id, stream_id, dm_user_ids, topic, content, last_edit_time`;
      out.push(toDraft(rows[0]!));
    }
  });
  return out;
}

export async function findDraft(sql: Sql, userId: number, id: number): Promise<Draft | null> {
  const rows = await sql<DraftRow[]>`
    SELECT id, user_id, stream_id, dm_user_ids, topic, content, last_edit_time FROM drafts WHERE id = ${id} AND user_id = ${userId}`;
  return rows[0] ? toDraft(rows[0]) : null;
}

export async function updateDraft(sql: Sql, id: number, d: DraftValues): Promise<Draft> {
  const rows = await sql<DraftRow[]>`
    UPDATE drafts SET stream_id = ${d.streamId}, dm_user_ids = ${d.dmUserIds}::int[], topic = ${d.topic}, content = ${d.content},
      last_edit_time = ${d.lastEditTime}
    WHERE id = ${id}
    RETURNING id, user_id, stream_id, dm_user_ids, topic, content, last_edit_time`;
  return toDraft(rows[0]!);
}

export async function deleteDraft(sql: Sql, id: number): Promise<void> {
  await sql`DELETE FROM drafts WHERE id = ${id}`;
}

export async function deleteUserDrafts(sql: Sql, userId: number): Promise<void> {
  await sql`DELETE FROM drafts WHERE user_id = ${userId}`;
}

/** A user's drafts, the most recently edited first. */
export async function draftsOf(sql: Sql, userId: number, limit: number | null = null): Promise<Draft[]> {
  const rows = await sql<DraftRow[]>`
    SELECT id, user_id, stream_id, dm_user_ids, topic, content, last_edit_time FROM drafts WHERE user_id = ${userId}
    ORDER BY last_edit_time DESC, id DESC
    ${limit === null ? sql`` : sql`LIMIT ${limit}`}`;
  return rows.map(toDraft);
}
