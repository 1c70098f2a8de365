// What else clients do with one message: read its edit history and read receipts, report it
// to moderators, say they are editing it; and delete a whole topic.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { messageHistory, readReceipts } from '../queries/messageHistory.js';
import { MAX_REPORT_DESCRIPTION_LENGTH, REPORT_TYPES, reportMessage } from '../actions/messages/report.js';
import { sendEditTyping } from '../actions/messages/editTyping.js';
import { deleteTopic } from '../actions/messages/deleteTopic.js';

export const messageExtraEndpoints = [
  endpoint({
    method: 'GET',
    path: '/messages/{message_id}/history',
    auth: 'user',
    params: { message_id: p.int(), allow_empty_topic_name: p.bool().default(false) },
    async handler({ actor, user, args }) {
      return { message_history: await messageHistory(actor, user, args.message_id, args.allow_empty_topic_name) };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/messages/{message_id}/read_receipts',
    auth: 'user',
    params: { message_id: p.int() },
    async handler({ actor, user, args }) {
      return { user_ids: await readReceipts(actor, user, args.message_id) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/messages/{message_id}/report',
    auth: 'user',
    params: {
      message_id: p.int(),
      report_type: z.string().refine((t) => t in REPORT_TYPES, { message: 'Invalid report_type' }),
      description: z.string().max(MAX_REPORT_DESCRIPTION_LENGTH).default(''),
    },
    async handler({ actor, user, args }) {
      await reportMessage(actor, user, args.message_id, args.report_type, args.description);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/messages/{message_id}/typing',
    auth: 'user',
    params: { message_id: p.int(), op: z.enum(['start', 'stop'], { error: 'Invalid op' }) },
    async handler({ actor, user, args }) {
      await sendEditTyping(actor, user, args.message_id, args.op);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/streams/{stream_id}/delete_topic',
    auth: 'user',
    params: { stream_id: p.int(), topic_name: p.string() },
    async handler({ actor, user, args }) {
      return await deleteTopic(actor, user, args.stream_id, args.topic_name);
    },
  }),
];
