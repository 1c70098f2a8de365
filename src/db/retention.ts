// Queries of message retention: which messages of a realm are past their retention period.
import type { Sql } from './connect.js';
import type { MessageRecord } from '../model/messageState.js';
import { MESSAGE_COLUMNS, toMessage } from './messages.js';

/** Per channel: messages sent before `cutoff` expire. */
export interface ChannelCutoff {
  streamId: number;
  cutoff: Date;
}

type Row = Parameters<typeof toMessage>[0];

/** Up to `limit` expired channel messages, oldest id first. */
export async function expiredChannelMessages(sql: Sql, realmId: number, cutoffs: ChannelCutoff[], limit: number): Promise<MessageRecord[]> {
  if (cutoffs.length === 0) return [];
  const rows = await sql<Row[]>`
    SELECT ${sql(MESSAGE_COLUMNS)} FROM messages m
    JOIN unnest(${cutoffs.map((c) => c.streamId)}::int[], ${cutoffs.map((c) => c.cutoff.toISOString())}::timestamptz[]) AS p(stream_id, cutoff)
      ON m.stream_id = p.stream_id
    WHERE m.realm_id = ${realmId} AND m.date_sent < p.cutoff
    ORDER BY m.id LIMIT ${limit}`;
  return rows.map(toMessage);
}

/** Up to `limit` direct messages of a realm sent before `cutoff`, oldest id first. */
export async function expiredDirectMessages(sql: Sql, realmId: number, cutoff: Date, limit: number): Promise<MessageRecord[]> {
  const rows = await sql<Row[]>`
    SELECT ${sql(MESSAGE_COLUMNS)} FROM messages m
    WHERE m.realm_id = ${realmId} AND m.stream_id IS NULL AND m.date_sent < ${cutoff}
    ORDER BY m.id LIMIT ${limit}`;
  return rows.map(toMessage);
}
