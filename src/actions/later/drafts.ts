// Drafts kept on the server so that a user's devices share them (Zulip's zerver/lib/drafts.py).
// Only while the user's enable_drafts_synchronization setting is on; turning it off deletes
// them (actions/users/settings.ts).
import { badRequest, notFound } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { actingUser } from '../../permissions/roles.js';
import { checkDraftsSynchronized } from '../../queries/later.js';
import { channelForContent } from '../channels/channels.js';
import { normalizeContent, truncate } from '../messages/input.js';
import { MAX_TOPIC_LENGTH } from '../../model/limits.js';
import { deleteDraft as deleteRow, findDraft, insertDrafts, updateDraft, type DraftValues } from '../../db/drafts.js';
import { formatDraft } from '../../views/later.js';
import { draftsAddEvent, draftsRemoveEvent, draftsUpdateEvent } from '../../events/catalog/index.js';

export interface DraftInput {
  type: '' | 'stream' | 'private';
  to: number[];
  topic: string;
  content: string;
  /** Seconds (fractions allowed); now when absent. */
  timestamp?: number | null;
}

const draftDoesNotExist = () => notFound('Draft does not exist');
/** The end of year 9999: later times are not dates (Python's datetime stops there). */
const LATEST_SECONDS = Date.UTC(9999, 11, 31, 23, 59, 59) / 1000;

/** Zulip's further_validated_draft_dict. Runs in the mailbox (channel access is read from memory). */
function checkDraft(actor: RealmActor, user: User, d: DraftInput): DraftValues {
  const content = normalizeContent(d.content);
  const seconds = Math.round((d.timestamp ?? Date.now() / 1000) * 1e6) / 1e6;
  if (seconds < 0) throw badRequest('Timestamp must not be negative.');
  if (!(seconds <= LATEST_SECONDS)) throw badRequest('Invalid timestamp');
  const values: DraftValues = { streamId: null, dmUserIds: null, topic: '', content, lastEditTime: new Date(seconds * 1000) };
  if (d.type === 'stream') {
    const topic = truncate(d.topic, MAX_TOPIC_LENGTH, '...');
    if (topic.includes('\0')) throw badRequest('Topic must not contain null bytes');
    if (d.to.length !== 1) throw badRequest('Must specify exactly 1 channel ID for channel messages');
    values.streamId = channelForContent(actor.state, user, d.to[0]!).id;
    values.topic = topic;
  } else if (d.type === 'private' && d.to.length > 0) {
    for (const id of new Set(d.to)) if (!actor.user(id)) throw badRequest(`Invalid user ID ${id}`);
    values.dmUserIds = [...new Set([...d.to, user.id])].sort((a, b) => a - b);
  }
  return values;
}

/** POST /drafts: the new drafts' ids, in the order given. */
export function createDrafts(actor: RealmActor, user: User, drafts: DraftInput[]): Promise<number[]> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    checkDraftsSynchronized(current);
    const values = drafts.map((d) => checkDraft(actor, current, d));
    const created = await insertDrafts(actor.sql, actor.realm.id, current.id, values);
    if (created.length > 0) actor.events.publish(draftsAddEvent(created.map(formatDraft)), [current.id]);
    return created.map((d) => d.id);
  });
}

/** PATCH /drafts/{id}: the draft is replaced by the one given. */
export function editDraft(actor: RealmActor, user: User, id: number, draft: DraftInput): Promise<void> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    checkDraftsSynchronized(current);
    if (!(await findDraft(actor.sql, current.id, id))) throw draftDoesNotExist();
    const updated = await updateDraft(actor.sql, id, checkDraft(actor, current, draft));
    actor.events.publish(draftsUpdateEvent(formatDraft(updated)), [current.id]);
  });
}

/** DELETE /drafts/{id}. */
export function deleteDraft(actor: RealmActor, user: User, id: number): Promise<void> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    checkDraftsSynchronized(current);
    if (!(await findDraft(actor.sql, current.id, id))) throw draftDoesNotExist();
    await deleteRow(actor.sql, id);
    actor.events.publish(draftsRemoveEvent(id), [current.id]);
  });
}
