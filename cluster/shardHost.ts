// The worker side of queue shards (see queueShards.ts): the shards placed on this worker,
// each an EventHub holding the queues and parked polls of its users. A shard is taken up
// under a lease in Redis when the first batch or poll for it arrives, with the queues its
// previous worker handed over; it answers polls itself (the queue keeps a digest of the
// credential it was registered with) and applies the batches the realm's actor sends.
// - Placement moves a shard away (a worker joined, or this one leaves): parked polls are
//   bounced (the front sends them to the new worker), later batches are refused (the actor
//   sends them there), the queues go to Redis, the lease is released.
// - This worker crashes: its lease runs out and the next worker starts the shard empty; the
//   queues' clients get BAD_EVENT_QUEUE_ID and register again.
import type { Redis } from 'ioredis';
import type { Logger } from '../src/log.js';
import { EventHub, badEventQueueId, type HubLimits } from '../src/events/hub.js';
import type { EventQueue, QueueSnapshot } from '../src/events/queue.js';
import type { ApiRequest, ApiResponse } from '../src/http/contract.js';
import { errorResponse, successBody } from '../src/http/envelope.js';
import { parseParams, p, type Args } from '../src/http/params.js';
import { registerParams } from '../src/register/args.js';
import { ApiError, unauthorized } from '../src/model/errors.js';
import { csrfDigest, queueCredential } from '../src/auth/queueCredential.js';
import { secretsEqual } from '../src/auth/keys.js';
import { checkOrigin, csrfFailed, sessionRequired } from '../src/api/sessionRequest.js';
import type { GateOutcome } from './realmGate.js';
import type { MembershipView } from './membership.js';
import type { RedisKeys } from './redis.js';
import { shardName } from './queueShards.js';
import type { DeliverOp, MessageFanoutWire, ShardBatch, ShardOp, ShardReply } from './shardOps.js';
import type { MessageFanout } from '../src/events/messageFanout.js';
import type { Keeper } from './keeper/index.js';
import { SHARD_LEASE_RELEASE, renewShardLease } from './keeper/rounds.js';

const pollParams = {
  queue_id: p.string(),
  last_event_id: p.int().optional(),
  dont_block: p.bool().default(false),
  ...registerParams,
};
const deleteParams = { queue_id: p.string() };

/** How long handed-over queues wait in Redis for the next worker. */
const HANDOFF_TTL_MS = 120_000;
const GC_INTERVAL_MS = 10_000;


interface HandedOver {
  queues: QueueSnapshot[];
  lastSeq: [string, number][];
}

class Unit {
  leaving = false;
  /** The keeper's number for this holding of the shard's lease. */
  keeperSeq = 0;
  readonly lastSeq = new Map<string, number>();
  /** Queues dropped here (expired, overflowed, deleted by a poll) not yet told to the actor. */
  readonly gone = new Set<string>();
  /** Polls being answered: bounced if the shard moves. */
  readonly polls = new Map<string, (o: GateOutcome) => void>();

  constructor(
    readonly name: string,
    readonly hub: EventHub,
  ) {
    hub.onQueueChange = (queue, change) => {
      if (change === 'deleted') this.gone.add(queue.id);
    };
  }

  takeGone(): string[] {
    const out = [...this.gone];
    this.gone.clear();
    return out;
  }
}

export interface ShardHostDeps {
  selfId: string;
  redis: Redis;
  keys: RedisKeys;
  view: MembershipView;
  limits: HubLimits;
  timing: { LEASE_TTL_MS: number };
  /** Renews the leases of the shards held here, from its own thread. */
  keeper: Keeper;
  /** `http://` or `https://`: the web client's Origin check on DELETE /json/events. */
  uriScheme: string;
  log: Logger;
}

