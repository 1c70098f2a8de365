// The event queues of one realm: creation, delivery to an audience, long-polls, heartbeats,
// expiry and overflow. Lives inside the realm actor; nothing here touches the database.
//
// Actions deliver events with `publish(eventOrPerQueueFn, userIds)`: the event goes to every
// queue of those users that asked for its type, and a per-queue function may shape it for the
// queue's client capabilities (see shape.ts), return several events, or withhold it (null).
import { ApiError } from '../model/errors.js';
import { EventQueue, THIS_SERVER, type QueueOptions, type QueuedEvent, type QueueSnapshot } from './queue.js';
import { heartbeatEvent, restartEvent, type ServerEvent } from './catalog/index.js';
import { SERVER_GENERATION, ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../model/version.js';
import { buildMessageFilter } from './narrow.js';
import { acceptsEvent } from './shape.js';
import { fanOutMessage, type MessageFanout } from './messageFanout.js';
import { eventJson } from '../http/bodyText.js';

export interface HubLimits {
  heartbeatSeconds: number;
  maxEvents: number;
  maxBytes: number;
  /** Process-wide tallies the hubs of one process add to (exported as metrics). */
  counters?: HubCounters;
}

/** What the event hubs of a process have done since it started. */
export interface HubCounters {
  /** Events put into a queue (one per queue that received it). */
  eventsDelivered: number;
  /** Queues dropped because they outgrew their limits (their clients must register again). */
  queuesOverflowed: number;
}

/**
 * An event for every queue, or a function that shapes it per queue: it returns the event,
 * several events (delivered in order, e.g. one per message for old clients), or null.
 */
export type EventSource = ServerEvent | ((queue: EventQueue) => ServerEvent | ServerEvent[] | null);

/** A register building its answer: the queue it made (null before), and whether its client left. */
export interface RegisterInProgress {
  queueId: string | null;
  abandoned: boolean;
}

export const DEFAULT_QUEUE_LIFESPAN_SECONDS = 600;
export const MAX_QUEUE_LIFESPAN_SECONDS = 7 * 24 * 3600;
/** Zulip waits 45 s plus up to 10 s of jitter; the jitter spreads heartbeats of many clients. */
const MAX_HEARTBEAT_JITTER_SECONDS = 10;
/** Shortest time between two answers to a queue's parked polls while events stream in. */
const MIN_ANSWER_INTERVAL_MS = 10;

export const badEventQueueId = (queueId: string) =>
  new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, 400, { queue_id: queueId });

/**
 * Rough size of an event in the queue's byte budget (its JSON text plus the id). A message
 * object's JSON is made once per send and shape (see eventJson) and reused by poll answers.
 */
const eventSize = (event: ServerEvent) => eventJson(event).length + 12;

export class EventHub {
  private readonly queues = new Map<string, EventQueue>();
  private readonly byUser = new Map<number, Set<EventQueue>>();
  private readonly pollsByRequest = new Map<string, EventQueue>();
  /** Queues registered with all_public_streams, so a public channel's send need not scan every queue. */
  private readonly allPublic = new Set<EventQueue>();
  /** Registers still building their answer, by request id (see beginRegister). */
  private readonly registers = new Map<string, RegisterInProgress>();
  /** Queues with a parked poll and new events, answered at the end of this turn (see wake). */
  private readonly woken = new Set<EventQueue>();
  private wakeScheduled = false;
  /** Queues whose answer waits for MIN_ANSWER_INTERVAL_MS to pass (see wake). */
  private readonly delayed = new Set<EventQueue>();
  private delayTimer: NodeJS.Timeout | null = null;

  /**
   * Told when a queue is created, deleted or gets an event (cluster mode copies changed
   * queues to Redis so they survive a crash of this process); unset in one-process mode.
   */
  onQueueChange: ((queue: EventQueue, change: 'created' | 'event' | 'deleted') => void) | null = null;

  constructor(private readonly limits: HubLimits) {}

  /** False where the queues' events and polls live in other processes (queue shards). */
  get holdsQueues(): boolean {
    return true;
  }

  get queueCount() {
    return this.queues.size;
  }

  /** Long-polls currently parked (waiting for an event or a heartbeat). */
  get parkedCount() {
    return this.pollsByRequest.size;
  }

  get heartbeatSeconds() {
    return this.limits.heartbeatSeconds;
  }

  create(opts: QueueOptions, id?: string): EventQueue {
    const queue = new EventQueue(opts, id);
    this.queues.set(queue.id, queue);
    let set = this.byUser.get(opts.userId);
    if (!set) this.byUser.set(opts.userId, (set = new Set()));
    set.add(queue);
    if (opts.allPublicStreams) this.allPublic.add(queue);
    this.onQueueChange?.(queue, 'created');
    return queue;
  }

