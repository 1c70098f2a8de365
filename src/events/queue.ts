// One client's event queue: a bounded buffer of events and at most one parked long-poll.
import { randomUUID } from 'node:crypto';

export type ChatEvent = { type: string; [key: string]: unknown };
export type QueuedEvent = ChatEvent & { id: number };

export interface QueueOptions {
  userId: number;
  eventTypes: Set<string> | null;
  /** Predicate on message events for narrowed queues; null takes every message. */
  messageFilter: ((event: ChatEvent) => boolean) | null;
  clientCapabilities: Record<string, boolean>;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allPublicStreams: boolean;
  lifespanSeconds: number;
  clientName: string;
}

export interface ParkedPoll {
  requestId: string;
  resolve: (events: QueuedEvent[]) => void;
  heartbeatTimer: NodeJS.Timeout;
}

export class EventQueue {
  readonly id: string;
  private buffer: QueuedEvent[] = [];
  private sizes: number[] = [];
  private bytes = 0;
  private nextEventId = 0;
  /** Highest event id the client has acknowledged (events up to it were pruned). */
  newestPrunedId = -1;
  lastConnection = Date.now();
  parked: ParkedPoll | null = null;
  overflowed = false;

  constructor(readonly opts: QueueOptions, id: string = randomUUID()) {
    this.id = id;
  }

  get userId() {
    return this.opts.userId;
  }

  wants(type: string): boolean {
    return this.opts.eventTypes === null || this.opts.eventTypes.has(type);
  }

  get lastEventId(): number {
    return this.nextEventId - 1;
  }

  get size() {
    return { events: this.buffer.length, bytes: this.bytes };
  }

  /** Adds an event; returns false when the queue passed its bounds and must be dropped. */
  push(event: ChatEvent, size: number, limits: { maxEvents: number; maxBytes: number }): boolean {
    const queued = { ...event, id: this.nextEventId++ } as QueuedEvent;
    this.buffer.push(queued);
    this.sizes.push(size);
    this.bytes += size;
    if (this.buffer.length > limits.maxEvents || this.bytes > limits.maxBytes) {
      this.overflowed = true;
      return false;
    }
    return true;
  }

  /** Reserves an id without storing an event (heartbeats). */
  takeId(): number {
    return this.nextEventId++;
  }

  /** Drops events the client acknowledged. Returns an error message when the id is impossible. */
  prune(lastEventId: number): string | null {
    if (lastEventId < this.newestPrunedId) return `An event newer than ${this.newestPrunedId} has already been pruned!`;
    if (lastEventId > this.lastEventId) return `Event ${lastEventId} was not in this queue`;
    let dropped = 0;
    while (dropped < this.buffer.length && this.buffer[dropped]!.id <= lastEventId) {
      this.bytes -= this.sizes[dropped]!;
      dropped++;
    }
    if (dropped) {
      this.buffer.splice(0, dropped);
      this.sizes.splice(0, dropped);
    }
    this.newestPrunedId = Math.max(this.newestPrunedId, lastEventId);
    return null;
  }

  pending(): QueuedEvent[] {
    return this.buffer.slice();
  }

  expired(now: number): boolean {
    return this.parked === null && now - this.lastConnection >= this.opts.lifespanSeconds * 1000;
  }
}
