// POST /register: creates a queue and the initial state in the same actor turn, so no
// event can fall between the snapshot and the queue.
import { z } from 'zod';
import { p } from '../http/params.js';
import { badRequest } from '../http/errors.js';
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../realm/types.js';
import { DEFAULT_QUEUE_LIFESPAN_SECONDS, MAX_QUEUE_LIFESPAN_SECONDS } from './hub.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../version.js';
import { initialState } from './state.js';

const narrowTerm = z.union([
  z.tuple([z.string(), z.union([z.string(), z.number()])]),
  z.object({ operator: z.string(), operand: z.union([z.string(), z.number()]), negated: z.boolean().optional() }),
]);

export const registerParams = {
  apply_markdown: p.bool().default(false),
  client_gravatar: p.bool().default(true),
  slim_presence: p.bool().default(false),
  all_public_streams: p.bool().default(false),
  include_subscribers: p.jsonOrString(z.union([z.boolean(), z.literal('partial')])).default(false),
  client_capabilities: p.json(z.record(z.string(), z.boolean())).default({}),
  event_types: p.json(z.array(z.string())).optional(),
  fetch_event_types: p.json(z.array(z.string())).optional(),
  narrow: p.json(z.array(narrowTerm)).default([]),
  queue_lifespan_secs: p.int().default(0),
};

export type RegisterArgs = {
  apply_markdown: boolean;
  client_gravatar: boolean;
  slim_presence: boolean;
  all_public_streams: boolean;
  include_subscribers: boolean | 'partial';
  client_capabilities: Record<string, boolean>;
  event_types?: string[];
  fetch_event_types?: string[];
  narrow: z.infer<typeof narrowTerm>[];
  queue_lifespan_secs: number;
};

export type NarrowTerm = { operator: string; operand: string | number; negated: boolean };

const EVENT_NARROW_OPERATORS = new Set(['channel', 'stream', 'topic', 'sender', 'is']);

export function normalizeNarrow(narrow: RegisterArgs['narrow']): NarrowTerm[] {
  return narrow.map((t) =>
    Array.isArray(t) ? { operator: t[0], operand: t[1], negated: false } : { ...t, negated: t.negated ?? false },
  );
}

export async function registerQueue(actor: RealmActor, user: User, args: RegisterArgs, clientName: string) {
  const narrow = normalizeNarrow(args.narrow);
  for (const term of narrow) {
    if (!EVENT_NARROW_OPERATORS.has(term.operator)) throw badRequest(`Operator ${term.operator} not supported.`);
    if (term.operator === 'is' && term.operand === 'followed') throw badRequest('Operand followed not supported.');
    if (term.negated) throw badRequest('Negated narrows are not supported for event queues.');
  }
  const lifespan =
    args.queue_lifespan_secs > 0 ? Math.min(args.queue_lifespan_secs, MAX_QUEUE_LIFESPAN_SECONDS) : DEFAULT_QUEUE_LIFESPAN_SECONDS;
  const eventTypes = args.event_types ? new Set(args.event_types) : null;
  const fetchTypes = args.fetch_event_types ?? args.event_types ?? null;
  // Run in the mailbox: every change before this is in the snapshot, every change after
  // it lands in the queue.
  return actor.exclusive(async () => {
    const queue = actor.events.create({
      userId: user.id,
      eventTypes,
      messageFilter: null,
      clientCapabilities: args.client_capabilities,
      applyMarkdown: args.apply_markdown,
      clientGravatar: args.client_gravatar,
      allPublicStreams: args.all_public_streams,
      lifespanSeconds: lifespan,
      clientName,
    });
    const state = initialState(actor, user, fetchTypes ? new Set(fetchTypes) : null, args, narrow);
    return {
      queue_id: queue.id,
      last_event_id: queue.lastEventId,
      zulip_feature_level: ZULIP_FEATURE_LEVEL,
      zulip_version: ZULIP_VERSION,
      zulip_merge_base: ZULIP_MERGE_BASE,
      ...state,
    };
  });
}
