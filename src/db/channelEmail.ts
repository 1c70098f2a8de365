// Tokens of channel email addresses: one per (channel, creator, sender), as Zulip's ChannelEmailAddress.
import type { Sql } from './connect.js';

export async function channelEmailToken(sql: Sql, realmId: number, streamId: number, creatorId: number, senderId: number, fresh: string): Promise<string> {
  const rows = await sql<{ email_token: string }[]>`
    INSERT INTO channel_email_addresses (realm_id, stream_id, creator_id, sender_id, email_token)
    VALUES (${realmId}, ${streamId}, ${creatorId}, ${senderId}, ${fresh})
    ON CONFLICT (stream_id, creator_id, sender_id) DO UPDATE SET stream_id = EXCLUDED.stream_id
    RETURNING email_token`;
  return rows[0]!.email_token;
}

export interface ChannelEmailTarget {
  realmId: number;
  streamId: number;
  creatorId: number;
  senderId: number;
}

export async function findChannelEmailToken(sql: Sql, token: string): Promise<ChannelEmailTarget | null> {
  const rows = await sql<{ realm_id: number; stream_id: number; creator_id: number; sender_id: number }[]>`
    SELECT realm_id, stream_id, creator_id, sender_id FROM channel_email_addresses WHERE email_token = ${token}`;
  const r = rows[0];
  return r ? { realmId: r.realm_id, streamId: r.stream_id, creatorId: r.creator_id, senderId: r.sender_id } : null;
}
