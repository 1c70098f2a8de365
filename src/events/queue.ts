// One client's event queue: a bounded buffer of events and at most one parked long-poll.
// Kept small on purpose: thousands of idle queues live in one process, so a queue holds no
// timer and no closure of its own; only a parked poll carries a resolver and one timer.
import { randomUUID } from 'node:crypto';
import type { NarrowTerm } from '../model/narrow.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_VERSION } from '../model/version.js';

import type { ServerEvent } from './catalog/index.js';

/** An event as a queue holds it and a client receives it: with the queue's sequence number. */
export type QueuedEvent = ServerEvent & { id: number };

export interface QueueOptions {
  userId: number;
  /** Event types the client asked for; null takes every type. */
  eventTypes: Set<string> | null;
  /** Predicate on message events for narrowed queues; null takes every message. */
  messageFilter: ((event: ServerEvent) => boolean) | null;
  clientCapabilities: Record<string, boolean>;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allPublicStreams: boolean;
  includeSubscribers: boolean | 'partial';
  slimPresence: boolean;
  lifespanSeconds: number;
  clientName: string;
  /**
   * The narrow `messageFilter` was built from. A queue moving to another process (cluster
   * hand-off) carries this instead of the function and rebuilds the filter there; a queue
   * with a filter but no narrow cannot move (its client re-registers).
   */
  narrow?: NarrowTerm[];
  /**
   * A digest of the credential the queue was registered with (see auth/queueCredential.ts),
   * where its polls are answered by a process that does not hold the realm (queue shards).
   */
  credential?: string;
  /** For a queue registered through a web session: a digest of the session's CSRF token. */
  csrf?: string;
}

/** A queue as plain JSON data, to move it to another process (see EventHub.exportQueues). */
export interface QueueSnapshot {
  id: string;
  /** The options without `messageFilter`, with `eventTypes` as an array. */
  opts: Omit<QueueOptions, 'eventTypes' | 'messageFilter'> & { eventTypes: string[] | null };
  nextEventId: number;
  newestPrunedId: number | null;
  lastConnection: number;
  events: QueuedEvent[];
  sizes: number[];
  /** The server the queue lived under when copied (absent in copies made before this field). */
  server?: ServerIdentity;
}

/** What a client learns of the server from register and `restart` events. */
export interface ServerIdentity {
  zulip_version: string;
  zulip_feature_level: number;
}

export const THIS_SERVER: ServerIdentity = { zulip_version: ZULIP_VERSION, zulip_feature_level: ZULIP_FEATURE_LEVEL };

export interface ParkedPoll {
  requestId: string;
  resolve: (events: QueuedEvent[]) => void;
  heartbeatTimer: NodeJS.Timeout;
}

export class EventQueue {
  readonly id: string;
  /**
   * The queued events, without their ids: ids are consecutive, so `buffer[i]` has id
   * `nextEventId - buffer.length + i`. A message event is kept as published (one object
   * shared by the queues that get it) and gets its id when the queue is read: under load a
   * queued event may wait seconds, and a copy per queue made at push would live that long.
   */
  private buffer: ServerEvent[] = [];
  private sizes: number[] = [];
  private bytes = 0;
  private nextEventId = 0;
  /** Id of the newest event the client acknowledged; null until something was pruned. */
  newestPrunedId: number | null = null;
  lastConnection = Date.now();
  /** When a poll was last answered with events (see EventHub.wake); 0 before that. */
  lastAnswered = 0;
  parked: ParkedPoll | null = null;

  /**
   * Whether the queue takes message events, read once: a message to a large channel asks it
   * of thousands of queues, and a field of the queue itself is at hand where its options'
   * set of types is a few memory loads away.
   */
  private readonly takesMessages: boolean;
  /** The queue's shape class of message objects (see messageFanout.ts), once asked; -1 before. */
  messageShapeClass = -1;

  /** The narrow's predicate on message events (opts.messageFilter), at hand likewise. */
  readonly messageFilter: QueueOptions['messageFilter'];

  constructor(readonly opts: QueueOptions, id: string = randomUUID()) {
    this.id = id;
    this.takesMessages = opts.eventTypes === null || opts.eventTypes.has('message');
    this.messageFilter = opts.messageFilter;
  }

  get userId() {
    return this.opts.userId;
  }

  wants(type: string): boolean {
    if (type === 'message') return this.takesMessages;
    return this.opts.eventTypes === null || this.opts.eventTypes.has(type);
  }

  /** Id of the newest event ever queued (-1 when none). */
  get lastEventId(): number {
    return this.nextEventId - 1;
  }

  get size() {
    return { events: this.buffer.length, bytes: this.bytes };
  }

