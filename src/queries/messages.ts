// Reading messages: GET /messages (anchors, narrows), GET /messages/{id}, matches_narrow.
// Reads go to the database; every query carries the viewer's access condition.
import { badRequest } from '../model/errors.js';
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';
import type { MessageRecord } from '../model/messageState.js';
import { formatMessage, withInaccessibleSender, type MessageViewOptions } from '../views/messages.js';
import { senderHiddenFrom } from '../permissions/userAccess.js';
import { Flag, flagNames } from '../db/flags.js';
import { loadReactions, type Reaction } from '../db/reactions.js';
import type { PendingQuery, Row } from 'postgres';
import { maxReceivedMessageId, narrowSql, queryMessages, readableSql, receivedSql, type FetchedMessage, type ViewerScope } from '../db/narrow.js';
import { receivedMessage, type Reader } from '../permissions/messageAccess.js';
import { loadReader } from './readers.js';
import { topicLinksFor } from '../views/topicLinks.js';
import { resolveNarrow, type RawNarrow } from './narrow.js';

/** Zulip's MAX_MESSAGES_PER_FETCH. */
export const MAX_MESSAGES_PER_FETCH = 5000;
/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the anchor reported for `newest`. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;

export function viewerScope(reader: Reader): ViewerScope {
  const rangeStreams: number[] = [];
  const rangeFrom: number[] = [];
  const rangeTo: number[] = [];
  for (const [streamId, ranges] of reader.ranges) {
    for (const [a, b] of ranges) {
      rangeStreams.push(streamId);
      rangeFrom.push(a);
      rangeTo.push(b);
    }
  }
  return {
    userId: reader.user.id,
    directConversationIds: reader.directConversationIds,
    rangeStreams,
    rangeFrom,
    rangeTo,
    fullHistoryStreamIds: reader.fullHistoryStreamIds,
  };
}

/** The viewer's flags on a message: their row, plus what follows from receiving it or not. */
export function viewerFlags(reader: Reader, m: MessageRecord, row: number | undefined): number {
  let bits = row ?? 0;
  if (!receivedMessage(reader, m, row)) bits |= Flag.READ | Flag.HISTORICAL;
  else if (m.mentionsStreamWildcard && m.streamId !== null) bits |= Flag.STREAM_WILDCARD_MENTIONED;
  return bits;
}

function groupReactions(reactions: Reaction[]): Map<number, Reaction[]> {
  const out = new Map<number, Reaction[]>();
  for (const r of reactions) {
    let list = out.get(r.messageId);
    if (!list) out.set(r.messageId, (list = []));
    list.push(r);
  }
  return out;
}

async function formatFetched(actor: RealmActor, reader: Reader, rows: FetchedMessage[], opts: MessageViewOptions) {
  const reactions = groupReactions(await loadReactions(actor.sql, rows.map((r) => r.message.id)));
  return rows.map((r) => {
    const links = r.message.streamId === null ? [] : topicLinksFor(actor, r.message.topic);
    let out = formatMessage(actor, reader.user, r.message, reactions.get(r.message.id) ?? [], opts, links);
    if (senderHiddenFrom(actor.state, reader.user, r.message)) out = withInaccessibleSender(actor, out);
    out.flags = flagNames(viewerFlags(reader, r.message, r.flags));
    if (r.matchContent !== undefined) {
      out.match_content = r.matchContent;
      out.match_subject = r.matchSubject;
    }
    return out;
  });
}

export interface RangeInput {
  anchor: string | undefined;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
  narrow: RawNarrow;
  useFirstUnreadAnchor: boolean;
}

export interface GetMessagesInput extends RangeInput {
  messageIds: number[] | undefined;
  view: MessageViewOptions;
}

export interface FetchedRange {
  rows: FetchedMessage[];
  anchor: number;
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
}

