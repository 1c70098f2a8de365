// GET /messages/{id}/history and GET /messages/{id}/read_receipts: reads about one message the
// caller can read.
import { badRequest } from '../model/errors.js';
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';
import type { MessageRecord } from '../model/messageState.js';
import { realmProperty } from '../permissions/realmSettings.js';
import { userSettingValue } from '../model/userSettings.js';
import { Flag } from '../db/flags.js';
import { accessibleMessage } from './messages.js';
import { loadReader, readersOf } from './readers.js';
import { displayTopic } from '../views/messages.js';
import { htmlDiff } from '../views/htmlDiff.js';

type Entry = Record<string, unknown>;

/** The organization's edit-history policy; before `message_edit_history_visibility_policy`, `allow_edit_history`. */
export function editHistoryPolicy(actor: RealmActor): 'all' | 'moves' | 'none' {
  const settings = actor.realm.settings;
  const policy = settings.message_edit_history_visibility_policy ?? (settings.allow_edit_history === false ? 'none' : 'all');
  return policy === 'moves' || policy === 'none' ? policy : 'all';
}

/**
 * Every version of the message, oldest first (Zulip's fill_edit_history_entries): each entry
 * has the content and topic the message had after that change, with what changed.
 */
function historyEntries(m: MessageRecord, allowEmptyTopicName: boolean): Entry[] {
  const isChannel = m.streamId !== null;
  const topicName = (t: string) => (isChannel ? displayTopic(t, allowEmptyTopicName) : '');
  let content = m.content;
  let rendered = m.renderedContent;
  let topic = topicName(m.topic);
  const out: Entry[] = [];
  for (const edit of m.editHistory ?? []) {
    const entry: Entry = { content, rendered_content: rendered, timestamp: edit.timestamp, topic, user_id: edit.user_id };
    if (edit.prev_topic !== undefined) {
      topic = topicName(edit.prev_topic);
      entry.prev_topic = topic;
    }
    if (edit.prev_content !== undefined) {
      entry.prev_content = edit.prev_content;
      entry.prev_rendered_content = edit.prev_rendered_content ?? '';
      entry.content_html_diff = htmlDiff(edit.prev_rendered_content ?? '', rendered);
      content = edit.prev_content;
      rendered = edit.prev_rendered_content ?? '';
    }
    if (edit.prev_stream !== undefined) {
      entry.prev_stream = edit.prev_stream;
      entry.stream = edit.stream;
    }
    out.push(entry);
  }
  out.push({ content, rendered_content: rendered, timestamp: Math.floor(m.dateSent.getTime() / 1000), topic, user_id: m.senderId });
  return out.reverse();
}

/** Fields an entry keeps when only moves may be seen (content as it stood, no content changes). */
const MOVES_ONLY_FIELDS = new Set(['content', 'rendered_content', 'timestamp', 'topic', 'user_id', 'prev_topic', 'stream', 'prev_stream']);

/** GET /messages/{message_id}/history. */
export async function messageHistory(actor: RealmActor, user: User, messageId: number, allowEmptyTopicName: boolean): Promise<Entry[]> {
  const policy = editHistoryPolicy(actor);
  if (policy === 'none') throw badRequest('Message edit history is disabled in this organization');
  const reader = await loadReader(actor, user);
  const { message } = await accessibleMessage(actor, reader, messageId);
  const entries = historyEntries(message, allowEmptyTopicName);
  if (policy === 'all') return entries;
  return entries
    .filter((e, i) => i === 0 || 'prev_topic' in e || 'prev_stream' in e)
    .map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => MOVES_ONLY_FIELDS.has(k))));
}

/**
 * GET /messages/{message_id}/read_receipts: who received the message and read it, leaving out
 * the sender, users who do not share read receipts, and users muted by or muting the caller.
 */
export async function readReceipts(actor: RealmActor, user: User, messageId: number): Promise<number[]> {
  const reader = await loadReader(actor, user);
  const { message } = await accessibleMessage(actor, reader, messageId);
  if (realmProperty(actor.state, 'enable_read_receipts') !== true) throw badRequest('Read receipts are disabled in this organization.');
  const muted = actor.state.mutedUsers;
  const readers = (await readersOf(actor, [message])).get(message.id) ?? new Map<number, number>();
  const out: number[] = [];
  for (const [userId, flags] of readers) {
    if (userId === message.senderId || (flags & Flag.READ) === 0 || (flags & Flag.HISTORICAL) !== 0) continue;
    const reading = actor.user(userId);
    if (!reading?.isActive || userSettingValue(reading.settings, 'send_read_receipts') !== true) continue;
    if (muted.get(user.id)?.has(userId) || muted.get(userId)?.has(user.id)) continue;
    out.push(userId);
  }
  return out.sort((a, b) => a - b);
}
