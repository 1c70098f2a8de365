// Delivery of a scheduled message or reminder that came due, in the realm's actor.
//
// Exactly once: the row is the source of truth. The message is sent through the normal send
// path with an idempotency key naming the row (stored on the message, unique per sender), then
// the row is claimed (`delivered = true` where it is not yet) in the realm's fenced writes. A
// delivery interrupted between the two (a crash) is finished by the next one, which finds the
// message by its key instead of sending it again; in a cluster the lease fence keeps a worker
// that lost the realm from writing either. The permission checks of a send run again here, as
// the sender, at delivery time: a refusal marks the row failed and Notification Bot tells the
// sender (Zulip's try_deliver_one_scheduled_message).
import { ApiError } from '../../model/errors.js';
import { log } from '../../log.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { REMIND, SCHEDULED_MESSAGE_LATE_CUTOFF_MS, SEND_LATER, type ScheduledMessage } from '../../model/later.js';
import { claimDelivered, loadScheduledMessage, markFailed } from '../../db/scheduledMessages.js';
import { sendMessage } from '../messages/idempotency.js';
import { ensureNotificationBot, sendInternalMessage } from '../messages/notificationBot.js';
import { loadReader } from '../../queries/readers.js';
import { accessibleMessage } from '../../queries/messages.js';
import { formatScheduledMessage } from '../../views/later.js';
import { remindersRemoveEvent, scheduledMessagesRemoveEvent, scheduledMessagesUpdateEvent } from '../../events/catalog/index.js';
import { reminderContent } from './reminderContent.js';
import { deliveriesInFlight, queueDelivery } from './wakeUp.js';

export type DeliveryOutcome = 'delivered' | 'failed' | 'skipped' | 'early';

/** The idempotency key of the message a row sends. */
export const deliveryKey = (m: Pick<ScheduledMessage, 'id' | 'deliveryType'>) => `${m.deliveryType === REMIND ? 'reminder' : 'scheduled-message'}-${m.id}`;

/** Zulip's datetime_to_global_time: a `<time:…>` that every reader sees in their own time zone. */
const globalTime = (d: Date) => `<time:${d.toISOString().replace(/\.\d{3}Z$/, '+00:00')}>`;

export function failureNotice(m: ScheduledMessage, reason: string): string {
  return [
    `The message you scheduled for ${globalTime(m.scheduledAt)} was not sent because of the following error:`,
    '',
    `> ${reason}`,
    '',
    '[View scheduled messages](#scheduled)',
  ].join('\n');
}

/** Why a row cannot be sent at all, before any send is tried; `notify`: whether the sender is told. */
function refusal(actor: RealmActor, m: ScheduledMessage, sender: User | undefined, now: number): { reason: string; notify: boolean } | null {
  if (actor.realm.deactivated) return { reason: 'This organization has been deactivated', notify: false };
  if (!sender?.isActive) return { reason: 'Account is deactivated', notify: false };
  // A reminder is the sender's own business and still useful late; a message to others is not.
  if (m.deliveryType === SEND_LATER && now > m.scheduledAt.getTime() + SCHEDULED_MESSAGE_LATE_CUTOFF_MS) {
    return { reason: 'Message could not be sent at the scheduled time.', notify: true };
  }
  return null;
}

async function sendScheduled(actor: RealmActor, sender: User, m: ScheduledMessage): Promise<number> {
  const result = await sendMessage(actor, sender, {
    type: m.streamId !== null ? 'stream' : 'private',
    to: JSON.stringify(m.streamId ?? m.dmUserIds),
    topic: m.streamId !== null ? m.topic : undefined,
    content: m.content,
    readBySender: m.readBySender,
    client: m.client,
    idempotencyKey: deliveryKey(m),
  });
  return result.id;
}

/** A reminder quotes the message as it is now, if the user can still read it; else as it was. */
async function sendReminder(actor: RealmActor, user: User, m: ScheduledMessage): Promise<number> {
  let content = m.content;
  if (m.reminderTargetMessageId !== null) {
    try {
      const { message } = await accessibleMessage(actor, await loadReader(actor, user), m.reminderTargetMessageId);
      content = reminderContent(actor, message);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  const bot = await ensureNotificationBot(actor);
  const result = await sendMessage(actor, bot, {
    type: 'private',
    to: JSON.stringify([user.id]),
    topic: undefined,
    content,
    readBySender: true,
    client: 'Internal',
    internal: true,
    idempotencyKey: deliveryKey(m),
  });
  return result.id;
}

async function recordFailure(actor: RealmActor, m: ScheduledMessage, reason: string, notify: boolean): Promise<void> {
  const failed = await actor.exclusive(async () => {
    const row = await markFailed(actor.sql, m.id, m.scheduledAt, reason);
    // Reminders have no update event (Zulip tells the sender only of failed messages to others).
    if (row && notify && row.deliveryType === SEND_LATER) actor.events.publish(scheduledMessagesUpdateEvent(formatScheduledMessage(row)), [row.senderId]);
    return row;
  });
  log.info({ realm: actor.realm.stringId, scheduledMessage: m.id, reason }, 'scheduled message not sent');
  if (failed && notify && failed.deliveryType === SEND_LATER) {
    await sendInternalMessage(actor, { to: { userIds: [failed.senderId] }, content: failureNotice(failed, reason) });
  }
}

async function deliver(actor: RealmActor, m: ScheduledMessage): Promise<DeliveryOutcome> {
  const sender = actor.user(m.senderId);
  const refused = refusal(actor, m, sender, Date.now());
  if (refused) {
    await recordFailure(actor, m, refused.reason, refused.notify);
    return 'failed';
  }
  let messageId: number;
  try {
    messageId = m.deliveryType === REMIND ? await sendReminder(actor, sender!, m) : await sendScheduled(actor, sender!, m);
  } catch (err) {
    // Anything but a refusal (the database, the realm moving away) is tried again later.
    if (!(err instanceof ApiError)) throw err;
    await recordFailure(actor, m, err.message, true);
    return 'failed';
  }
  await actor.exclusive(async () => {
    if (!(await claimDelivered(actor.sql, m.id, m.scheduledAt, messageId))) return;
    const removed = m.deliveryType === REMIND ? remindersRemoveEvent(m.id) : scheduledMessagesRemoveEvent(m.id);
    actor.events.publish(removed, [m.senderId]);
  });
  return 'delivered';
}

/**
 * Delivers the row if it is still due at `dueMs` (the time its job was queued for). A row
 * edited to another time, deleted, delivered or failed meanwhile is left alone.
 */
export async function deliverDue(actor: RealmActor, id: number, dueMs: number): Promise<DeliveryOutcome> {
  const flights = deliveriesInFlight(actor);
  let finish!: () => void;
  const row = await actor.exclusive(async () => {
    // One delivery of a row at a time; edits and deletions wait for it (scheduledMessages.ts).
    if (flights.has(id)) return null;
    const m = await loadScheduledMessage(actor.sql, actor.realm.id, id);
    if (!m || m.delivered || m.failed || m.scheduledAt.getTime() !== dueMs) return null;
    flights.set(id, new Promise<void>((resolve) => (finish = resolve)));
    return m;
  });
  if (!row) return 'skipped';
  try {
    if (row.scheduledAt.getTime() > Date.now()) {
      // Woken early (clocks of the processes differ): wait for the time the row says.
      await queueDelivery(actor.services.jobs, row, `early${Date.now()}`);
      return 'early';
    }
    return await deliver(actor, row);
  } finally {
    flights.delete(id);
    finish();
  }
}
