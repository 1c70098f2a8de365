// PATCH /messages/{message_id}: content edits (the sender, within the realm's edit limit) and
// moves (see move.ts), announced by one update_message event to the users who can read the
// message, each with their own flags.
import { createHash } from 'node:crypto';
import { ApiError, badRequest } from '../../model/errors.js';
import { relinkAttachments } from '../files/attachments.js';
import type { AttachmentObject } from '../../events/catalog/index.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { MessageRecord } from '../../model/messageState.js';
import type { EventQueue } from '../../events/queue.js';
import { topicForQueue } from '../../events/shape.js';
import { topicLinksFor } from '../../views/topicLinks.js';
import { checkGroupMentions, renderContent } from './render.js';
import { Flag, flagNames, writeFlagRows } from '../../db/flags.js';
import { ensureConversation, updateMessageContent } from '../../db/messages.js';
import { usersInGroupSetting } from '../../permissions/groups.js';
import { normalizeContent } from './input.js';
import { findAlertWords } from '../../render/scan.js';
import { readersOf } from '../../queries/readers.js';
import { limitSeconds, messageToModify, pastLimit } from './modify.js';
import { applyMove, planMove, type PropagateMode } from './move.js';
import { publishDeletion } from './delete.js';
import { sendMoveNotices, type MovedMessages } from './notificationBot.js';
import { realmProperty } from '../../permissions/realmSettings.js';
import { updateMessageEvent, type UpdateMessageEvent } from '../../events/catalog/index.js';

export interface EditInput {
  messageId: number;
  content?: string;
  topic?: string;
  streamId?: number;
  propagateMode: PropagateMode;
  notifyOldThread: boolean;
  notifyNewThread: boolean;
  prevContentSha256?: string;
}

interface ContentEdit {
  content: string;
  html: string;
  isMeMessage: boolean;
  links: string[];
  hasLink: boolean;
  hasImage: boolean;
  mentioned: Set<number>;
  streamWildcard: boolean;
}

async function prepareContentEdit(actor: RealmActor, user: User, m: MessageRecord, input: EditInput): Promise<ContentEdit> {
  if (realmProperty(actor.state, 'allow_message_editing') === false) throw badRequest('Your organization has turned off message editing');
  if (m.senderId !== user.id) throw badRequest("You don't have permission to edit this message");
  if (pastLimit(m, limitSeconds(actor, 'message_content_edit_limit_seconds'))) {
    throw badRequest('The time limit for editing this message has passed');
  }
  if (input.prevContentSha256 !== undefined && createHash('sha256').update(m.content).digest('hex') !== input.prevContentSha256) {
    throw new ApiError('EXPECTATION_MISMATCH', "'prev_content_sha256' value does not match the expected value.", 400);
  }
  // Zulip keeps an emptied message as "(deleted)".
  const content = input.content!.trim() === '' ? '(deleted)' : normalizeContent(input.content!);
  const rendered = await renderContent(actor, content, { senderId: user.id });
  checkGroupMentions(actor, user, rendered);
  const mentioned = new Set(rendered.mentionedUserIds);
  for (const gid of rendered.mentionedGroupIds) for (const u of usersInGroupSetting(actor.state, gid)) mentioned.add(u.id);
  return {
    content,
    html: rendered.html,
    isMeMessage: rendered.isMeMessage,
    links: rendered.links,
    hasLink: rendered.hasLink,
    hasImage: rendered.hasImage,
    mentioned,
    streamWildcard: m.streamId !== null && rendered.wildcards.stream,
  };
}

/** Writes a content edit and updates the mention and alert-word flags of those who received it. */
async function applyContentEdit(actor: RealmActor, user: User, m: MessageRecord, e: ContentEdit, now: Date): Promise<void> {
  const entry = {
    user_id: user.id,
    timestamp: Math.floor(now.getTime() / 1000),
    prev_content: m.content,
    prev_rendered_content: m.renderedContent,
    prev_rendered_content_version: 1,
  };
  const readers = (await readersOf(actor, [m])).get(m.id) ?? new Map<number, number>();
  const changed: Array<{ userId: number; messageId: number; flags: number }> = [];
  for (const [userId, seen] of readers) {
    if (seen & Flag.HISTORICAL) continue;
    const row = seen & ~Flag.STREAM_WILDCARD_MENTIONED;
    let next = row & ~(Flag.MENTIONED | Flag.HAS_ALERT_WORD);
    if (e.mentioned.has(userId)) next |= Flag.MENTIONED;
    const words = actor.state.alertWords.get(userId);
    if (userId !== m.senderId && words && findAlertWords(e.content, words).length > 0) next |= Flag.HAS_ALERT_WORD;
    if (next !== row) changed.push({ userId, messageId: m.id, flags: next });
  }
  await actor.sql.begin(async (tx) => {
    await updateMessageContent(tx, m.id, {
      content: e.content,
      renderedContent: e.html,
      isMeMessage: e.isMeMessage,
      hasLink: e.hasLink,
      hasImage: e.hasImage,
      hasAttachment: e.links.some((l) => l.includes('/user_uploads/')),
      mentionsStreamWildcard: e.streamWildcard,
      lastEditTime: now,
      editHistory: [entry, ...(m.editHistory ?? [])],
    });
    await writeFlagRows(tx, changed);
  });
}

