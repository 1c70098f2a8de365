// Queries on browser sessions (see migrations/060_sessions.sql).
import type { Sql } from './connect.js';

export interface SessionRow {
  idHash: string;
  realmId: number;
  userId: number;
  csrfToken: string;
  authHash: string;
  expiresAt: Date;
}

export async function insertSession(sql: Sql, s: SessionRow): Promise<void> {
  await sql`
    INSERT INTO sessions (id_hash, realm_id, user_id, csrf_token, auth_hash, expires_at)
    VALUES (${s.idHash}, ${s.realmId}, ${s.userId}, ${s.csrfToken}, ${s.authHash}, ${s.expiresAt})`;
}

export async function findSession(sql: Sql, realmId: number, idHash: string): Promise<SessionRow | null> {
  const rows = await sql<{ user_id: number; csrf_token: string; auth_hash: string; expires_at: Date }[]>`
    SELECT user_id, csrf_token, auth_hash, expires_at FROM sessions
    WHERE id_hash = ${idHash} AND realm_id = ${realmId}`;
  const r = rows[0];
  if (!r) return null;
  return { idHash, realmId, userId: r.user_id, csrfToken: r.csrf_token, authHash: r.auth_hash, expiresAt: new Date(r.expires_at) };
}

export async function deleteSession(sql: Sql, idHash: string): Promise<void> {
  await sql`DELETE FROM sessions WHERE id_hash = ${idHash}`;
}

export async function deleteUserSessions(sql: Sql, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await sql`DELETE FROM sessions WHERE user_id = ANY(${userIds})`;
}

/** A user's sessions past their end; removed when the user logs in again. */
export async function deleteExpiredSessions(sql: Sql, userId: number, now: Date): Promise<void> {
  await sql`DELETE FROM sessions WHERE user_id = ${userId} AND expires_at <= ${now}`;
}

export async function updateSessionAuthHash(sql: Sql, idHash: string, authHash: string): Promise<void> {
  await sql`UPDATE sessions SET auth_hash = ${authHash} WHERE id_hash = ${idHash}`;
}
