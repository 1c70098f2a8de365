// Reminders about messages: Notification Bot sends the user a direct message quoting the
// message at the time they chose (Zulip's zerver/actions/reminders.py).
import { notFound } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { REMIND } from '../../model/later.js';
import { actingUser } from '../../permissions/roles.js';
import { loadReader } from '../../queries/readers.js';
import { accessibleMessage } from '../../queries/messages.js';
import { checkSendTarget } from '../messages/send.js';
import { renderContent } from '../messages/render.js';
import { deleteScheduledMessage, findScheduledMessage, insertScheduledMessage } from '../../db/scheduledMessages.js';
import { formatReminder } from '../../views/later.js';
import { remindersAddEvent, remindersRemoveEvent } from '../../events/catalog/index.js';
import { reminderContent } from './reminderContent.js';
import { checkFuture } from './scheduledMessages.js';
import { deliveriesInFlight, deliverySettled, wakeUpAt } from './wakeUp.js';

/** POST /reminders: returns the reminder's id. */
export async function createReminder(actor: RealmActor, user: User, messageId: number, deliverAt: Date, client: string): Promise<number> {
  checkFuture(deliverAt);
  const reader = await loadReader(actor, user);
  const { message } = await accessibleMessage(actor, reader, messageId);
  const content = reminderContent(actor, message);
  const rendered = await renderContent(actor, content, { senderId: user.id });
  const row = await actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    // As Zulip: the reminder is checked as a direct message of the user to themself.
    const target = await checkSendTarget(actor, current, { type: 'private', to: JSON.stringify([current.id]), topic: undefined }, rendered);
    const m = await insertScheduledMessage(actor.sql, {
      realmId: actor.realm.id,
      senderId: current.id,
      deliveryType: REMIND,
      streamId: null,
      dmUserIds: target.userIds,
      topic: '',
      content,
      renderedContent: rendered.html,
      client,
      scheduledAt: deliverAt,
      readBySender: false,
      reminderTargetMessageId: messageId,
    });
    actor.events.publish(remindersAddEvent([formatReminder(m)]), [current.id]);
    return m;
  });
  await wakeUpAt(actor, row);
  return row.id;
}

/** DELETE /reminders/{id}. */
export async function deleteReminder(actor: RealmActor, user: User, id: number): Promise<void> {
  await deliverySettled(actor, id);
  await actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    const m = await findScheduledMessage(actor.sql, actor.realm.id, current.id, REMIND, id);
    if (!m) throw notFound('Reminder does not exist');
    if (deliveriesInFlight(actor).has(id)) throw notFound('Reminder does not exist');
    await deleteScheduledMessage(actor.sql, id);
    actor.events.publish(remindersRemoveEvent(id), [current.id]);
  });
}