  /** The caller's queue, or BAD_EVENT_QUEUE_ID (another user's queue counts as unknown). */
  get(queueId: string, userId: number): EventQueue {
    const queue = this.queues.get(queueId);
    if (!queue || queue.userId !== userId) throw badEventQueueId(queueId);
    return queue;
  }

  queuesOf(userId: number): Iterable<EventQueue> {
    return this.byUser.get(userId) ?? [];
  }

  /** Whether the user has at least one queue (a client connected recently). */
  hasQueues(userId: number): boolean {
    return this.byUser.has(userId);
  }

  allQueues(): Iterable<EventQueue> {
    return this.queues.values();
  }

  /** The queues registered with all_public_streams (they get every public channel's messages). */
  allPublicStreamsQueues(): Iterable<EventQueue> {
    return this.allPublic;
  }

  delete(queue: EventQueue): void {
    if (queue.parked) this.finishPoll(queue, []);
    this.queues.delete(queue.id);
    this.allPublic.delete(queue);
    const set = this.byUser.get(queue.userId);
    set?.delete(queue);
    if (set && set.size === 0) this.byUser.delete(queue.userId);
    this.onQueueChange?.(queue, 'deleted');
  }

  /**
   * Drops a queue whose id never reached its client (its register failed after making it, or
   * its client left before the answer), rather than keep it until it expires. False when it
   * was gone already.
   */
  discard(queueId: string): boolean {
    const queue = this.queues.get(queueId);
    if (queue) this.delete(queue);
    return queue !== undefined;
  }

  /** A register (request `requestId`) starts; endRegister when it answered or failed. */
  beginRegister(requestId: string): RegisterInProgress {
    const progress: RegisterInProgress = { queueId: null, abandoned: false };
    this.registers.set(requestId, progress);
    return progress;
  }

  endRegister(requestId: string): void {
    this.registers.delete(requestId);
  }

  /**
   * The client of a register still in progress left: it will never learn the queue's id, so
   * the queue (if made yet) goes now. Returns the dropped queue's id, or null.
   */
  abandonRegister(requestId: string): string | null {
    const progress = this.registers.get(requestId);
    if (!progress) return null;
    progress.abandoned = true;
    return progress.queueId !== null && this.discard(progress.queueId) ? progress.queueId : null;
  }

  /** Drops every queue of a user (deactivation, key change): their polls end at once. */
  deleteUserQueues(userId: number): void {
    for (const queue of [...this.queuesOf(userId)]) this.delete(queue);
  }

  /**
   * Counts calls to publish, whether or not a queue takes the event: every change a user can
   * see is published, so derived per-user values computed at one count hold until the next.
   */
  published = 0;

  /** Delivers an event to every queue of the given users that wants it. */
  publish(source: EventSource, userIds: Iterable<number>): void {
    this.published++;
    const shared = typeof source === 'function' ? null : source;
    // Sizes count against a queue's byte budget, only where the queues are held.
    const holds = this.holdsQueues;
    const sharedSize = shared && holds ? eventSize(shared) : 0;
    for (const userId of userIds instanceof Set ? userIds : new Set(userIds)) {
      const set = this.byUser.get(userId);
      if (!set) continue;
      // Deleting the current entry of a Set while iterating it is safe.
      for (const queue of set) {
        let delivered: boolean;
        if (shared) {
          delivered = this.deliver(queue, shared, sharedSize);
        } else {
          const shaped = (source as (q: EventQueue) => ServerEvent | ServerEvent[] | null)(queue);
          if (!shaped) continue;
          delivered = true;
          for (const event of Array.isArray(shaped) ? shaped : [shaped]) {
            if (!(delivered = this.deliver(queue, event, holds ? eventSize(event) : 0))) break;
          }
        }
        // A parked poll ends once, with everything queued in this turn of the event loop.
        if (delivered && queue.parked && queue.hasPending) this.wake(queue);
      }
    }
  }

  /**
   * Delivers a message to every queue of its receiving users that takes it (see
   * messageFanout.ts); queues in `skip` are left out.
   */
  publishMessage(f: MessageFanout, skip?: ReadonlySet<string>): void {
    this.published++;
    const sizes = new Map<ServerEvent, number>();
    fanOutMessage(
      f,
      (userId) => this.byUser.get(userId) ?? [],
      (queue, event) => {
        let size = sizes.get(event);
        if (size === undefined) sizes.set(event, (size = eventSize(event)));
        if (this.deliver(queue, event, size) && queue.parked && queue.hasPending) this.wake(queue);
      },
      skip,
    );
  }

