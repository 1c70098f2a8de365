// POST /register: creates a queue and the initial state in the same actor turn, so no
// event can fall between the snapshot and the queue. A register that fails after making the
// queue, or whose client leaves before the answer, drops the queue: its client never learns
// the id, and the queue would only count against limits and take events until it expired.
// In a cluster the front's giving up (504) counts as the client leaving.
import { badRequest, requestCancelled } from '../model/errors.js';
import type { RealmActor } from '../realm/actor.js';
import { Role, type User } from '../model/types.js';
import { DEFAULT_QUEUE_LIFESPAN_SECONDS, MAX_QUEUE_LIFESPAN_SECONDS, type RegisterInProgress } from '../events/hub.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../model/version.js';
import { initialState } from './sections.js';
import type { RegisterArgs } from './args.js';
import { buildMessageFilter, checkNarrowForEvents, normalizeNarrow } from '../events/narrow.js';
import type { NarrowTerm } from '../model/narrow.js';



/** The request a register answers: its id, and whether nobody will read the answer any more. */
export interface RegisterRequest {
  id: string;
  cancelled?: boolean;
}

/**
 * `request`: by its id the hub learns that its client left once the register has begun
 * (EventHub.abandonRegister); its `cancelled` mark tells of a client that left before.
 * `access`: what the queue keeps of the caller's credential (auth/queueCredential.ts).
 */
export async function registerQueue(
  actor: RealmActor,
  user: User,
  args: RegisterArgs,
  clientName: string,
  request: RegisterRequest,
  access: { credential?: string; csrf?: string } = {},
) {
  const requestId = request.id;
  const progress = actor.events.beginRegister(requestId);
  // Gone while the realm loaded or the caller was authenticated: no queue is made.
  if (request.cancelled) progress.abandoned = true;
  try {
    const registered = await createQueueWithState(actor, user, args, clientName, access, progress);
    if (request.cancelled && !progress.abandoned) {
      // Marked without the hub hearing of it: drop the queue as abandonRegister would.
      actor.events.discard(registered.queue_id);
      actor.services.log.info({ reqId: requestId, queueId: registered.queue_id }, 'client left before its register was answered: queue dropped');
      throw requestCancelled();
    }
    return registered;
  } catch (err) {
    if (progress.queueId === null && progress.abandoned) {
      actor.services.log.info({ reqId: requestId }, 'client left before its register made a queue: none made');
    }
    // (A queue whose client left was dropped then; one whose shard failed is gone already.)
    if (progress.queueId !== null && !progress.abandoned && actor.events.discard(progress.queueId)) {
      actor.services.log.info({ reqId: requestId, queueId: progress.queueId }, 'register failed after making its queue: queue dropped');
    }
    throw err;
  } finally {
    actor.events.endRegister(requestId);
  }
}

async function createQueueWithState(
  actor: RealmActor,
  user: User,
  args: RegisterArgs,
  clientName: string,
  access: { credential?: string; csrf?: string },
  progress: RegisterInProgress,
) {
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
  const registered = await actor.exclusive(async () => {
    // The client left while the register waited for the mailbox: no queue is made.
    if (progress.abandoned) throw requestCancelled();
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
      ...access,
    });
    progress.queueId = queue.id;
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
  // Where the queue lives in another process, its first poll may follow at once.
  await actor.events.ready(registered.queue_id);
  return registered;
}
