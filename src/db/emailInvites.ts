// Queries on invitations sent by email, and the count of invitation emails of a realm's last
// day (the per-day limit).
import type { Sql } from './connect.js';
import type { EmailInvite } from '../model/types.js';
import { grantOfRow, rowOfGrant, type InviteGrantRow } from './inviteGrants.js';

export const InviteStatus = { PENDING: 0, USED: 1, REVOKED: 2 } as const;

interface Row extends InviteGrantRow {
  id: number;
  email: string;
  notify_referrer_on_join: boolean;
  invited_at: Date;
}

const toInvite = (r: Row): EmailInvite => ({
  ...grantOfRow(r),
  id: r.id,
  email: r.email,
  notifyReferrerOnJoin: r.notify_referrer_on_join,
  invitedAt: r.invited_at,
});

export async function loadPendingEmailInvites(sql: Sql, realmId: number): Promise<EmailInvite[]> {
  const rows = await sql<Row[]>`SELECT * FROM email_invites WHERE realm_id = ${realmId} AND status = ${InviteStatus.PENDING} ORDER BY id`;
  return rows.map(toInvite);
}

export async function insertEmailInvite(sql: Sql, i: Omit<EmailInvite, 'id' | 'invitedAt'>): Promise<EmailInvite> {
  const row = { ...rowOfGrant(i), email: i.email, notify_referrer_on_join: i.notifyReferrerOnJoin };
  const rows = await sql<Row[]>`INSERT INTO email_invites ${sql(row)} RETURNING *`;
  return toInvite(rows[0]!);
}

export async function setEmailInviteStatus(sql: Sql, realmId: number, ids: number[], status: number): Promise<void> {
  if (ids.length === 0) return;
  await sql`UPDATE email_invites SET status = ${status} WHERE realm_id = ${realmId} AND id = ANY(${ids}::int[])`;
}

/** Records invitation emails sent now (first sends and resends). */
export async function recordInvitationSends(sql: Sql, realmId: number, count: number): Promise<void> {
  if (count <= 0) return;
  await sql`INSERT INTO invitation_sends (realm_id) SELECT ${realmId} FROM generate_series(1, ${count})`;
}

export async function invitationSendsSince(sql: Sql, realmId: number, since: Date): Promise<number> {
  const rows = await sql<{ n: string }[]>`SELECT count(*) AS n FROM invitation_sends WHERE realm_id = ${realmId} AND sent_at > ${since}`;
  return Number(rows[0]?.n ?? 0);
}
