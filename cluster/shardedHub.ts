// The realm actor's EventHub when its queues live in queue shards (see queueShards.ts). The
// actor keeps every queue's options (to address and shape events as it always does) but no
// events and no polls: what a queue would receive is batched per shard and sent once per
// turn, each event once per shard with the ids of the queues it is for; a new message once
// per shard as the shard's receiving users and the message's shapes, from which the shard
// makes each queue's event (src/events/messageFanout.ts). Batches to one shard go one at a
// time, in order; a refused or lost batch is sent again to the shard's current worker
// (shards skip numbers they applied), so a shard that moves loses nothing.
import { randomUUID } from 'node:crypto';
import type { Logger } from '../src/log.js';
import { EventHub, type HubLimits } from '../src/events/hub.js';
import type { EventQueue, QueueOptions, QueueSnapshot } from '../src/events/queue.js';
import type { ServerEvent } from '../src/events/catalog/index.js';
import { acceptsEvent } from '../src/events/shape.js';
import { ApiError } from '../src/model/errors.js';
import { shardName, shardOfUser } from './queueShards.js';
import type { DeliverItem, DeliverOp, MessageFanoutWire, ShardBatch, ShardOp, ShardReply } from './shardOps.js';
import { SHAPE_GRAVATAR, SHAPE_SENDER_HIDDEN, messageShape, type MessageFanout } from '../src/events/messageFanout.js';

const NO_USERS: ReadonlySet<number> = new Set();

/** Sends a batch to the worker that holds its shard now (or refuses: `ok: false`). */
export type ShardSend = (batch: ShardBatch) => Promise<ShardReply>;

export interface ShardedHubOptions {
  subdomain: string;
  shards: number;
  send: ShardSend;
  /** A batch not taken for this long is given up (its shard's queues are reset). */
  retryBudgetMs: number;
  log: Logger;
}

/** How often a quiet shard is asked which queues it dropped. */
const SYNC_MS = 5_000;
const RETRY_WAITS_MS = [0, 25, 50, 100, 200, 400, 800];

/** The batch being filled for one shard: creations, then deliveries, then deletions. */
class Pending {
  creates: QueueSnapshot[] = [];
  deletes: string[] = [];
  reset = false;
  list = false;
  sync = false;
  readonly messages: Record<string, unknown>[] = [];
  private readonly messageIndex = new Map<object, number>();
  /** Deliveries in the order published: an event with the queues it goes to, or a message. */
  private readonly items: ({ e: ServerEvent; q: string[] } | { m: MessageFanoutWire; createsBefore: number })[] = [];
  private readonly byEvent = new Map<ServerEvent, { e: ServerEvent; q: string[] }>();
  readonly waiters: { resolve: (r: ShardReply) => void; reject: (e: Error) => void }[] = [];

  get empty(): boolean {
    return !this.reset && !this.list && !this.sync && !this.creates.length && !this.deletes.length && !this.items.length;
  }

  get delivers(): boolean {
    return this.items.length > 0;
  }

  /** An event for a queue: an event shared by many queues travels once, with their ids. */
  add(event: ServerEvent, queueId: string): void {
    let item = this.byEvent.get(event);
    if (!item) {
      this.byEvent.set(event, (item = { e: event, q: [] }));
      this.items.push(item);
    }
    item.q.push(queueId);
  }

  /** A message for the shard's queues of `users` (see events/messageFanout.ts). */
  addMessage(f: MessageFanout, shapes: Iterable<number>, users: number[], flags: number[]): void {
    const indexes: Record<string, number> = {};
    for (const shape of shapes) {
      const message = f.message(shape);
      let m = this.messageIndex.get(message);
      if (m === undefined) {
        m = this.messages.push(message) - 1;
        this.messageIndex.set(message, m);
      }
      indexes[shape] = m;
    }
    const names: Record<string, string[]> = {};
    for (const [bits, list] of f.flagNames) names[bits] = list;
    const wire: MessageFanoutWire = {
      shapes: indexes,
      users,
      flags,
      names,
      hidden: [...f.hidden],
      emailReal: f.senderEmailReal,
      pub: f.publicChannel,
      ...(f.echo ? { echo: f.echo } : {}),
    };
    this.items.push({ m: wire, createsBefore: this.creates.length });
  }

  ops(): ShardOp[] {
    const ops: ShardOp[] = [];
    if (this.reset) ops.push({ op: 'reset' });
    for (const queue of this.creates) ops.push({ op: 'create', queue });
    if (this.items.length) {
      const items = this.items.map((item): DeliverItem => {
        if (!('m' in item)) return item;
        // Queues made after the message in this batch do not get it (their register's state has it).
        const later = this.creates.slice(item.createsBefore).map((q) => q.id);
        return { m: later.length ? { ...item.m, skip: later } : item.m };
      });
      ops.push({ op: 'deliver', messages: this.messages, items } satisfies DeliverOp);
    }
    if (this.deletes.length) ops.push({ op: 'delete', queues: this.deletes });
    if (this.list) ops.push({ op: 'list' });
    if (!ops.length && this.sync) ops.push({ op: 'sync' });
    return ops;
  }
}

