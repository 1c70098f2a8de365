// Scheduled messages: list, schedule, edit, delete; and reminders about messages.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { ApiError, badRequest, invalidArgument } from '../model/errors.js';
import { clientName } from '../actions/messages/input.js';
import { deleteScheduledMessage, editScheduledMessage, scheduleMessage, type ScheduledType } from '../actions/later/scheduledMessages.js';
import { createReminder, deleteReminder } from '../actions/later/reminders.js';
import { listReminders, listScheduledMessages } from '../queries/later.js';
import { intOrIntList } from './laterParams.js';

const TYPES: Record<string, ScheduledType> = { stream: 'stream', channel: 'stream', private: 'private', direct: 'private' };

function messageType(raw: string): ScheduledType {
  const type = TYPES[raw];
  if (!type) throw invalidArgument('type');
  return type;
}

/** `topic`, or its deprecated alias `subject`; both at once is ambiguous. */
function topicParam(args: { topic?: string; subject?: string }): string | undefined {
  if (args.topic !== undefined && args.subject !== undefined) {
    throw new ApiError('REQUEST_CONFUSING_VAR', "Can't decide between 'topic' and 'subject' arguments", 400, { var_name1: 'topic', var_name2: 'subject' });
  }
  return args.topic ?? args.subject;
}

const atSeconds = (s: number) => new Date(s * 1000);

export const scheduledMessageEndpoints = [
  endpoint({
    method: 'GET',
    path: '/scheduled_messages',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      return { scheduled_messages: await listScheduledMessages(actor, user) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/scheduled_messages',
    auth: 'user',
    params: {
      type: p.string(),
      to: intOrIntList('to'),
      content: p.string(),
      topic: p.string().optional(),
      subject: p.string().optional(),
      scheduled_delivery_timestamp: p.int(),
      read_by_sender: p.bool().optional(),
    },
    async handler({ actor, user, args, req }) {
      const id = await scheduleMessage(actor, user, {
        type: messageType(args.type),
        to: args.to,
        topic: topicParam(args),
        content: args.content,
        deliverAt: atSeconds(args.scheduled_delivery_timestamp),
        readBySender: args.read_by_sender,
        client: clientName(req.userAgent),
      });
      return { scheduled_message_id: id };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/scheduled_messages/{scheduled_message_id}',
    auth: 'user',
    params: {
      scheduled_message_id: p.int(),
      type: p.string().optional(),
      to: intOrIntList('to').optional(),
      content: p.string().optional(),
      topic: p.string().optional(),
      subject: p.string().optional(),
      scheduled_delivery_timestamp: p.int().optional(),
    },
    async handler({ actor, user, args, req }) {
      const topic = topicParam(args);
      const type = args.type === undefined ? undefined : messageType(args.type);
      if (type === undefined && args.to === undefined && topic === undefined && args.content === undefined && args.scheduled_delivery_timestamp === undefined) {
        throw badRequest('Nothing to change');
      }
      if (type !== undefined && args.to === undefined) throw badRequest('Recipient required when updating type of scheduled message.');
      if (type === 'stream' && topic === undefined) throw badRequest('Topic required when updating scheduled message type to channel.');
      await editScheduledMessage(actor, user, args.scheduled_message_id, {
        type,
        to: args.to,
        topic,
        content: args.content,
        deliverAt: args.scheduled_delivery_timestamp === undefined ? undefined : atSeconds(args.scheduled_delivery_timestamp),
        client: clientName(req.userAgent),
      });
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/scheduled_messages/{scheduled_message_id}',
    auth: 'user',
    params: { scheduled_message_id: p.int() },
    async handler({ actor, user, args }) {
      await deleteScheduledMessage(actor, user, args.scheduled_message_id);
      return {};
    },
  }),
  endpoint({
    method: 'GET',
    path: '/reminders',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      return { reminders: await listReminders(actor, user) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/reminders',
    auth: 'user',
    params: { message_id: p.int(), scheduled_delivery_timestamp: p.int() },
    async handler({ actor, user, args, req }) {
      const id = await createReminder(actor, user, args.message_id, atSeconds(args.scheduled_delivery_timestamp), clientName(req.userAgent));
      return { reminder_id: id };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/reminders/{reminder_id}',
    auth: 'user',
    params: { reminder_id: p.int() },
    async handler({ actor, user, args }) {
      await deleteReminder(actor, user, args.reminder_id);
      return {};
    },
  }),
];