  /**
   * Ends the queue's parked poll once the current synchronous work is done: a committed
   * batch of sends publishes its messages one after the other, and each waiting client gets
   * them all in one response instead of the first alone (then the rest on its next poll).
   * A queue answered less than MIN_ANSWER_INTERVAL_MS ago waits out the rest of that
   * interval, so that under a stream of events each client gets them in few responses (one
   * per interval at most) rather than one response per commit; an isolated event still
   * goes out at once.
   */
  private wake(queue: EventQueue): void {
    this.woken.add(queue);
    if (this.wakeScheduled) return;
    this.wakeScheduled = true;
    queueMicrotask(() => {
      this.wakeScheduled = false;
      const woken = [...this.woken];
      this.woken.clear();
      const now = Date.now();
      for (const q of woken) {
        if (!q.parked || !q.hasPending) continue;
        if (now - q.lastAnswered >= MIN_ANSWER_INTERVAL_MS) this.finishPoll(q, q.pending());
        else this.answerLater(q, q.lastAnswered + MIN_ANSWER_INTERVAL_MS - now);
      }
    });
  }

  /** Answers the queue's poll after `ms` (at most MIN_ANSWER_INTERVAL_MS), with one timer for all. */
  private answerLater(queue: EventQueue, ms: number): void {
    this.delayed.add(queue);
    if (this.delayTimer) return;
    this.delayTimer = setTimeout(() => {
      this.delayTimer = null;
      const delayed = [...this.delayed];
      this.delayed.clear();
      for (const q of delayed) if (q.parked && q.hasPending) this.finishPoll(q, q.pending());
    }, ms);
  }

  /**
   * Resolves when a new queue can be polled. Here at once; where queues live in other
   * processes (a cluster's queue shards), once the queue's process has it.
   */
  ready(_queueId: string): Promise<void> {
    return Promise.resolve();
  }

  /** A queue by id, whoever owns it (for a process that checks the owner by other means). */
  find(queueId: string): EventQueue | undefined {
    return this.queues.get(queueId);
  }

  /**
   * Puts an event already addressed and shaped elsewhere (by the realm's actor, for queues
   * held in this process) into the listed queues. Returns the ids of queues not here.
   */
  deliverTo(event: ServerEvent, queueIds: readonly string[]): string[] {
    this.published++;
    const missing: string[] = [];
    const size = eventSize(event);
    for (const id of queueIds) {
      const queue = this.queues.get(id);
      if (!queue) {
        missing.push(id);
        continue;
      }
      if (this.deliver(queue, event, size) && queue.parked && queue.hasPending) this.wake(queue);
    }
    return missing;
  }

  /** Queues one event if the queue wants it; false when the queue overflowed and was dropped. */
  protected deliver(queue: EventQueue, event: ServerEvent, size: number): boolean {
    if (!queue.wants(event.type) || !acceptsEvent(queue, event)) return true;
    if (!queue.push(event, size, this.limits)) {
      // Unbounded growth is worse than a re-register: drop the queue; its client sees
      // BAD_EVENT_QUEUE_ID on the next poll and registers again.
      this.delete(queue);
      if (this.limits.counters) this.limits.counters.queuesOverflowed++;
      return false;
    }
    if (this.limits.counters) this.limits.counters.eventsDelivered++;
    this.onQueueChange?.(queue, 'event');
    return true;
  }

  /**
   * Attaches a long-poll. Resolves at once with pending events (or empty when dontBlock),
   * else on the next event, or with a heartbeat event after the heartbeat interval.
   * A new poll on a queue finishes the previous one with the queue's current contents.
   */
  poll(queue: EventQueue, requestId: string, dontBlock: boolean): Promise<QueuedEvent[]> {
    const now = (queue.lastConnection = Date.now());
    if (queue.parked) this.finishPoll(queue, queue.pending());
    // Events waiting for a client that was answered less than MIN_ANSWER_INTERVAL_MS ago wait
    // out the rest of it, as they would have had its poll been parked when they came (see
    // wake): a client whose next poll comes back after events did (a front between them, a
    // slow link) would otherwise get one answer per round trip.
    const wait = queue.hasPending && !dontBlock ? queue.lastAnswered + MIN_ANSWER_INTERVAL_MS - now : 0;
    if (dontBlock || (queue.hasPending && wait <= 0)) {
      const events = queue.pending();
      if (events.length > 0) queue.lastAnswered = now;
      return Promise.resolve(events);
    }
    return new Promise((resolve) => {
      const hb = this.limits.heartbeatSeconds;
      const jitter = Math.random() * Math.min(MAX_HEARTBEAT_JITTER_SECONDS, hb * 0.2);
      const heartbeatTimer = setTimeout(() => this.heartbeat(queue, requestId), (hb + jitter) * 1000);
      queue.parked = { requestId, resolve, heartbeatTimer };
      this.pollsByRequest.set(requestId, queue);
      if (wait > 0) this.answerLater(queue, wait);
    });
  }