/** Puts a batch's deliveries into a shard's queues, in order; returns the ids of queues not here. */
export function applyDeliver(hub: EventHub, op: DeliverOp): string[] {
  const missing: string[] = [];
  for (const item of op.items) {
    if ('m' in item) hub.publishMessage(fanoutFromWire(item.m, op.messages), item.m.skip ? new Set(item.m.skip) : undefined);
    else missing.push(...hub.deliverTo(item.e, item.q));
  }
  return missing;
}

/** A message of a batch as the hub takes it (see shardOps.ts MessageFanoutWire). */
function fanoutFromWire(w: MessageFanoutWire, messages: Record<string, unknown>[]): MessageFanout {
  return {
    message(shape) {
      const m = messages[w.shapes[shape] ?? -1];
      if (!m) throw new Error(`a message batch lacks the message's shape ${shape}`);
      return m;
    },
    users: w.users,
    flags: w.flags,
    flagNames: new Map(Object.entries(w.names).map(([bits, names]) => [Number(bits), names])),
    hidden: new Set(w.hidden),
    senderEmailReal: w.emailReal,
    publicChannel: w.pub,
    echo: w.echo,
  };
}

const bounce = (reason: string): GateOutcome => ({ kind: 'bounce', reason });
const respond = (res: ApiResponse): GateOutcome => ({ kind: 'response', res });

export class ShardHost {
  private readonly units = new Map<string, Unit>();
  /**
   * The credential each queue's polls last proved (the Authorization header, or the session
   * id), so that a client polling again with the same one is not hashed again: a queue's
   * digest never changes, and what ends a credential drops its queues.
   */
  private readonly proven = new WeakMap<EventQueue, string>();
  private readonly activating = new Map<string, Promise<Unit | null>>();
  private draining = false;
  private timers: NodeJS.Timeout[] = [];
  /** Shards taken up, handed over, and dropped (lease lost) since start. */
  readonly moves = { activated: 0, handedOff: 0, dropped: 0 };

  constructor(private readonly d: ShardHostDeps) {}

  start(): void {
    this.d.keeper.onShardLost = (key, seq) => {
      for (const unit of this.units.values()) if (unit.keeperSeq === seq && !unit.leaving) this.drop(unit, 'lease lost');
    };
    this.timers.push(setInterval(() => this.collectGarbage(), GC_INTERVAL_MS));
    for (const t of this.timers) t.unref();
  }

  /** Shards held here: name, queues, parked polls. */
  held(): { shard: string; queues: number; parked: number }[] {
    return [...this.units.values()].filter((u) => !u.leaving).map((u) => ({ shard: u.name, queues: u.hub.queueCount, parked: u.hub.parkedCount }));
  }

  get queueCount(): number {
    let n = 0;
    for (const u of this.units.values()) n += u.hub.queueCount;
    return n;
  }

  get parkedCount(): number {
    let n = 0;
    for (const u of this.units.values()) n += u.hub.parkedCount;
    return n;
  }

  private placedHere(name: string): boolean {
    return !this.draining && this.d.view.placement.owner(name) === this.d.selfId;
  }

  /** The shard if held here, else taken up when placement puts it here; null when it is elsewhere. */
  private async unit(name: string): Promise<Unit | null> {
    const held = this.units.get(name);
    if (held) return held.leaving ? null : held;
    let pending = this.activating.get(name);
    if (!pending) {
      pending = this.activate(name).finally(() => this.activating.delete(name));
      this.activating.set(name, pending);
    }
    return pending;
  }