/** The messages of a narrow around an anchor, as Zulip's GET /messages picks them. */
export async function fetchRange(actor: RealmActor, reader: Reader, input: RangeInput): Promise<FetchedRange> {
  const user = reader.user;
  const scope = viewerScope(reader);
  const narrow = resolveNarrow(actor, user, input.narrow);
  const sql = actor.sql;
  const where = narrowSql(sql, actor.realm.id, narrow, scope);
  const fetch = (bound: PendingQuery<Row[]>, order: 'asc' | 'desc', limit: number) =>
    queryMessages(sql, user.id, sql`${where} AND ${bound}`, { order, limit, search: narrow.search });
  if (input.numBefore < 0 || input.numAfter < 0) throw badRequest('Invalid num_before or num_after');
  if (input.numBefore + input.numAfter > MAX_MESSAGES_PER_FETCH) {
    throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  }
  // As Zulip: the legacy use_first_unread_anchor wins over any anchor sent with it.
  const anchorText = input.useFirstUnreadAnchor ? 'first_unread' : input.anchor;
  if (anchorText === undefined) throw badRequest("Missing 'anchor' argument");
  let anchor: number;
  if (anchorText === 'newest') anchor = LARGER_THAN_MAX_MESSAGE_ID;
  else if (anchorText === 'oldest') anchor = 0;
  else if (anchorText === 'first_unread') {
    const [first] = await queryMessages(sql, user.id, sql`${where} AND ${receivedSql(sql, scope)} AND (coalesce(f.flags, 0) & ${Flag.READ}) = 0`, {
      order: 'asc',
      limit: 1,
      search: null,
    });
    anchor = first ? first.message.id : LARGER_THAN_MAX_MESSAGE_ID;
  } else if (/^\d+$/.test(anchorText)) anchor = Number(anchorText);
  else throw badRequest('Invalid anchor');

  const toLeft = anchor === 0;
  const toRight = anchor >= LARGER_THAN_MAX_MESSAGE_ID;
  const before = input.numBefore > 0 && !toLeft ? (await fetch(sql`m.id < ${anchor}`, 'desc', input.numBefore)).reverse() : [];
  const at = input.includeAnchor && !toLeft && !toRight ? await fetch(sql`m.id = ${anchor}`, 'asc', 1) : [];
  const after = input.numAfter > 0 && !toRight ? await fetch(sql`m.id > ${anchor}`, 'asc', input.numAfter) : [];
  return {
    rows: [...before, ...at, ...after],
    anchor,
    foundAnchor: at.length === 1,
    foundOldest: toLeft || before.length < input.numBefore,
    foundNewest: toRight || after.length < input.numAfter,
  };
}

export async function getMessages(actor: RealmActor, user: User, input: GetMessagesInput): Promise<Record<string, unknown>> {
  const reader = await loadReader(actor, user);
  if (input.messageIds !== undefined) {
    const narrow = resolveNarrow(actor, user, input.narrow);
    const sql = actor.sql;
    const where = narrowSql(sql, actor.realm.id, narrow, viewerScope(reader));
    const ids = input.messageIds;
    const rows = ids.length
      ? await queryMessages(sql, user.id, sql`${where} AND m.id = ANY(${ids}::int8[])`, { order: 'asc', limit: ids.length, search: narrow.search })
      : [];
    return { messages: await formatFetched(actor, reader, rows, input.view), history_limited: false };
  }
  const range = await fetchRange(actor, reader, input);
  return {
    messages: await formatFetched(actor, reader, range.rows, input.view),
    anchor: range.anchor,
    found_anchor: range.foundAnchor,
    found_oldest: range.foundOldest,
    found_newest: range.foundNewest,
    history_limited: false,
  };
}

/** A message the user may read, with their flags row; "Invalid message(s)" otherwise. */
export async function accessibleMessage(actor: RealmActor, reader: Reader, messageId: number): Promise<FetchedMessage> {
  const sql = actor.sql;
  const scope = viewerScope(reader);
  const [row] = await queryMessages(sql, reader.user.id, sql`m.realm_id = ${actor.realm.id} AND m.id = ${messageId} AND ${readableSql(sql, scope)}`, {
    order: 'asc',
    limit: 1,
    search: null,
  });
  if (!row) throw badRequest('Invalid message(s)');
  return row;
}

export async function getMessage(actor: RealmActor, user: User, messageId: number, view: MessageViewOptions) {
  const reader = await loadReader(actor, user);
  const row = await accessibleMessage(actor, reader, messageId);
  const [message] = await formatFetched(actor, reader, [row], view);
  return { raw_content: row.message.content, message };
}

/** GET /messages/matches_narrow: which of the ids match, with highlighted content for searches. */
export async function matchesNarrow(actor: RealmActor, user: User, ids: number[], raw: RawNarrow) {
  const reader = await loadReader(actor, user);
  const narrow = resolveNarrow(actor, user, raw);
  const sql = actor.sql;
  const where = narrowSql(sql, actor.realm.id, narrow, viewerScope(reader));
  const rows = ids.length
    ? await queryMessages(sql, user.id, sql`${where} AND m.id = ANY(${ids}::int8[])`, { order: 'asc', limit: ids.length, search: narrow.search })
    : [];
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const messages: Record<string, { match_content: string; match_subject: string }> = {};
  for (const r of rows) {
    messages[String(r.message.id)] = {
      match_content: r.matchContent ?? r.message.renderedContent,
      match_subject: r.matchSubject ?? escape(r.message.topic),
    };
  }
  return { messages };
}

/** Whether a channel has a message outside the empty topic (for the `empty_topic_only` policy). */
export async function channelHasNonEmptyTopicMessages(actor: RealmActor, streamId: number): Promise<boolean> {
  // The actor's topic index is kept at send time, before commit, so it also sees sends in flight.
  for (const key of actor.state.messaging.topics.get(streamId)?.keys() ?? []) if (key !== '') return true;
  return false;
}

/**
 * The newest message the user received up to a point of the realm's history (-1 for none):
 * GET /users/me's `max_message_id`.
 */
export async function newestReceivedMessageId(actor: RealmActor, user: User, upTo: number): Promise<number> {
  const reader = await loadReader(actor, user);
  return (await maxReceivedMessageId(actor.sql, actor.realm.id, viewerScope(reader), upTo)) ?? -1;
}
