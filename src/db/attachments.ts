// Queries on uploaded files (attachments), the messages that link them and download tokens.
import type { Sql } from './connect.js';

export interface AttachmentRow {
  id: number;
  realmId: number;
  ownerId: number;
  pathId: string;
  fileName: string;
  contentType: string;
  size: number;
  createTime: Date;
  width: number | null;
  height: number | null;
}

interface Row {
  id: number;
  realm_id: number;
  owner_id: number;
  path_id: string;
  file_name: string;
  content_type: string;
  size: string | number;
  create_time: Date;
  width: number | null;
  height: number | null;
}

const toAttachment = (r: Row): AttachmentRow => ({
  id: r.id,
  realmId: r.realm_id,
  ownerId: r.owner_id,
  pathId: r.path_id,
  fileName: r.file_name,
  contentType: r.content_type,
  size: Number(r.size),
  createTime: r.create_time,
  width: r.width,
  height: r.height,
});

export async function insertAttachment(
  sql: Sql,
  a: { realmId: number; ownerId: number; pathId: string; fileName: string; contentType: string; size: number },
): Promise<AttachmentRow> {
  const [row] = await sql<Row[]>`
    INSERT INTO attachments (realm_id, owner_id, path_id, file_name, content_type, size)
    VALUES (${a.realmId}, ${a.ownerId}, ${a.pathId}, ${a.fileName}, ${a.contentType}, ${a.size})
    RETURNING *`;
  return toAttachment(row!);
}

export async function attachmentByPath(sql: Sql, realmId: number, pathId: string): Promise<AttachmentRow | null> {
  const [row] = await sql<Row[]>`SELECT * FROM attachments WHERE realm_id = ${realmId} AND path_id = ${pathId}`;
  return row ? toAttachment(row) : null;
}

export async function attachmentById(sql: Sql, realmId: number, id: number): Promise<AttachmentRow | null> {
  const [row] = await sql<Row[]>`SELECT * FROM attachments WHERE realm_id = ${realmId} AND id = ${id}`;
  return row ? toAttachment(row) : null;
}

export async function attachmentsByPaths(sql: Sql, realmId: number, pathIds: string[]): Promise<AttachmentRow[]> {
  if (pathIds.length === 0) return [];
  const rows = await sql<Row[]>`SELECT * FROM attachments WHERE realm_id = ${realmId} AND path_id = ANY(${pathIds}::text[])`;
  return rows.map(toAttachment);
}

export async function attachmentsOfOwner(sql: Sql, ownerId: number): Promise<AttachmentRow[]> {
  const rows = await sql<Row[]>`SELECT * FROM attachments WHERE owner_id = ${ownerId} ORDER BY id`;
  return rows.map(toAttachment);
}

export async function deleteAttachmentRow(sql: Sql, id: number): Promise<void> {
  await sql`DELETE FROM attachments WHERE id = ${id}`;
}

/** Bytes of every upload of the organization. */
export async function realmUploadSpaceUsed(sql: Sql, realmId: number): Promise<number> {
  const [row] = await sql<{ used: string | null }[]>`SELECT sum(size) AS used FROM attachments WHERE realm_id = ${realmId}`;
  return Number(row?.used ?? 0);
}

export interface LinkedMessage {
  attachmentId: number;
  messageId: number;
  dateSent: Date;
  streamId: number | null;
}

/** The messages that link some attachments, oldest first. */
export async function messagesLinking(sql: Sql, attachmentIds: number[]): Promise<LinkedMessage[]> {
  if (attachmentIds.length === 0) return [];
  const rows = await sql<{ attachment_id: number; message_id: string; date_sent: Date; stream_id: number | null }[]>`
    SELECT am.attachment_id, am.message_id, m.date_sent, m.stream_id
    FROM attachment_messages am JOIN messages m ON m.id = am.message_id
    WHERE am.attachment_id = ANY(${attachmentIds}::int[])
    ORDER BY am.message_id`;
  return rows.map((r) => ({ attachmentId: r.attachment_id, messageId: Number(r.message_id), dateSent: r.date_sent, streamId: r.stream_id }));
}

export async function linkAttachments(sql: Sql, messageId: number, attachmentIds: number[]): Promise<void> {
  if (attachmentIds.length === 0) return;
  await sql`
    INSERT INTO attachment_messages (attachment_id, message_id)
    SELECT a, ${messageId} FROM unnest(${attachmentIds}::int[]) AS a
    ON CONFLICT DO NOTHING`;
}

/** Removes a message's links to attachments it no longer names; answers the ids unlinked. */
export async function unlinkAttachmentsExcept(sql: Sql, messageId: number, keepIds: number[]): Promise<number[]> {
  const rows = await sql<{ attachment_id: number }[]>`
    DELETE FROM attachment_messages WHERE message_id = ${messageId} AND NOT (attachment_id = ANY(${keepIds}::int[]))
    RETURNING attachment_id`;
  return rows.map((r) => r.attachment_id);
}

/** Uploads no message links, made before a time (the cleanup job's work list). */
export async function unclaimedAttachmentsBefore(sql: Sql, before: Date, limit: number): Promise<AttachmentRow[]> {
  const rows = await sql<Row[]>`
    SELECT a.* FROM attachments a
    WHERE a.create_time < ${before} AND NOT EXISTS (SELECT 1 FROM attachment_messages am WHERE am.attachment_id = a.id)
    ORDER BY a.id LIMIT ${limit}`;
  return rows.map(toAttachment);
}

export async function insertUrlToken(sql: Sql, token: string, attachmentId: number, expiresAt: Date): Promise<void> {
  await sql`INSERT INTO upload_url_tokens (token, attachment_id, expires_at) VALUES (${token}, ${attachmentId}, ${expiresAt})`;
}

/** The attachment a token still opens, in this realm. */
export async function attachmentByToken(sql: Sql, realmId: number, token: string): Promise<AttachmentRow | null> {
  const [row] = await sql<Row[]>`
    SELECT a.* FROM upload_url_tokens t JOIN attachments a ON a.id = t.attachment_id
    WHERE t.token = ${token} AND t.expires_at > now() AND a.realm_id = ${realmId}`;
  return row ? toAttachment(row) : null;
}

export async function deleteExpiredUrlTokens(sql: Sql): Promise<void> {
  await sql`DELETE FROM upload_url_tokens WHERE expires_at <= now()`;
}