  private async activate(name: string): Promise<Unit | null> {
    if (!this.placedHere(name)) {
      await this.d.view.refreshSoon();
      if (!this.placedHere(name)) return null;
    }
    const { redis, keys, selfId } = this.d;
    const taken = await redis.set(keys.shardLease(name), selfId, 'PX', this.d.timing.LEASE_TTL_MS, 'NX');
    if (taken !== 'OK' && !(await renewShardLease(redis, keys.shardLease(name), selfId, this.d.timing.LEASE_TTL_MS))) return null;
    if (!this.placedHere(name)) {
      await redis.eval(SHARD_LEASE_RELEASE, 1, keys.shardLease(name), selfId);
      return null;
    }
    const [[, text]] = (await redis.multi().get(keys.shardHandoff(name)).del(keys.shardHandoff(name)).exec()) as [[Error | null, string | null]];
    const unit = new Unit(name, new EventHub(this.d.limits));
    if (text) {
      const handed = JSON.parse(text) as HandedOver;
      unit.hub.importQueues(handed.queues);
      for (const [from, seq] of handed.lastSeq) unit.lastSeq.set(from, seq);
    }
    unit.gone.clear();
    unit.keeperSeq = this.d.keeper.keepShard(keys.shardLease(name));
    this.units.set(name, unit);
    this.moves.activated++;
    this.d.log.info({ shard: name, queues: unit.hub.queueCount }, 'queue shard taken up');
    return unit;
  }

  /** A batch from a realm's actor. */
  async apply(batch: ShardBatch): Promise<ShardReply> {
    const unit = await this.unit(batch.unit);
    if (!unit) return { ok: false, reason: 'queue shard is not on this worker' };
    if (batch.seq > 0) {
      if (batch.seq <= (unit.lastSeq.get(batch.from) ?? 0)) return { ok: true, gone: unit.takeGone() };
      unit.lastSeq.set(batch.from, batch.seq);
    }
    let queues: QueueSnapshot[] | undefined;
    for (const op of batch.ops) queues = this.applyOp(unit, op) ?? queues;
    return { ok: true, gone: unit.takeGone(), ...(queues ? { queues } : {}) };
  }

  private applyOp(unit: Unit, op: ShardOp): QueueSnapshot[] | undefined {
    const hub = unit.hub;
    switch (op.op) {
      case 'create':
        if (!hub.find(op.queue.id)) hub.importQueues([op.queue]);
        return;
      case 'deliver':
        for (const id of applyDeliver(hub, op)) unit.gone.add(id);
        return;
      case 'delete':
        for (const id of op.queues) {
          const queue = hub.find(id);
          if (queue) hub.delete(queue);
        }
        return;
      case 'reset':
        for (const queue of [...hub.allQueues()]) hub.delete(queue);
        unit.gone.clear();
        return;
      case 'list':
        return hub.exportQueues().queues.map((q) => ({ ...q, events: [], sizes: [] }));
      case 'sync':
        return;
    }
  }

  /** GET or DELETE /events for a queue of shard `k` of the request's realm. */
  async handle(req: ApiRequest, k: number): Promise<GateOutcome> {
    const unit = await this.unit(shardName(req.subdomain, k));
    if (!unit) return bounce('queue shard is placed on another worker');
    try {
      const { args, ignored } = req.method === 'GET' ? parseParams(pollParams, req.params) : parseParams(deleteParams, req.params);
      const queue = unit.hub.find(args.queue_id);
      const presented = req.prefix === 'json' ? (req.sessionId === undefined ? undefined : `s:${req.sessionId}`) : req.authorization === undefined ? undefined : `k:${req.authorization}`;
      if (!queue || presented === undefined || this.proven.get(queue) !== presented) {
        const credential = queueCredential(req, queue?.userId ?? 0);
        if (credential === null) throw req.prefix === 'json' ? sessionRequired() : unauthorized();
        if (!queue || !queue.opts.credential || !secretsEqual(queue.opts.credential, credential)) throw badEventQueueId(args.queue_id);
        if (presented !== undefined) this.proven.set(queue, presented);
      }
      // The web client's DELETE passes Django's CSRF checks, as on the realm's worker.
      if (req.method === 'DELETE' && req.prefix === 'json') {
        checkOrigin(this.d.uriScheme, req);
        if (!req.csrfToken) throw csrfFailed('CSRF token missing.');
        if (!queue.opts.csrf || !secretsEqual(queue.opts.csrf, csrfDigest(req.csrfToken))) {
          throw csrfFailed("CSRF token from the 'X-Csrftoken' HTTP header incorrect.");
        }
      }
      const extra = ignored.length ? { ignored_parameters_unsupported: ignored } : {};
      if (req.method === 'DELETE') {
        unit.hub.delete(queue);
        return respond({ status: 200, body: successBody(extra), route: '/events', userId: queue.userId });
      }
      const { last_event_id: lastEventId, dont_block: dontBlock } = args as Args<typeof pollParams>; // a GET's (a DELETE was answered above)
      if (lastEventId !== undefined) {
        const problem = queue.prune(lastEventId);
        if (problem) throw new ApiError('BAD_REQUEST', problem, 400);
      }
      return await new Promise<GateOutcome>((resolve) => {
        let settled = false;
        const settle = (o: GateOutcome) => {
          if (settled) return;
          settled = true;
          unit.polls.delete(req.id);
          resolve(o);
        };
        unit.polls.set(req.id, settle);
        void unit.hub.poll(queue, req.id, dontBlock).then((events) =>
          settle(respond({ status: 200, body: successBody({ events, queue_id: queue.id, ...extra }), route: '/events', userId: queue.userId })),
        );
      });
    } catch (err) {
      if (err instanceof ApiError) {
        // Set on the new answer, not spread with the route added (a hidden class per call).
        const r = errorResponse(err);
        r.route = '/events';
        return respond(r);
      }
      throw err;
    }
  }

