// Message flags: set or clear a flag on messages, over a narrow, and mark-as-read shortcuts.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { markAllAsRead, markChannelAsRead, markTopicAsRead, updateFlagsForNarrow, updateMessageFlags } from '../actions/messages/flags.js';
import { narrowSchema } from '../queries/narrow.js';

export const flagEndpoints = [
  endpoint({
    method: 'POST',
    path: '/messages/flags',
    auth: 'user',
    params: { messages: p.intList(), op: p.string(), flag: p.string() },
    async handler({ actor, user, args }) {
      return updateMessageFlags(actor, user, args.messages, args.op, args.flag);
    },
  }),
  endpoint({
    method: 'POST',
    path: '/messages/flags/narrow',
    auth: 'user',
    params: {
      anchor: z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.string()),
      include_anchor: p.bool().default(true),
      num_before: p.int(),
      num_after: p.int(),
      narrow: p.json(narrowSchema),
      op: p.string(),
      flag: p.string(),
    },
    async handler({ actor, user, args }) {
      return updateFlagsForNarrow(
        actor,
        user,
        {
          anchor: args.anchor,
          includeAnchor: args.include_anchor,
          numBefore: args.num_before,
          numAfter: args.num_after,
          narrow: args.narrow,
          useFirstUnreadAnchor: false,
        },
        args.op,
        args.flag,
      );
    },
  }),
  endpoint({
    method: 'POST',
    path: '/mark_all_as_read',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      await markAllAsRead(actor, user);
      return { complete: true };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/mark_stream_as_read',
    auth: 'user',
    params: { stream_id: p.int() },
    async handler({ actor, user, args }) {
      await markChannelAsRead(actor, user, args.stream_id);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/mark_topic_as_read',
    auth: 'user',
    params: { stream_id: p.int(), topic_name: p.string() },
    async handler({ actor, user, args }) {
      await markTopicAsRead(actor, user, args.stream_id, args.topic_name);
      return {};
    },
  }),
];
