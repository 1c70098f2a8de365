// Email address changes waiting for the confirmation link mailed to the new address.
import type { Sql } from './connect.js';

export interface EmailChange {
  key: string;
  realmId: number;
  userId: number;
  oldEmail: string;
  newEmail: string;
  expiresAt: Date;
}

export async function insertEmailChange(sql: Sql, c: EmailChange): Promise<void> {
  await sql`
    INSERT INTO email_changes (confirm_key, realm_id, user_id, old_email, new_email, expires_at)
    VALUES (${c.key}, ${c.realmId}, ${c.userId}, ${c.oldEmail}, ${c.newEmail}, ${c.expiresAt})`;
}

/** A pending change of this realm by its key. */
export async function findEmailChange(sql: Sql, realmId: number, key: string): Promise<EmailChange | null> {
  const rows = await sql<{ confirm_key: string; realm_id: number; user_id: number; old_email: string; new_email: string; expires_at: Date }[]>`
    SELECT * FROM email_changes WHERE confirm_key = ${key} AND realm_id = ${realmId} AND status = 0`;
  const r = rows[0];
  return r ? { key: r.confirm_key, realmId: r.realm_id, userId: r.user_id, oldEmail: r.old_email, newEmail: r.new_email, expiresAt: r.expires_at } : null;
}

/** Applies a confirmed change: the user's address, and the change marked done. */
export async function applyEmailChange(sql: Sql, c: EmailChange): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`UPDATE users SET delivery_email = ${c.newEmail} WHERE id = ${c.userId} AND realm_id = ${c.realmId}`;
    await tx`UPDATE email_changes SET status = 1 WHERE confirm_key = ${c.key}`;
  });
}
