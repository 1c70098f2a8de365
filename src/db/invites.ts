// Queries on reusable invitation links.
import type { Sql } from './connect.js';
import type { MultiuseInvite } from '../model/types.js';

interface InviteRow {
  id: number;
  realm_id: number;
  invite_key: string;
  referred_by: number;
  invited_as: number;
  stream_ids: number[];
  group_ids: number[];
  include_realm_default_subscriptions: boolean;
  created_at: Date;
  expires_at: Date | null;
  revoked: boolean;
}

const toInvite = (r: InviteRow): MultiuseInvite => ({
  id: r.id,
  realmId: r.realm_id,
  key: r.invite_key,
  referredBy: r.referred_by,
  invitedAs: r.invited_as,
  streamIds: r.stream_ids,
  groupIds: r.group_ids,
  includeRealmDefaultSubscriptions: r.include_realm_default_subscriptions,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revoked: r.revoked,
});

/** The realm's links that can still be used or listed (not revoked). */
export async function loadRealmInvites(sql: Sql, realmId: number): Promise<MultiuseInvite[]> {
  const rows = await sql<InviteRow[]>`SELECT * FROM multiuse_invites WHERE realm_id = ${realmId} AND NOT revoked ORDER BY id`;
  return rows.map(toInvite);
}

export async function insertInvite(sql: Sql, i: Omit<MultiuseInvite, 'id' | 'createdAt' | 'revoked'>): Promise<MultiuseInvite> {
  const rows = await sql<InviteRow[]>`
    INSERT INTO multiuse_invites (realm_id, invite_key, referred_by, invited_as, stream_ids, group_ids,
                                  include_realm_default_subscriptions, expires_at)
    VALUES (${i.realmId}, ${i.key}, ${i.referredBy}, ${i.invitedAs}, ${i.streamIds}, ${i.groupIds},
            ${i.includeRealmDefaultSubscriptions}, ${i.expiresAt})
    RETURNING *`;
  return toInvite(rows[0]!);
}

export async function revokeInvite(sql: Sql, realmId: number, id: number): Promise<void> {
  await sql`UPDATE multiuse_invites SET revoked = true WHERE id = ${id} AND realm_id = ${realmId}`;
}
