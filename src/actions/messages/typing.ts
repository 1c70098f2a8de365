// Typing notifications: nothing is stored; the event goes straight to the conversation's
// other participants. No database and no await, so no turn in the mailbox.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { apiEmail } from '../../views/users.js';
import { channelForContent } from '../channels/channels.js';
import { hasChannelPermission } from '../../permissions/channelSettings.js';
import { MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS } from '../../model/limits.js';
import { topicForQueue } from '../../events/shape.js';
import { topicFromClient } from '../../model/topics.js';
import { userSettingValue } from '../../model/userSettings.js';
import { directTypingEvent, channelTypingEvent } from '../../events/catalog/index.js';
import { checkCanAccessRecipients } from '../../permissions/messageAccess.js';
import { canAccessUser } from '../../permissions/userAccess.js';

export type TypingOp = 'start' | 'stop';

const receivesTyping = (u: User) => u.isActive && userSettingValue(u.settings, 'receives_typing_notifications') === true;

/** Typing in a direct-message conversation: every participant (the sender included) is told. */
export function sendDirectTyping(actor: RealmActor, sender: User, op: TypingOp, to: number[]): void {
  if (to.length === 0) throw badRequest("Empty 'to' list");
  if (userSettingValue(sender.settings, 'send_private_typing_notifications') !== true) {
    throw badRequest('User has disabled typing notifications for direct messages');
  }
  const ids = to.includes(sender.id) ? [...to] : [...to, sender.id];
  // One bad id rejects the whole request: a partial list would name another conversation.
  const recipients = ids.map((id) => {
    const u = actor.user(id);
    if (!u) throw badRequest(`Invalid user ID ${id}`);
    return u;
  });
  // A limited guest may not type to users outside its sight (Zulip's recipient validation).
  checkCanAccessRecipients(actor.state, sender, recipients);
  const { config } = actor.services;
  const who = (u: User) => ({ user_id: u.id, email: apiEmail(config, actor.realm, u) });
  actor.events.publish(
    directTypingEvent(op, who(sender), recipients.map(who)),
    recipients.filter(receivesTyping).map((u) => u.id),
  );
}

/**
 * Typing in a channel topic: the channel's subscribers are told, unless the channel is too
 * large for it to be worth the traffic.
 */
export function sendChannelTyping(actor: RealmActor, sender: User, op: TypingOp, streamId: number, rawTopic: string): void {
  if (userSettingValue(sender.settings, 'send_stream_typing_notifications') !== true) {
    throw badRequest('User has disabled typing notifications for channel messages');
  }
  const { state } = actor;
  const stream = channelForContent(state, sender, streamId);
  if (!hasChannelPermission(state, sender, stream, 'can_send_message_group')) {
    throw badRequest('You do not have permission to post in this channel.');
  }
  const subscribers = state.subscriberIds(stream.id).map((id) => state.users.get(id)).filter((u): u is User => u?.isActive === true);
  if (subscribers.length > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS) return;
  const topic = topicFromClient(rawTopic);
  const sender_ = { user_id: sender.id, email: apiEmail(actor.services.config, actor.realm, sender) };
  actor.events.publish(
    (queue) => channelTypingEvent(op, sender_, stream.id, topicForQueue(queue, topic)),
    // Limited guests who may not see the sender are not told who is typing.
    subscribers.filter((u) => receivesTyping(u) && canAccessUser(state, u, sender)).map((u) => u.id),
  );
}
