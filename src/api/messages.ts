// Messages: send, fetch (with narrows), fetch one, edit, delete, matches_narrow.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { ApiError, badRequest, missingArgument } from '../model/errors.js';
import { sendMessage } from '../actions/messages/idempotency.js';
import { clientName, defaultReadBySender } from '../actions/messages/input.js';
import { getMessage, getMessages, matchesNarrow } from '../queries/messages.js';
import { narrowSchema } from '../queries/narrow.js';
import { editMessage } from '../actions/messages/edit.js';
import { deleteMessage } from '../actions/messages/delete.js';

const MESSAGE_TYPES: Record<string, 'stream' | 'private'> = { stream: 'stream', channel: 'stream', private: 'private', direct: 'private' };

/** `topic`, or its deprecated alias `subject`; both at once is ambiguous. */
function topicParam(args: { topic?: string; subject?: string }): string | undefined {
  if (args.topic !== undefined && args.subject !== undefined) {
    throw new ApiError('REQUEST_CONFUSING_VAR', "Can't decide between 'topic' and 'subject' arguments", 400, {
      var_name1: 'topic',
      var_name2: 'subject',
    });
  }
  return args.topic ?? args.subject;
}

const narrowParam = p.json(narrowSchema).default([]);

export const messageEndpoints = [
  endpoint({
    method: 'POST',
    path: '/messages',
    auth: 'user',
    params: {
      type: p.string(),
      to: p.string(),
      content: p.string(),
      topic: p.string().optional(),
      subject: p.string().optional(),
      queue_id: p.string().optional(),
      local_id: p.string().optional(),
      read_by_sender: p.bool().optional(),
    },
    async handler({ actor, user, args, req }) {
      const type = MESSAGE_TYPES[args.type];
      if (!type) throw badRequest('Invalid message type');
      if (args.queue_id !== undefined && args.local_id === undefined) throw missingArgument('local_id');
      // Zulip names the web app's client "website": its messages start read for the sender.
      const client = req.prefix === 'json' ? 'website' : clientName(req.userAgent);
      const result = await sendMessage(actor, user, {
        type,
        to: args.to,
        topic: topicParam(args),
        content: args.content,
        queueId: args.queue_id,
        localId: args.local_id,
        readBySender: args.read_by_sender ?? defaultReadBySender(client),
        client,
        idempotencyKey: req.idempotencyKey,
      });
      return { ...result };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/messages',
    auth: 'user',
    params: {
      anchor: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string()).optional(),
      num_before: p.int().default(0),
      num_after: p.int().default(0),
      include_anchor: p.bool().default(true),
      narrow: narrowParam,
      client_gravatar: p.bool().default(true),
      apply_markdown: p.bool().default(true),
      message_ids: p.intList().optional(),
      allow_empty_topic_name: p.bool().default(false),
      use_first_unread_anchor: p.bool().default(false),
    },
    async handler({ actor, user, args }) {
      return getMessages(actor, user, {
        anchor: args.anchor,
        numBefore: args.num_before,
        numAfter: args.num_after,
        includeAnchor: args.include_anchor,
        narrow: args.narrow,
        messageIds: args.message_ids,
        useFirstUnreadAnchor: args.use_first_unread_anchor,
        view: { applyMarkdown: args.apply_markdown, clientGravatar: args.client_gravatar, allowEmptyTopicName: args.allow_empty_topic_name },
      });
    },
  }),
  endpoint({
    method: 'GET',
    path: '/messages/matches_narrow',
    auth: 'user',
    params: { msg_ids: p.intList(), narrow: p.json(narrowSchema) },
    async handler({ actor, user, args }) {
      return matchesNarrow(actor, user, args.msg_ids, args.narrow);
    },
  }),
  endpoint({
    method: 'GET',
    path: '/messages/{message_id}',
    auth: 'user',
    params: {
      message_id: p.int(),
      apply_markdown: p.bool().default(true),
      allow_empty_topic_name: p.bool().default(false),
    },
    async handler({ actor, user, args }) {
      return getMessage(actor, user, args.message_id, {
        applyMarkdown: args.apply_markdown,
        clientGravatar: false,
        allowEmptyTopicName: args.allow_empty_topic_name,
      });
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/messages/{message_id}',
    auth: 'user',
    params: {
      message_id: p.int(),
      content: p.string().optional(),
      topic: p.string().optional(),
      subject: p.string().optional(),
      stream_id: p.int().optional(),
      propagate_mode: z.enum(['change_one', 'change_later', 'change_all'], { error: 'Invalid propagate_mode' }).default('change_one'),
      send_notification_to_old_thread: p.bool().default(false),
      send_notification_to_new_thread: p.bool().default(true),
      prev_content_sha256: p.string().optional(),
    },
    async handler({ actor, user, args }) {
      return editMessage(actor, user, {
        messageId: args.message_id,
        content: args.content,
        topic: topicParam(args),
        streamId: args.stream_id,
        propagateMode: args.propagate_mode,
        notifyOldThread: args.send_notification_to_old_thread,
        notifyNewThread: args.send_notification_to_new_thread,
        prevContentSha256: args.prev_content_sha256,
      });
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/messages/{message_id}',
    auth: 'user',
    params: { message_id: p.int() },
    async handler({ actor, user, args }) {
      await deleteMessage(actor, user, args.message_id);
      return {};
    },
  }),
];