/** The ordered stream of batches to one shard. */
class Channel {
  private pending = new Pending();
  private sending = false;
  private scheduled = false;
  private seq = 0;
  private lastSent = Date.now();

  constructor(
    private readonly hub: ShardedHub,
    readonly shard: number,
    readonly name: string,
  ) {}

  get idle(): boolean {
    return !this.sending && this.pending.empty;
  }

  /** The batch being filled; it goes out at the end of this turn (or after the one in flight). */
  get open(): Pending {
    this.schedule();
    return this.pending;
  }

  /** Resolves with the shard's answer to the batch that carries what was just added. */
  answer(): Promise<ShardReply> {
    const open = this.open;
    return new Promise((resolve, reject) => open.waiters.push({ resolve, reject }));
  }

  private schedule(): void {
    if (this.scheduled || this.sending) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  sync(now: number): void {
    if (!this.idle || now - this.lastSent < SYNC_MS) return;
    this.open.sync = true;
    void this.answer().catch(() => undefined);
  }

  private async flush(): Promise<void> {
    if (this.sending || this.pending.empty || this.hub.closed) return;
    const batch = this.pending;
    this.pending = new Pending();
    this.sending = true;
    const changes = batch.reset || batch.creates.length > 0 || batch.delivers || batch.deletes.length > 0;
    const frame: ShardBatch = { unit: this.name, from: this.hub.id, seq: changes ? ++this.seq : 0, ops: batch.ops() };
    try {
      const reply = await this.deliver(frame);
      this.lastSent = Date.now();
      if (reply.ok) this.hub.gone(reply.gone);
      for (const w of batch.waiters) w.resolve(reply);
    } catch (err) {
      for (const w of batch.waiters) w.reject(err as Error);
      // What this shard's queues should have received is lost: they are reset, so their
      // clients register again rather than miss events.
      this.hub.lostShard(this.shard);
    } finally {
      this.sending = false;
      if (!this.pending.empty) this.schedule();
    }
  }

  /** Sends until a worker holding the shard takes the batch, within the retry budget. */
  private async deliver(frame: ShardBatch): Promise<ShardReply & { ok: true }> {
    const deadline = Date.now() + this.hub.o.retryBudgetMs;
    let why = '';
    for (let attempt = 0; ; attempt++) {
      if (this.hub.closed) throw new Error('realm closed');
      try {
        const reply = await this.hub.o.send(frame);
        if (reply.ok) return reply;
        why = reply.reason;
      } catch (err) {
        why = (err as Error).message;
      }
      if (Date.now() >= deadline) break;
      await new Promise((r) => setTimeout(r, RETRY_WAITS_MS[Math.min(attempt, RETRY_WAITS_MS.length - 1)]));
    }
    this.hub.o.log.warn({ shard: this.name, why }, 'queue shard did not take a batch');
    throw new ApiError('SERVER_NOT_READY', 'The event queue server is not available right now; try again', 503);
  }
}

export class ShardedHub extends EventHub {
  readonly id = randomUUID();
  closed = false;
  private quiet = false;
  private readonly channels: Channel[] = [];
  /** Each user's shard (see shardOfUser), kept once hashed. */
  private readonly userShards = new Map<number, number>();
  private readonly creating = new Map<string, Promise<ShardReply>>();
  private readonly syncTimer: NodeJS.Timeout;

  constructor(
    limits: HubLimits,
    readonly o: ShardedHubOptions,
  ) {
    super(limits);
    for (let k = 0; k < o.shards; k++) this.channels.push(new Channel(this, k, shardName(o.subdomain, k)));
    this.syncTimer = setInterval(() => {
      const now = Date.now();
      for (const c of this.channels) c.sync(now);
    }, SYNC_MS);
    this.syncTimer.unref();
  }

  override get holdsQueues(): boolean {
    return false;
  }

  private shardOf(userId: number): number {
    let k = this.userShards.get(userId);
    if (k === undefined) this.userShards.set(userId, (k = shardOfUser(userId, this.o.shards)));
    return k;
  }

  private channelOf(userId: number): Channel {
    return this.channels[this.shardOf(userId)]!;
  }

  /** The channel of a queue's shard, read from its id (`s<k>-…`, see create): no hash per event. */
  private channelOfQueue(queue: EventQueue): Channel {
    const id = queue.id;
    let k = 0;
    for (let i = 1, c = id.charCodeAt(1); c >= 48 && c <= 57; c = id.charCodeAt(++i)) k = k * 10 + c - 48;
    return this.channels[k] ?? this.channelOf(queue.userId);
  }

  /**
   * Before the realm serves: a realm handed over on purpose finds its queues in the shards;
   * otherwise (first start, or its previous worker died with batches unsent) the shards drop
   * the realm's queues, whose clients register again.
   */
  async attach(handedOver: boolean): Promise<void> {
    const replies = await Promise.all(
      this.channels.map((c) => {
        if (handedOver) c.open.list = true;
        else c.open.reset = true;
        return c.answer();
      }),
    );
    if (!handedOver) return;
    this.quiet = true;
    try {
      for (const reply of replies) if (reply.ok && reply.queues) this.importQueues(reply.queues);
    } finally {
      this.quiet = false;
    }
  }