  /** The client went away mid-poll. */
  cancel(req: ApiRequest, k: number): void {
    this.units.get(shardName(req.subdomain, k))?.hub.cancelPoll(req.id);
  }

  private collectGarbage(): void {
    const now = Date.now();
    for (const unit of this.units.values()) if (!unit.leaving) unit.hub.collectGarbage(now);
  }

  /** Stops serving a shard at once (another worker may hold it now): its polls are bounced. */
  private drop(unit: Unit, why: string): void {
    this.d.log.warn({ shard: unit.name, why }, 'queue shard dropped');
    this.moves.dropped++;
    this.units.delete(unit.name);
    this.d.keeper.dropShard(this.d.keys.shardLease(unit.name), unit.keeperSeq);
    unit.leaving = true;
    for (const settle of unit.polls.values()) settle(bounce('queue shard lost'));
    unit.hub.close();
  }

  /** Hands over every held shard that placement now puts elsewhere. */
  async rebalance(): Promise<void> {
    const moving = [...this.units.values()].filter((u) => !u.leaving && !this.placedHere(u.name));
    await Promise.all(moving.map((u) => this.handOff(u)));
  }

  private async handOff(unit: Unit): Promise<void> {
    const started = Date.now();
    unit.leaving = true;
    for (const [requestId, settle] of unit.polls) {
      settle(bounce('queue shard is moving to another worker'));
      unit.hub.cancelPoll(requestId);
    }
    const { queues, skipped } = unit.hub.exportQueues();
    const handed: HandedOver = { queues, lastSeq: [...unit.lastSeq] };
    const { redis, keys, selfId } = this.d;
    this.d.keeper.dropShard(keys.shardLease(unit.name), unit.keeperSeq);
    try {
      await redis.set(keys.shardHandoff(unit.name), JSON.stringify(handed), 'PX', HANDOFF_TTL_MS);
      await redis.eval(SHARD_LEASE_RELEASE, 1, keys.shardLease(unit.name), selfId);
    } catch (err) {
      // The lease then runs out; the next worker starts the shard empty (clients re-register).
      this.d.log.warn({ shard: unit.name, err: (err as Error).message }, 'queue shard hand-off failed');
    }
    this.units.delete(unit.name);
    unit.hub.close();
    this.moves.handedOff++;
    this.d.log.info({ shard: unit.name, queues: queues.length, skipped: skipped.length, ms: Date.now() - started }, 'queue shard handed off');
  }

  /** Leaving the cluster: every shard is handed over. */
  async drain(): Promise<void> {
    this.draining = true;
    for (const t of this.timers) clearInterval(t);
    await Promise.all(this.activating.values());
    await this.rebalance();
  }
}
