// SQL for message access and narrows. Queries select from `messages m` joined with the
// viewer's flags row `f` (LEFT JOIN message_flags f ON f.message_id = m.id AND f.user_id = …).
import type { PendingQuery, Row } from 'postgres';
import type { Sql } from './connect.js';
import { Flag } from './flags.js';
import { MESSAGE_COLUMNS, toMessage } from './messages.js';
import type { MessageRecord } from '../model/messageState.js';

type Fragment = PendingQuery<Row[]>;

export type NarrowFilter = (
  | { kind: 'stream'; streamId: number }
  | { kind: 'streams'; streamIds: number[] }
  | { kind: 'topic'; topic: string }
  | { kind: 'sender'; userId: number }
  | { kind: 'conversations'; recipientIds: number[] }
  | { kind: 'direct' }
  | { kind: 'flag'; bit: number }
  | { kind: 'unread' }
  | { kind: 'mentioned' }
  | { kind: 'resolved' }
  | { kind: 'topics'; pairs: Array<[number, string]> }
  | { kind: 'muted'; streamIds: number[]; mutedTopics: Array<[number, string]>; visibleTopics: Array<[number, string]> }
  | { kind: 'has'; what: 'link' | 'image' | 'attachment' | 'reaction' }
  | { kind: 'id'; id: number }
  | { kind: 'search'; query: string }
  | { kind: 'mentions'; userId: number }
) & {
  /** `in:home` is the negation of `is:muted`. */
  negatedByDefault?: boolean;
};

export interface ResolvedNarrow {
  filters: Array<{ filter: NarrowFilter; negated: boolean }>;
  /** A channel operator limits the search to channels: their readable history, not just what was received. */
  channelScope: boolean;
  /** The text of the search terms, for highlighting. */
  search: string | null;
}

/** What the viewer may read, in SQL terms (see permissions/messageAccess.ts). */
export interface ViewerScope {
  userId: number;
  directConversationIds: number[];
  /** Subscription periods: channel ids and inclusive id bounds, index-aligned. */
  rangeStreams: number[];
  rangeFrom: number[];
  rangeTo: number[];
  fullHistoryStreamIds: number[];
}

export const RESOLVED_TOPIC_PREFIX = '✔ ';

const and = (sql: Sql, parts: Fragment[]): Fragment =>
  parts.length === 0 ? sql`true` : parts.slice(1).reduce((acc, p) => sql`${acc} AND ${p}`, sql`(${parts[0]!})`);

/** Messages the viewer received (conversation, subscription period, or own flags row). */
export function receivedSql(sql: Sql, v: ViewerScope): Fragment {
  return sql`(CASE WHEN m.stream_id IS NULL THEN m.recipient_id = ANY(${v.directConversationIds}::int[])
    ELSE (NOT m.recipients_listed AND EXISTS (
      SELECT 1 FROM unnest(${v.rangeStreams}::int[], ${v.rangeFrom}::int8[], ${v.rangeTo}::int8[]) AS r(s, a, b)
      WHERE r.s = m.stream_id AND m.id BETWEEN r.a AND r.b)) END
    OR (f.flags IS NOT NULL AND (f.flags & ${Flag.HISTORICAL}) = 0))`;
}

/** Messages the viewer may read: received, or in a channel whose history they may read. */
export function readableSql(sql: Sql, v: ViewerScope): Fragment {
  return sql`(${receivedSql(sql, v)} OR m.stream_id = ANY(${v.fullHistoryStreamIds}::int[]))`;
}

const pairsSql = (sql: Sql, pairs: Array<[number, string]>): Fragment =>
  sql`EXISTS (SELECT 1 FROM unnest(${pairs.map((p) => p[0])}::int[], ${pairs.map((p) => p[1])}::text[]) AS t(s, n)
              WHERE t.s = m.stream_id AND t.n = lower(m.topic))`;

