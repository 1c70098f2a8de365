// The event queues of one realm: creation, delivery to an audience, long-polls, heartbeats,
// expiry and overflow. Lives inside the realm actor; nothing here touches the database.
import { ApiError } from '../http/errors.js';
import { EventQueue, type ChatEvent, type QueueOptions, type QueuedEvent } from './queue.js';

export interface HubLimits {
  heartbeatSeconds: number;
  maxEvents: number;
  maxBytes: number;
}

/** An event for every queue, or a function that shapes (or withholds) it per queue. */
export type EventSource = ChatEvent | ((queue: EventQueue) => ChatEvent | null);

export const DEFAULT_QUEUE_LIFESPAN_SECONDS = 600;
export const MAX_QUEUE_LIFESPAN_SECONDS = 7 * 24 * 3600;

export const badEventQueueId = (queueId: string) =>
  new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, 400, { queue_id: queueId });

export class EventHub {
  private readonly queues = new Map<string, EventQueue>();
  private readonly byUser = new Map<number, Set<EventQueue>>();
  private readonly pollsByRequest = new Map<string, EventQueue>();

  constructor(private readonly limits: HubLimits) {}

  get queueCount() {
    return this.queues.size;
  }

  create(opts: QueueOptions, id?: string): EventQueue {
    const queue = new EventQueue(opts, id);
    this.queues.set(queue.id, queue);
    let set = this.byUser.get(opts.userId);
    if (!set) this.byUser.set(opts.userId, (set = new Set()));
    set.add(queue);
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

  allQueues(): Iterable<EventQueue> {
    return this.queues.values();
  }

  delete(queue: EventQueue): void {
    if (queue.parked) this.finishPoll(queue, []);
    this.queues.delete(queue.id);
    const set = this.byUser.get(queue.userId);
    set?.delete(queue);
    if (set && set.size === 0) this.byUser.delete(queue.userId);
  }

  /** Drops every queue of a user (deactivation, key change): their polls end at once. */
  deleteUserQueues(userId: number): void {
    for (const queue of [...this.queuesOf(userId)]) this.delete(queue);
  }

  /** Delivers an event to every queue of the given users that wants its type. */
  publish(source: EventSource, userIds: Iterable<number>): void {
    const shared = typeof source === 'function' ? null : source;
    const sharedSize = shared ? JSON.stringify(shared).length + 12 : 0;
    for (const userId of userIds) {
      const set = this.byUser.get(userId);
      if (!set) continue;
      for (const queue of set) {
        const event = shared ?? (source as (q: EventQueue) => ChatEvent | null)(queue);
        if (!event || !queue.wants(event.type)) continue;
        if (event.type === 'message' && queue.opts.messageFilter && !queue.opts.messageFilter(event)) continue;
        const size = shared ? sharedSize : JSON.stringify(event).length + 12;
        if (!queue.push(event, size, this.limits)) {
          // Unbounded growth is worse than a re-register: drop the queue; its client sees
          // BAD_EVENT_QUEUE_ID on the next poll.
          this.delete(queue);
          continue;
        }
        if (queue.parked) this.finishPoll(queue, queue.pending());
      }
    }
  }

  /**
   * Attaches a long-poll. Resolves at once with pending events (or empty when dontBlock),
   * else on the next event or with a heartbeat after the heartbeat interval.
   */
  poll(queue: EventQueue, requestId: string, dontBlock: boolean): Promise<QueuedEvent[]> {
    queue.lastConnection = Date.now();
    if (queue.parked) this.finishPoll(queue, queue.pending());
    const pending = queue.pending();
    if (pending.length > 0 || dontBlock) return Promise.resolve(pending);
    return new Promise((resolve) => {
      const jitter = Math.random() * Math.min(10, this.limits.heartbeatSeconds * 0.2);
      const heartbeatTimer = setTimeout(() => {
        if (queue.parked?.requestId !== requestId) return;
        this.finishPoll(queue, [{ type: 'heartbeat', id: queue.takeId() }]);
      }, (this.limits.heartbeatSeconds + jitter) * 1000);
      heartbeatTimer.unref();
      queue.parked = { requestId, resolve, heartbeatTimer };
      this.pollsByRequest.set(requestId, queue);
    });
  }

  /** The client went away mid-poll: release the poll and its timer. */
  cancelPoll(requestId: string): void {
    const queue = this.pollsByRequest.get(requestId);
    if (queue?.parked?.requestId === requestId) this.finishPoll(queue, []);
  }

  private finishPoll(queue: EventQueue, events: QueuedEvent[]): void {
    const parked = queue.parked;
    if (!parked) return;
    queue.parked = null;
    queue.lastConnection = Date.now();
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
    for (const queue of [...this.queues.values()]) this.delete(queue);
  }
}