/** Edits and/or moves a message; after a move, Notification Bot posts the notices asked for. */
export async function editMessage(actor: RealmActor, user: User, input: EditInput): Promise<Record<string, unknown>> {
  const { response, moved } = await editMessageNow(actor, user, input);
  if (moved) await sendMoveNotices(actor, user, moved, { oldThread: input.notifyOldThread, newThread: input.notifyNewThread });
  return response;
}

function editMessageNow(actor: RealmActor, user: User, input: EditInput): Promise<{ response: Record<string, unknown>; moved: MovedMessages | null }> {
  if (input.content === undefined && input.topic === undefined && input.streamId === undefined) {
    if (input.propagateMode !== 'change_one') throw badRequest('Invalid propagate_mode without topic edit');
    throw badRequest('Nothing to change');
  }
  return actor.exclusive(async () => {
    const { state } = actor;
    const { reader, message: m } = await messageToModify(actor, user, input.messageId);
    const contentEdit = input.content !== undefined ? await prepareContentEdit(actor, user, m, input) : null;
    const plan = await planMove(actor, user, reader, m, input, contentEdit !== null);
    if (!contentEdit && !plan) {
      if (input.propagateMode !== 'change_one') throw badRequest('Invalid propagate_mode without topic edit');
      throw badRequest('Nothing to change');
    }
    const now = new Date();
    let detached: AttachmentObject[] = [];
    if (contentEdit) {
      await applyContentEdit(actor, user, m, contentEdit, now);
      if (contentEdit.links.some((l) => l.includes('/user_uploads/')) || m.hasAttachment) {
        detached = await relinkAttachments(actor, user, m.id, contentEdit.links);
      }
    }
    let ids = [m.id];
    let readers: Map<number, number>;
    let lost = new Set<number>();
    let moved: MovedMessages | null = null;
    if (plan) {
      // A rename that only changes letter case keeps the topic's index entry.
      const sameTopic = plan.to.id === plan.from.id && plan.toTopic.toLowerCase() === plan.fromTopic.toLowerCase();
      const destinationHadMessages = !sameTopic && state.messaging.topic(plan.to.id, plan.toTopic) !== undefined;
      const conversation =
        state.messaging.streamConversation(plan.to.id)?.id ?? (await ensureConversation(actor.sql, actor.realm.id, { streamId: plan.to.id }));
      if (!state.messaging.streamConversation(plan.to.id)) state.messaging.putConversation({ id: conversation, streamId: plan.to.id, userIds: null });
      const outcome = await applyMove(actor, user, plan, now, conversation);
      ids = outcome.moved.map((x) => x.id).sort((a, b) => a - b);
      readers = outcome.readers.get(m.id) ?? new Map();
      lost = outcome.lostAccess;
      publishDeletion(actor, plan.messages, lost);
      moved = {
        from: plan.from,
        fromTopic: plan.fromTopic,
        to: plan.to,
        toTopic: plan.toTopic,
        messageId: m.id,
        count: ids.length,
        movedAll: sameTopic ? input.propagateMode === 'change_all' : state.messaging.topic(plan.from.id, plan.fromTopic) === undefined,
        destinationHadMessages,
        resolveOnly: plan.resolveOnly,
      };
    } else {
      readers = (await readersOf(actor, [m])).get(m.id) ?? new Map();
    }

    const base: Omit<UpdateMessageEvent, 'type' | 'flags'> = {
      user_id: user.id,
      edit_timestamp: Math.floor(now.getTime() / 1000),
      message_id: m.id,
      message_ids: ids,
      rendering_only: false,
    };
    if (m.streamId !== null) {
      // The channel the message was in before this edit, by name too (still sent at 406).
      base.stream_name = state.streams.get(m.streamId)?.name;
      base.stream_id = m.streamId;
    }
    if (contentEdit) {
      base.orig_content = m.content;
      base.orig_rendered_content = m.renderedContent;
      base.content = contentEdit.content;
      base.rendered_content = contentEdit.html;
      base.is_me_message = contentEdit.isMeMessage;
      base.prev_rendered_content_version = 1;
    }
    if (plan) base.propagate_mode = input.propagateMode;
    if (plan?.streamChanged) base.new_stream_id = plan.to.id;
    actor.events.publish((queue: EventQueue) => {
      // Not a spread with flags added: that makes a hidden class per call (per queue here).
      const fields: Omit<UpdateMessageEvent, 'type'> = Object.assign({}, base, { flags: flagNames(readers.get(queue.userId) ?? 0) });
      if (plan) {
        fields.orig_subject = topicForQueue(queue, plan.fromTopic);
        if (plan.topicChanged) {
          fields.subject = topicForQueue(queue, plan.toTopic);
          fields.topic_links = topicLinksFor(actor, plan.toTopic);
        }
      }
      return updateMessageEvent(fields);
    }, readers.keys());
    return { response: { detached_uploads: detached }, moved };
  });
}