/** Search text → the query's phrases in double quotes, which must appear literally. */
export function searchPhrases(query: string): string[] {
  return [...query.matchAll(/"([^"]+)"/g)].map((m) => m[1]!.trim()).filter(Boolean);
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function filterSql(sql: Sql, f: NarrowFilter, v: ViewerScope): Fragment {
  switch (f.kind) {
    case 'stream':
      return sql`m.stream_id = ${f.streamId}`;
    case 'streams':
      return sql`m.stream_id = ANY(${f.streamIds}::int[])`;
    case 'topic':
      return sql`(m.stream_id IS NOT NULL AND lower(m.topic) = lower(${f.topic}))`;
    case 'sender':
      return sql`m.sender_id = ${f.userId}`;
    case 'conversations':
      return sql`(m.stream_id IS NULL AND m.recipient_id = ANY(${f.recipientIds}::int[]))`;
    case 'direct':
      return sql`m.stream_id IS NULL`;
    case 'flag':
      return sql`(coalesce(f.flags, 0) & ${f.bit}) <> 0`;
    case 'unread':
      return sql`(${receivedSql(sql, v)} AND (coalesce(f.flags, 0) & ${Flag.READ}) = 0)`;
    case 'mentioned': {
      const bits = Flag.MENTIONED | Flag.STREAM_WILDCARD_MENTIONED | Flag.TOPIC_WILDCARD_MENTIONED;
      return sql`((coalesce(f.flags, 0) & ${bits}) <> 0 OR (m.mentions_stream_wildcard AND ${receivedSql(sql, v)}))`;
    }
    case 'resolved':
      return sql`(m.stream_id IS NOT NULL AND m.topic LIKE ${likeEscape(RESOLVED_TOPIC_PREFIX) + '%'})`;
    case 'topics':
      return pairsSql(sql, f.pairs);
    case 'muted':
      return sql`((m.stream_id = ANY(${f.streamIds}::int[]) AND NOT ${pairsSql(sql, f.visibleTopics)}) OR ${pairsSql(sql, f.mutedTopics)})`;
    case 'has':
      if (f.what === 'reaction') return sql`EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)`;
      if (f.what === 'link') return sql`m.has_link`;
      if (f.what === 'image') return sql`m.has_image`;
      return sql`m.has_attachment`;
    case 'id':
      return sql`m.id = ${f.id}`;
    case 'search': {
      const phrases = searchPhrases(f.query).map((p) => `%${likeEscape(p)}%`);
      const words = f.query.replace(/"/g, ' ');
      const phrase = phrases.length
        ? phrases.reduce((acc, p) => sql`${acc} AND (m.content ILIKE ${p} OR m.topic ILIKE ${p})`, sql`true`)
        : sql`true`;
      return sql`(m.search @@ plainto_tsquery('english', ${words}) AND ${phrase})`;
    }
    case 'mentions':
      return sql`EXISTS (SELECT 1 FROM message_flags g WHERE g.message_id = m.id AND g.user_id = ${f.userId}
                         AND (g.flags & ${Flag.MENTIONED}) <> 0)`;
  }
}

/** The WHERE condition of a narrow for a viewer, access included. */
export function narrowSql(sql: Sql, realmId: number, n: ResolvedNarrow, v: ViewerScope): Fragment {
  const parts: Fragment[] = [sql`m.realm_id = ${realmId}`, n.channelScope ? readableSql(sql, v) : receivedSql(sql, v)];
  for (const { filter, negated } of n.filters) {
    const cond = filterSql(sql, filter, v);
    parts.push(negated ? sql`NOT coalesce(${cond}, false)` : cond);
  }
  return and(sql, parts);
}

const HEADLINE_OPTIONS = 'StartSel="<span class=""highlight"">", StopSel=</span>, HighlightAll=true';

/** Highlighted rendered content and topic for a search (Postgres full-text matching). */
export function highlightSql(sql: Sql, search: string): Fragment {
  const words = search.replace(/"/g, ' ');
  return sql`ts_headline('english', m.rendered_content, plainto_tsquery('english', ${words}), ${HEADLINE_OPTIONS}) AS match_content,
    ts_headline('english', replace(replace(replace(m.topic, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'),
                plainto_tsquery('english', ${words}), ${HEADLINE_OPTIONS}) AS match_subject`;
}

export interface FetchedMessage {
  message: MessageRecord;
  /** The viewer's flags row, if any. */
  flags: number | undefined;
  matchContent?: string;
  matchSubject?: string;
}

/**
 * Messages matching a condition, with the viewer's flags row, ordered by id. `search`, when
 * given, adds the highlighted content and topic.
 */
export async function queryMessages(
  sql: Sql,
  viewerId: number,
  where: Fragment,
  opts: { order: 'asc' | 'desc'; limit: number; search: string | null },
): Promise<FetchedMessage[]> {
  const rows = await sql<Array<Record<string, unknown>>>`
    SELECT ${sql(MESSAGE_COLUMNS)}, f.flags AS viewer_flags ${opts.search !== null ? sql`, ${highlightSql(sql, opts.search)}` : sql``}
    FROM messages m LEFT JOIN message_flags f ON f.message_id = m.id AND f.user_id = ${viewerId}
    WHERE ${where}
    ORDER BY m.id ${opts.order === 'asc' ? sql`ASC` : sql`DESC`}
    LIMIT ${opts.limit}`;
  return rows.map((r) => ({
    message: toMessage(r as unknown as Parameters<typeof toMessage>[0]),
    flags: r.viewer_flags === null ? undefined : (r.viewer_flags as number),
    ...(opts.search !== null ? { matchContent: r.match_content as string, matchSubject: r.match_subject as string } : {}),
  }));
}

export interface UnreadRow {
  id: number;
  streamId: number | null;
  topic: string;
  recipientId: number;
  senderId: number;
  flags: number;
  streamWildcard: boolean;
}

/** The viewer's unread messages up to an id, newest first, at most `limit`. */
export async function unreadMessages(sql: Sql, realmId: number, v: ViewerScope, upTo: number, limit: number): Promise<UnreadRow[]> {
  const rows = await sql<Array<{ id: string; stream_id: number | null; topic: string; recipient_id: number; sender_id: number; flags: number | null; mentions_stream_wildcard: boolean }>>`
    SELECT m.id, m.stream_id, m.topic, m.recipient_id, m.sender_id, f.flags, m.mentions_stream_wildcard
    FROM messages m LEFT JOIN message_flags f ON f.message_id = m.id AND f.user_id = ${v.userId}
    WHERE m.realm_id = ${realmId} AND m.id <= ${upTo} AND ${receivedSql(sql, v)} AND (coalesce(f.flags, 0) & ${Flag.READ}) = 0
    ORDER BY m.id DESC LIMIT ${limit}`;
  return rows.map((r) => ({
    id: Number(r.id),
    streamId: r.stream_id,
    topic: r.topic,
    recipientId: r.recipient_id,
    senderId: r.sender_id,
    flags: r.flags ?? 0,
    streamWildcard: r.mentions_stream_wildcard,
  }));
}

/**
 * The newest message the viewer received, up to an id (Zulip's max_message_id_for_user: the
 * newest of the user's own message rows); null when there is none.
 */
export async function maxReceivedMessageId(sql: Sql, realmId: number, v: ViewerScope, upTo: number): Promise<number | null> {
  const rows = await sql<Array<{ id: string }>>`
    SELECT m.id FROM messages m LEFT JOIN message_flags f ON f.message_id = m.id AND f.user_id = ${v.userId}
    WHERE m.realm_id = ${realmId} AND m.id <= ${upTo} AND ${receivedSql(sql, v)}
    ORDER BY m.id DESC LIMIT 1`;
  return rows.length ? Number(rows[0]!.id) : null;
}

/** Ids of the viewer's unread messages matching an extra condition (mark as read). */
export async function unreadIds(sql: Sql, realmId: number, v: ViewerScope, extra: Fragment): Promise<number[]> {
  const rows = await sql<Array<{ id: string }>>`
    SELECT m.id FROM messages m LEFT JOIN message_flags f ON f.message_id = m.id AND f.user_id = ${v.userId}
    WHERE m.realm_id = ${realmId} AND ${receivedSql(sql, v)} AND (coalesce(f.flags, 0) & ${Flag.READ}) = 0 AND ${extra}
    ORDER BY m.id`;
  return rows.map((r) => Number(r.id));
}

/** Latest message id of each direct conversation, up to an id. */
export async function latestInConversations(sql: Sql, conversationIds: number[], upTo: number): Promise<Array<{ recipientId: number; maxId: number }>> {
  if (conversationIds.length === 0) return [];
  const rows = await sql<Array<{ recipient_id: number; max_id: string }>>`
    SELECT recipient_id, max(id) AS max_id FROM messages
    WHERE recipient_id = ANY(${conversationIds}::int[]) AND id <= ${upTo} GROUP BY recipient_id`;
  return rows.map((r) => ({ recipientId: r.recipient_id, maxId: Number(r.max_id) }));
}
