// Messages to send later: schedule, edit, delete (Zulip's zerver/actions/scheduled_messages.py).
// A message is checked as a send when it is scheduled or changed, and again when it is
// delivered (delivery.ts), since the sender's rights may change meanwhile.
import { badRequest, notFound } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { SEND_LATER, type ScheduledMessage } from '../../model/later.js';
import { actingUser } from '../../permissions/roles.js';
import { checkSendTarget, type SendTarget } from '../messages/send.js';
import { renderContent } from '../messages/render.js';
import { defaultReadBySender, normalizeContent, normalizeTopic } from '../messages/input.js';
import {
  deleteScheduledMessage as deleteRow,
  findScheduledMessage,
  insertScheduledMessage,
  updateScheduledMessage,
} from '../../db/scheduledMessages.js';
import { formatScheduledMessage } from '../../views/later.js';
import { scheduledMessagesAddEvent, scheduledMessagesRemoveEvent, scheduledMessagesUpdateEvent } from '../../events/catalog/index.js';
import { deliveriesInFlight, deliverySettled, wakeUpAt } from './wakeUp.js';

export const deliveryTimeNotInFuture = () => badRequest('Scheduled delivery time must be in the future.');
const scheduledMessageDoesNotExist = () => notFound('Scheduled message does not exist');
const alreadySent = () => badRequest('Scheduled message was already sent');

export type ScheduledType = 'stream' | 'private';
/** `to` as the API takes it: a channel id, or a list of user ids. */
export type ScheduledTo = number | number[];

/** The `to` of a send, from Zulip's extract_stream_id / extract_direct_message_recipient_ids. */
function sendTo(type: ScheduledType, to: ScheduledTo): string {
  if (type === 'stream') {
    if (Array.isArray(to)) throw badRequest('Invalid data type for channel ID');
    return JSON.stringify(to);
  }
  if (!Array.isArray(to)) throw badRequest('Invalid data type for recipients');
  return JSON.stringify([...new Set(to)]);
}

/** Zulip's Addressee.is_message_to_self. */
const toSelfOnly = (target: SendTarget, sender: User) => target.userIds !== null && target.userIds.every((id) => id === sender.id);

/** Latest time a timestamp may name (the end of year 9999, as Python's datetime). */
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

export function checkFuture(at: Date): void {
  if (!(at.getTime() <= LATEST_MS)) throw badRequest('Invalid scheduled_delivery_timestamp');
  if (at.getTime() <= Date.now()) throw deliveryTimeNotInFuture();
}

export interface ScheduleInput {
  type: ScheduledType;
  to: ScheduledTo;
  topic: string | undefined;
  content: string;
  deliverAt: Date;
  readBySender: boolean | undefined;
  client: string;
}

/** POST /scheduled_messages: returns the new row's id. */
export async function scheduleMessage(actor: RealmActor, sender: User, input: ScheduleInput): Promise<number> {
  checkFuture(input.deliverAt);
  const to = sendTo(input.type, input.to);
  const content = normalizeContent(input.content);
  const rendered = await renderContent(actor, content, { senderId: sender.id });
  const row = await actor.exclusive(async () => {
    const user = actingUser(actor.state, sender);
    const target = await checkSendTarget(actor, user, { type: input.type, to, topic: input.topic }, rendered);
    // Zulip's default: read for the sender when sent from a Zulip app, unless sent to oneself.
    const readBySender = input.readBySender ?? (defaultReadBySender(input.client) && !toSelfOnly(target, user));
    const m = await insertScheduledMessage(actor.sql, {
      realmId: actor.realm.id,
      senderId: user.id,
      deliveryType: SEND_LATER,
      streamId: target.streamId,
      dmUserIds: target.userIds,
      topic: target.topic,
      content,
      renderedContent: rendered.html,
      client: input.client,
      scheduledAt: input.deliverAt,
      readBySender,
      reminderTargetMessageId: null,
    });
    actor.events.publish(scheduledMessagesAddEvent([formatScheduledMessage(m)]), [user.id]);
    return m;
  });
  await wakeUpAt(actor, row);
  return row.id;
}

export interface ScheduledEdit {
  type?: ScheduledType;
  to?: ScheduledTo;
  topic?: string;
  content?: string;
  deliverAt?: Date;
  client: string;
}

/** PATCH /scheduled_messages/{id}: what the request names changes; the rest stays. */
export async function editScheduledMessage(actor: RealmActor, sender: User, id: number, edit: ScheduledEdit): Promise<void> {
  if (edit.deliverAt !== undefined) checkFuture(edit.deliverAt);
  const content = edit.content === undefined ? undefined : normalizeContent(edit.content);
  const rendered = content === undefined ? undefined : await renderContent(actor, content, { senderId: sender.id });
  // A delivery under way finishes first: the edit then finds the message sent (or failed).
  await deliverySettled(actor, id);
  const row = await actor.exclusive(async () => {
    const user = actingUser(actor.state, sender);
    const m = await findScheduledMessage(actor.sql, actor.realm.id, user.id, SEND_LATER, id);
    if (!m) throw scheduledMessageDoesNotExist();
    if (m.delivered || deliveriesInFlight(actor).has(id)) throw alreadySent();
    // A message that failed is only sent again at a new time.
    if (m.failed && edit.deliverAt === undefined) throw deliveryTimeNotInFuture();
    const next = { streamId: m.streamId, dmUserIds: m.dmUserIds, topic: m.topic, content: m.content, renderedContent: m.renderedContent };
    if (edit.type !== undefined || edit.to !== undefined || content !== undefined) {
      const type = edit.type ?? (m.streamId !== null ? 'stream' : 'private');
      const to = edit.to !== undefined ? sendTo(type, edit.to) : JSON.stringify(m.streamId ?? m.dmUserIds);
      const topic = edit.topic ?? m.topic;
      const newContent = content ?? m.content;
      const html = rendered ?? (await renderContent(actor, newContent, { senderId: user.id }));
      const target = await checkSendTarget(actor, user, { type, to, topic }, html);
      Object.assign(next, { streamId: target.streamId, dmUserIds: target.userIds, topic: target.topic, content: newContent, renderedContent: html.html });
    } else if (edit.topic !== undefined && m.streamId !== null) {
      // A new topic alone; a direct message has none, and ignores it.
      next.topic = normalizeTopic(edit.topic);
    }
    const updated = await updateScheduledMessage(actor.sql, id, { ...next, client: edit.client, scheduledAt: edit.deliverAt ?? m.scheduledAt });
    if (!updated) throw alreadySent();
    actor.events.publish(scheduledMessagesUpdateEvent(formatScheduledMessage(updated)), [user.id]);
    return updated;
  });
  await wakeUpAt(actor, row);
}

/** DELETE /scheduled_messages/{id}: cancels the message (its delivery job then finds nothing). */
export async function deleteScheduledMessage(actor: RealmActor, sender: User, id: number): Promise<void> {
  await deliverySettled(actor, id);
  await actor.exclusive(async () => {
    const user = actingUser(actor.state, sender);
    const m: ScheduledMessage | null = await findScheduledMessage(actor.sql, actor.realm.id, user.id, SEND_LATER, id);
    if (!m) throw scheduledMessageDoesNotExist();
    if (deliveriesInFlight(actor).has(id)) throw alreadySent();
    await deleteRow(actor.sql, id);
    actor.events.publish(scheduledMessagesRemoveEvent(id), [user.id]);
  });
}