  override create(opts: QueueOptions): EventQueue {
    const channel = this.channelOf(opts.userId);
    const queue = super.create(opts, `s${channel.shard}-${randomUUID()}`);
    this.noteShape(queue);
    channel.open.creates.push(queue.snapshot()!);
    const answer = channel.answer();
    answer.catch(() => undefined);
    this.creating.set(queue.id, answer);
    return queue;
  }

  /** Queues listed by the shards when the realm moved here (see attach). */
  override importQueues(snapshots: Iterable<QueueSnapshot>): number {
    const n = super.importQueues(snapshots);
    for (const queue of this.allQueues()) this.noteShape(queue);
    return n;
  }

  override async ready(queueId: string): Promise<void> {
    const answer = this.creating.get(queueId);
    if (!answer) return;
    try {
      await answer;
    } catch (err) {
      const queue = this.find(queueId);
      if (queue) this.forget(queue);
      throw err;
    } finally {
      this.creating.delete(queueId);
    }
  }

  /** Nobody waits for the queue to be ready any more; the shard is told to delete it. */
  override discard(queueId: string): boolean {
    this.creating.delete(queueId);
    return super.discard(queueId);
  }

  /**
   * The shapes of message objects (messageShape for a sender with a real email, nobody
   * hidden) that queues here have had: a message goes to a shard in each of them. Never
   * shrinks; a shape no queue has any more only costs the bytes of one object per batch.
   */
  private readonly shapeClasses = new Set<number>();

  private noteShape(queue: EventQueue): void {
    this.shapeClasses.add(messageShape(queue, { hidden: NO_USERS, senderEmailReal: true }));
  }

  /**
   * A message goes to each shard once, for the shard's users that have queues, with the
   * message object in every shape a queue may need; each shard makes the queues' events
   * (the actor does not visit the queues one by one).
   */
  override publishMessage(f: MessageFanout, skip?: ReadonlySet<string>): void {
    this.published++;
    if (skip?.size) throw new Error('a sharded hub does not skip queues of its own');
    const parts: ({ users: number[]; flags: number[] } | undefined)[] = [];
    let any = false;
    for (let i = 0; i < f.users.length; i++) {
      const userId = f.users[i]!;
      if (!this.hasQueues(userId)) continue;
      const k = this.shardOf(userId);
      let part = parts[k];
      if (!part) parts[k] = part = { users: [], flags: [] };
      part.users.push(userId);
      part.flags.push(f.flags[i]!);
      any = true;
    }
    if (!any) return;
    const shapes = new Set<number>();
    for (const c of this.shapeClasses) {
      const shape = f.senderEmailReal ? c : c & ~SHAPE_GRAVATAR;
      shapes.add(shape);
      if (f.hidden.size) shapes.add(shape | SHAPE_SENDER_HIDDEN);
    }
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k];
      if (part) this.channels[k]!.open.addMessage(f, shapes, part.users, part.flags);
    }
  }

  protected override deliver(queue: EventQueue, event: ServerEvent): boolean {
    if (!queue.wants(event.type) || !acceptsEvent(queue, event)) return true;
    this.channelOfQueue(queue).open.add(event, queue.id);
    return true;
  }

  override delete(queue: EventQueue): void {
    super.delete(queue);
    if (!this.quiet && !this.closed) this.channelOf(queue.userId).open.deletes.push(queue.id);
  }

  /** Drops a queue here only (the shard dropped it, or never had it). */
  private forget(queue: EventQueue): void {
    this.quiet = true;
    try {
      super.delete(queue);
    } finally {
      this.quiet = false;
    }
  }

  /** Queues a shard reports dropped (expired, overflowed, deleted by their client). */
  gone(ids: string[]): void {
    for (const id of ids) {
      const queue = this.find(id);
      if (queue) this.forget(queue);
    }
  }

  /** A shard could not be reached for the retry budget: its queues are dropped here and there. */
  lostShard(k: number): void {
    if (this.closed) return;
    for (const queue of [...this.allQueues()]) if (shardOfUser(queue.userId, this.o.shards) === k) this.forget(queue);
    const channel = this.channels[k]!;
    channel.open.reset = true;
    void channel.answer().catch(() => undefined);
  }

  /** Shards expire their queues themselves (the actor never sees polls). */
  override collectGarbage(): number {
    return 0;
  }

  /** Resolves once every batch went out (a planned hand-off of the realm), within `ms`. */
  async flush(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.channels.every((c) => c.idle)) {
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 5));
    }
    return true;
  }

  /** The actor closes: the queues stay in their shards (for the realm's next actor). */
  override close(): void {
    this.closed = true;
    clearInterval(this.syncTimer);
    this.quiet = true;
    super.close();
  }
}
