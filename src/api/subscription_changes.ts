// PATCH /users/me/subscriptions: join and leave channels in one request.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { MAX_STREAM_DESCRIPTION_LENGTH } from '../model/limits.js';
import { updateOwnSubscriptions } from '../actions/channels/subscriptionChanges.js';

export const subscriptionChangeEndpoints = [
  endpoint({
    method: 'PATCH',
    path: '/users/me/subscriptions',
    auth: 'user',
    params: {
      add: p.json(z.array(z.object({ name: z.string(), description: z.string().max(MAX_STREAM_DESCRIPTION_LENGTH).optional(), color: z.string().optional() }))).default([]),
      delete: p.stringList().default([]),
    },
    async handler({ actor, user, args }) {
      return updateOwnSubscriptions(actor, user, args.add, args.delete);
    },
  }),
];