  /** Adds an event; returns false when the queue passed its bounds and must be dropped. */
  push(event: ServerEvent, size: number, limits: { maxEvents: number; maxBytes: number }): boolean {
    this.nextEventId++;
    // Other events are copied, as their publisher may reuse the object.
    this.buffer.push(event.type === 'message' ? event : { ...event });
    this.sizes.push(size);
    this.bytes += size;
    return this.buffer.length <= limits.maxEvents && this.bytes <= limits.maxBytes;
  }

  /**
   * Drops the events the client acknowledged (ids up to lastEventId), with Zulip's checks:
   * an id older than what was already pruned, or an id that was never in the queue, is an
   * error. Returns the error message, or null.
   */
  prune(lastEventId: number): string | null {
    if (this.newestPrunedId !== null && lastEventId < this.newestPrunedId) {
      return `An event newer than ${lastEventId} has already been pruned!`;
    }
    const firstId = this.nextEventId - this.buffer.length;
    let dropped = 0;
    while (dropped < this.buffer.length && firstId + dropped <= lastEventId) {
      this.bytes -= this.sizes[dropped]!;
      this.newestPrunedId = firstId + dropped;
      dropped++;
    }
    if (dropped) {
      this.buffer.splice(0, dropped);
      this.sizes.splice(0, dropped);
    }
    if (this.newestPrunedId !== null && lastEventId !== this.newestPrunedId) {
      return `Event ${lastEventId} was not in this queue`;
    }
    return null;
  }

  /** The queued events with their ids. */
  pending(): QueuedEvent[] {
    const out: QueuedEvent[] = new Array(this.buffer.length);
    const firstId = this.nextEventId - this.buffer.length;
    for (let i = 0; i < out.length; i++) out[i] = withId(this.buffer[i]!, firstId + i);
    return out;
  }

  get hasPending(): boolean {
    return this.buffer.length > 0;
  }

  /** Plain data for another process, or null when more than `maxEvents` events are buffered. */
  snapshot(maxEvents = Infinity): QueueSnapshot | null {
    if (this.buffer.length > maxEvents) return null;
    const { eventTypes, messageFilter, ...rest } = this.opts;
    if (messageFilter && !rest.narrow) throw new Error(`queue ${this.id} has a message filter but no narrow to rebuild it from`);
    for (const [key, value] of Object.entries(rest)) {
      if (typeof value === 'function' || value instanceof Set || value instanceof Map) {
        throw new Error(`queue option ${key} is not plain data and cannot be moved`);
      }
    }
    return {
      id: this.id,
      // Object.assign, not a spread with eventTypes added: that makes a hidden class per copy.
      opts: Object.assign({}, rest, { eventTypes: eventTypes ? [...eventTypes] : null }),
      nextEventId: this.nextEventId,
      newestPrunedId: this.newestPrunedId,
      lastConnection: this.lastConnection,
      events: this.pending(),
      sizes: this.sizes.slice(),
      server: THIS_SERVER,
    };
  }

  /** A queue rebuilt from a snapshot; `messageFilter` comes from the snapshot's narrow. */
  static restore(snap: QueueSnapshot, messageFilter: QueueOptions['messageFilter']): EventQueue {
    const { eventTypes, ...rest } = snap.opts;
    const queue = new EventQueue(Object.assign({}, rest, { eventTypes: eventTypes ? new Set(eventTypes) : null, messageFilter }), snap.id);
    // A queue's events have consecutive ids ending at its last: they are made again from there.
    queue.buffer = snap.events.map(({ id: _id, ...event }) => event as ServerEvent);
    queue.sizes = snap.sizes.length === snap.events.length ? snap.sizes.slice() : snap.events.map((e) => JSON.stringify(e).length + 12);
    queue.bytes = queue.sizes.reduce((a, b) => a + b, 0);
    queue.nextEventId = snap.nextEventId;
    queue.newestPrunedId = snap.newestPrunedId;
    queue.lastConnection = snap.lastConnection;
    return queue;
  }

  expired(now: number): boolean {
    return this.parked === null && now - this.lastConnection >= this.opts.lifespanSeconds * 1000;
  }
}

/**
 * A queued event as a client gets it, with its id last. A message event is copied field by
 * field (a spread is several times slower; thousands are read per send), in the key order of
 * catalog/messages.ts, which their JSON relies on (see eventJson).
 */
function withId(event: ServerEvent, id: number): QueuedEvent {
  if (event.type !== 'message') {
    // Copied, then the id set: a spread with the id added would make a hidden class per call.
    const copy = Object.assign({}, event) as QueuedEvent;
    copy.id = id;
    return copy;
  }
  return (
    event.local_message_id === undefined
      ? { type: event.type, message: event.message, flags: event.flags, id }
      : { type: event.type, message: event.message, flags: event.flags, local_message_id: event.local_message_id, id }
  ) as QueuedEvent;
}