  /** The poll waited a full interval: a heartbeat event goes into the queue and ends it. */
  private heartbeat(queue: EventQueue, requestId: string): void {
    if (queue.parked?.requestId !== requestId) return;
    const heartbeat = heartbeatEvent();
    if (!queue.push(heartbeat, eventSize(heartbeat), this.limits)) {
      this.delete(queue);
      return;
    }
    this.onQueueChange?.(queue, 'event');
    this.finishPoll(queue, queue.pending());
  }

  /** The client went away mid-poll: release the poll and its timer; events stay queued. */
  cancelPoll(requestId: string): void {
    const queue = this.pollsByRequest.get(requestId);
    if (queue?.parked?.requestId === requestId) this.finishPoll(queue, []);
  }

  private finishPoll(queue: EventQueue, events: QueuedEvent[]): void {
    const parked = queue.parked;
    if (!parked) return;
    queue.parked = null;
    queue.lastConnection = Date.now();
    if (events.length > 0) queue.lastAnswered = queue.lastConnection;
    clearTimeout(parked.heartbeatTimer);
    this.pollsByRequest.delete(parked.requestId);
    parked.resolve(events);
  }

  /** Removes queues idle past their lifespan. Returns how many were collected. */
  collectGarbage(now = Date.now()): number {
    let n = 0;
    for (const queue of [...this.queues.values()]) {
      if (queue.expired(now)) {
        this.delete(queue);
        n++;
      }
    }
    return n;
  }

  close(): void {
    this.onQueueChange = null;
    if (this.delayTimer) clearTimeout(this.delayTimer);
    this.delayTimer = null;
    this.delayed.clear();
    for (const queue of [...this.queues.values()]) this.delete(queue);
  }

  /**
   * The queues as plain data, for a cluster hand-off: ids, options (the narrow, not the
   * filter function), buffered events, next event id, last connection. Parked polls are
   * not part of it (the leaving process answers them so clients poll the new owner).
   * Queues that cannot be moved (over `maxEvents`, or options that are not plain data) are
   * left out and listed in `skipped` with the reason; their clients re-register.
   */
  exportQueues(maxEvents = Infinity): { queues: QueueSnapshot[]; skipped: { id: string; reason: string }[] } {
    const queues: QueueSnapshot[] = [];
    const skipped: { id: string; reason: string }[] = [];
    for (const queue of this.queues.values()) {
      try {
        const snap = queue.snapshot(maxEvents);
        if (snap) queues.push(snap);
        else skipped.push({ id: queue.id, reason: `more than ${maxEvents} events buffered` });
      } catch (err) {
        skipped.push({ id: queue.id, reason: (err as Error).message });
      }
    }
    return { queues, skipped };
  }

  /**
   * Adds queues exported by another process; ids stay the same, so clients keep polling them.
   * A queue copied under another server version or feature level (an upgrade, or a copy too
   * old to say) gets a `restart` event naming this server, as Zulip tells its queues after a
   * restart, so clients refetch what depends on the version.
   */
  importQueues(snapshots: Iterable<QueueSnapshot>): number {
    let n = 0;
    for (const snap of snapshots) {
      if (this.queues.has(snap.id)) continue;
      const queue = EventQueue.restore(snap, buildMessageFilter(snap.opts.narrow ?? []));
      this.queues.set(queue.id, queue);
      let set = this.byUser.get(queue.userId);
      if (!set) this.byUser.set(queue.userId, (set = new Set()));
      set.add(queue);
      n++;
      const sameServer =
        snap.server?.zulip_version === THIS_SERVER.zulip_version && snap.server.zulip_feature_level === THIS_SERVER.zulip_feature_level;
      if (!sameServer) {
        const event = restartEvent({
          zulip_version: ZULIP_VERSION,
          zulip_merge_base: ZULIP_MERGE_BASE,
          zulip_feature_level: ZULIP_FEATURE_LEVEL,
          server_generation: SERVER_GENERATION,
        });
        this.deliver(queue, event, JSON.stringify(event).length);
      }
    }
    return n;
  }
}
