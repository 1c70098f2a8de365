// POST /messages/{message_id}/typing (Zulip's send_message_edit_notification_backend): the
// user is editing a message they may edit; the conversation's participants get a
// `typing_edit_message` event. Nothing is stored.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { userSettingValue } from '../../model/userSettings.js';
import { MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS } from '../../model/limits.js';
import { realmProperty } from '../../permissions/realmSettings.js';
import { topicForQueue } from '../../events/shape.js';
import { channelEditTypingEvent, directEditTypingEvent } from '../../events/catalog/index.js';
import { limitSeconds, messageToModify, pastLimit } from './modify.js';
import type { TypingOp } from './typing.js';

const receivesTyping = (u: User | undefined): u is User => !!u && u.isActive && userSettingValue(u.settings, 'receives_typing_notifications') === true;

export async function sendEditTyping(actor: RealmActor, user: User, messageId: number, op: TypingOp): Promise<void> {
  const { message: m } = await messageToModify(actor, user, messageId);
  // Zulip's validate_user_can_edit_message, without the grace period.
  if (realmProperty(actor.state, 'allow_message_editing') === false) throw badRequest('Your organization has turned off message editing');
  if (m.senderId !== user.id) throw badRequest("You don't have permission to edit this message");
  if (pastLimit(m, limitSeconds(actor, 'message_content_edit_limit_seconds'))) {
    throw badRequest('The time limit for editing this message has passed');
  }
  const { state } = actor;
  if (m.streamId !== null) {
    if (userSettingValue(user.settings, 'send_stream_typing_notifications') !== true) {
      throw badRequest('User has disabled typing notifications for channel messages');
    }
    const subscribers = state.subscriberIds(m.streamId).map((id) => state.users.get(id)).filter((u) => u?.isActive === true);
    if (subscribers.length > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS) return;
    const streamId = m.streamId;
    actor.events.publish(
      (queue) => channelEditTypingEvent(op, user.id, m.id, streamId, topicForQueue(queue, m.topic)),
      subscribers.filter(receivesTyping).map((u) => u.id),
    );
    return;
  }
  if (userSettingValue(user.settings, 'send_private_typing_notifications') !== true) {
    throw badRequest('User has disabled typing notifications for direct messages');
  }
  const participants = state.messaging.conversations.get(m.recipientId)?.userIds ?? [user.id];
  const notify = participants.map((id) => state.users.get(id)).filter(receivesTyping).map((u) => u.id);
  actor.events.publish(directEditTypingEvent(op, user.id, m.id, notify), notify);
}
