// POST /register, GET /events, DELETE /events: event queues and long-polling.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { badRequest } from '../model/errors.js';
import { registerQueue } from '../register/register.js';
import { registerParams, withDefaults } from '../register/args.js';
import { registerSpectator } from '../register/spectator.js';
import { queueAccess } from '../auth/queueCredential.js';

export const eventEndpoints = [
  endpoint({
    method: 'POST',
    path: '/register',
    // Without credentials: a spectator's register, where the organization allows it.
    auth: 'optional',
    params: registerParams,
    async handler({ actor, user, args, req }) {
      if (!user) return registerSpectator(actor, args);
      return registerQueue(actor, user, withDefaults(args), req.userAgent ?? '', req, queueAccess(req, user.id));
    },
  }),
  endpoint({
    method: 'GET',
    path: '/events',
    auth: 'user',
    params: {
      queue_id: p.string().optional(),
      last_event_id: p.int().optional(),
      dont_block: p.bool().default(false),
      ...registerParams,
    },
    async handler({ actor, user, args, req }) {
      if (args.queue_id === undefined) {
        // Zulip lets a non-blocking poll without a queue register one (with the register
        // parameters); its answer names the new queue.
        if (!args.dont_block) throw badRequest("Missing 'queue_id' argument");
        const registered = await registerQueue(actor, user, withDefaults({ ...args, fetch_event_types: [] }), req.userAgent ?? '', req, queueAccess(req, user.id));
        return { queue_id: registered.queue_id, events: [] };
      }
      const queue = actor.events.get(args.queue_id, user.id);
      if (args.last_event_id !== undefined) {
        const problem = queue.prune(args.last_event_id);
        if (problem) throw badRequest(problem);
      }
      const events = await actor.events.poll(queue, req.id, args.dont_block);
      return { events, queue_id: queue.id };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/events',
    auth: 'user',
    params: { queue_id: z.string() },
    async handler({ actor, user, args }) {
      actor.events.delete(actor.events.get(args.queue_id, user.id));
      return {};
    },
  }),
];
