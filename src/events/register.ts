// POST /register: creates a queue and the initial state in the same actor turn, so no
// event can fall between the snapshot and the queue.
import { z } from 'zod';
import { p, type Args } from '../http/params.js';
import { badRequest } from '../http/errors.js';
import type { RealmActor } from '../realm/actor.js';
import { Role, type User } from '../realm/types.js';
import { DEFAULT_QUEUE_LIFESPAN_SECONDS, MAX_QUEUE_LIFESPAN_SECONDS } from './hub.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../version.js';
import { initialState } from './state.js';
import { buildMessageFilter, checkNarrowForEvents, normalizeNarrow, type NarrowTerm } from './narrow.js';

export type { NarrowTerm } from './narrow.js';

const narrowTerm = z.union([
  z.tuple([z.string(), z.union([z.string(), z.number()])]),
  z.object({ operator: z.string(), operand: z.union([z.string(), z.number()]), negated: z.boolean().optional() }),
]);

/** `include_subscribers` is a boolean or the text `partial` (plain or JSON-quoted). */
const includeSubscribers = z.preprocess(
  (v) => (v === 'true' ? true : v === 'false' ? false : v === 'partial' || v === '"partial"' ? 'partial' : v),
  z.union([z.boolean(), z.literal('partial')], { error: 'Invalid include_subscribers' }),
);

export const registerParams = {
  apply_markdown: p.bool().default(false),
  client_gravatar: p.bool().default(true),
  slim_presence: p.bool().default(false),
  presence_last_update_id: p.int().optional(),
  presence_history_limit_days: p.int().optional(),
  all_public_streams: p.bool().default(false),
  include_subscribers: includeSubscribers.default(false),
  include_streams: p.bool().default(true),
  client_capabilities: p.json(z.record(z.string(), z.boolean())).default({}),
  event_types: p.json(z.array(z.string())).optional(),
  fetch_event_types: p.json(z.array(z.string())).optional(),
  narrow: p.json(z.array(narrowTerm)).default([]),
  queue_lifespan_secs: p.int().default(0),
};

export type RegisterArgs = Args<typeof registerParams>;

export async function registerQueue(actor: RealmActor, user: User, args: RegisterArgs, clientName: string) {
  const narrow: NarrowTerm[] = normalizeNarrow(args.narrow);
  checkNarrowForEvents(narrow);
  // Guests never see channels they are not subscribed to (CVE-2021-30479).
  if (args.all_public_streams && user.role === Role.GUEST) throw badRequest('User not authorized for this query');
  const lifespan =
    args.queue_lifespan_secs > 0 ? Math.min(args.queue_lifespan_secs, MAX_QUEUE_LIFESPAN_SECONDS) : DEFAULT_QUEUE_LIFESPAN_SECONDS;
  const eventTypes = args.event_types ? new Set(args.event_types) : null;
  const fetchTypes = args.fetch_event_types ?? args.event_types ?? null;
  const capabilities: Record<string, boolean> = {};
  for (const [name, on] of Object.entries(args.client_capabilities)) if (on) capabilities[name] = true;
  // Run in the mailbox: every change before this is in the snapshot, every change after
  // it lands in the queue.
  return actor.exclusive(async () => {
    const queue = actor.events.create({
      userId: user.id,
      eventTypes,
      messageFilter: buildMessageFilter(narrow),
      // Kept so the queue can be rebuilt elsewhere (cluster hand-off); absent when unnarrowed.
      ...(narrow.length ? { narrow } : {}),
      clientCapabilities: capabilities,
      applyMarkdown: args.apply_markdown,
      clientGravatar: args.client_gravatar,
      allPublicStreams: args.all_public_streams,
      includeSubscribers: args.include_subscribers,
      slimPresence: args.slim_presence || args.presence_last_update_id !== undefined,
      lifespanSeconds: lifespan,
      clientName,
    });
    const state = await initialState(actor, user, fetchTypes ? new Set(fetchTypes) : null, args, narrow);
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
