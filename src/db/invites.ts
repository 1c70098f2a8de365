// Queries on reusable invitation links.
import type { Sql } from './connect.js';
import type { MultiuseInvite } from '../model/types.js';
import { grantOfRow, rowOfGrant, type InviteGrantRow } from './inviteGrants.js';

interface InviteRow extends InviteGrantRow {
  id: number;
  created_at: Date;
  revoked: boolean;
}

const toInvite = (r: InviteRow): MultiuseInvite => ({
  ...grantOfRow(r),
  id: r.id,
  createdAt: r.created_at,
  revoked: r.revoked,
});

/** The realm's links that can still be used or listed (not revoked). */
export async function loadRealmInvites(sql: Sql, realmId: number): Promise<MultiuseInvite[]> {
  const rows = await sql<InviteRow[]>`SELECT * FROM multiuse_invites WHERE realm_id = ${realmId} AND NOT revoked ORDER BY id`;
  return rows.map(toInvite);
}

export async function insertInvite(sql: Sql, i: Omit<MultiuseInvite, 'id' | 'createdAt' | 'revoked'>): Promise<MultiuseInvite> {
  const rows = await sql<InviteRow[]>`INSERT INTO multiuse_invites ${sql(rowOfGrant(i))} RETURNING *`;
  return toInvite(rows[0]!);
}

export async function revokeInvite(sql: Sql, realmId: number, id: number): Promise<void> {
  await sql`UPDATE multiuse_invites SET revoked = true WHERE id = ${id} AND realm_id = ${realmId}`;
}
