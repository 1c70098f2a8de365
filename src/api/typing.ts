// POST /typing: start/stop typing notifications in a direct conversation or a channel topic.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { badRequest } from '../model/errors.js';
import { sendChannelTyping, sendDirectTyping } from '../actions/messages/typing.js';

export const typingEndpoints = [
  endpoint({
    method: 'POST',
    path: '/typing',
    auth: 'user',
    params: {
      type: z.enum(['direct', 'private', 'stream', 'channel'], { error: 'Invalid type' }).default('direct'),
      op: z.enum(['start', 'stop'], { error: 'Invalid op' }),
      to: p.intList().optional(),
      stream_id: p.int().optional(),
      topic: p.string().optional(),
    },
    async handler({ actor, user, args }) {
      if (args.type === 'stream' || args.type === 'channel') {
        if (args.stream_id === undefined) throw badRequest('Missing stream_id');
        if (args.topic === undefined) throw badRequest('Missing topic');
        sendChannelTyping(actor, user, args.op, args.stream_id, args.topic);
      } else {
        if (args.to === undefined) throw badRequest("Missing 'to' argument");
        sendDirectTyping(actor, user, args.op, args.to);
      }
      return {};
    },
  }),
];
