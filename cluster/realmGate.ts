// The worker side of routing: which realms this worker serves, and moving them.
// - A request is served only for a realm placed on this worker (by its own view of the
//   members) and only under the realm's lease; otherwise it is bounced to the front.
// - The gate activates a realm itself before the first request reaches it: lease, then the
//   actor (writing through the lease's fenced sql), then its event queues from Redis. The
//   registry never loads a realm on its own in a cluster; a request that finds its realm gone
//   there gets a typed "not here" and is bounced.
// - When placement moves a realm away (a worker joined, or this one is leaving), the realm
//   is handed off: new requests bounce, parked long-polls are bounced (the front re-sends
//   them to the new owner), requests in flight finish, the mailbox drains, the event queues
//   are written to Redis, then the lease is released and the new owner takes over.
// - When the lease is lost (not renewed in time, or a fence check failed) the realm is
//   dropped at once, without writing anything.
import type { Logger } from '../src/log.js';
import type { RealmRegistry } from '../src/realm/registry.js';
import type { RealmActor } from '../src/realm/actor.js';
import { findRealmById, findRealmBySubdomain } from '../src/db/realms.js';
import type { Sql } from '../src/db/connect.js';
import { badEventQueueId } from '../src/events/hub.js';
import type { ApiRequest, ApiResponse, RequestHandler } from '../src/http/contract.js';
import { errorResponse, internalErrorResponse } from '../src/http/envelope.js';
import type { LeaseManager } from './leases.js';
import type { MembershipView } from './membership.js';
import type { QueueStore } from './queueStore.js';

/** How a realm with queue shards takes up its queues and hands them over (see worker.ts). */
export interface ShardedRealms {
  owns(actor: RealmActor): boolean;
  restore(actor: RealmActor): Promise<void>;
  /** `stale`: writes were still under way, so the next actor resets the shards' queues. */
  handOver(actor: RealmActor, stale: boolean): Promise<number>;
}

export type GateOutcome = { kind: 'response'; res: ApiResponse } | { kind: 'bounce'; reason: string };

interface GateCall {
  req: ApiRequest;
  /** GET /events: answered by a bounce when the realm moves (it is re-sent to the new owner). */
  movable: boolean;
  settled: boolean;
  settle(o: GateOutcome): void;
}

class Slot {
  realmId: number | null = null;
  leaving = false;
  /** The activation under way (lease, load, queues), shared by the requests that wait for it. */
  activating: Promise<'active' | 'missing' | 'refused'> | null = null;
  readonly calls = new Set<GateCall>();
  constructor(readonly subdomain: string) {}
}

export interface GateDeps {
  selfId: string;
  /** Where realms are looked up before their lease is taken. */
  sql: Sql;
  registry: RealmRegistry;
  inner: RequestHandler;
  leases: LeaseManager;
  view: MembershipView;
  queues: QueueStore;
  /** Realms whose queues live in queue shards (QUEUE_SHARDS > 1): they move without QueueStore. */
  queueShards?: ShardedRealms;
  timing: { LEASE_TTL_MS: number; DRAIN_MS: number; MEMBERSHIP_CHECK_MS: number };
  log: Logger;
}

const bounce = (reason: string): GateOutcome => ({ kind: 'bounce', reason });

/** The lease was lost (or the realm began to leave) while the realm was being taken up. */
class LostWhileActivating extends Error {}
const HANDOFF_CONCURRENCY = 8;

export class RealmGate {
  private readonly slots = new Map<string, Slot>();
  private readonly byId = new Map<number, Slot>();
  private draining = false;
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly handoffs = new Map<Slot, Promise<void>>();

  /**
   * Realm movements since start (exported as metrics): taken up, handed off, dropped (lease
   * lost), and realms whose event queue copies this worker declared stale (their clients
   * register again with the next owner).
   */
  readonly moves = { activated: 0, handedOff: 0, dropped: 0, staleCopies: 0 };

  constructor(private readonly d: GateDeps) {
    d.registry.onPassivated((actor) => this.passivated(actor));
  }

  /** Re-checks placement of every held realm on a timer, besides membership changes. */
  start(): void {
    this.sweepTimer = setInterval(() => void this.rebalance(), this.d.timing.MEMBERSHIP_CHECK_MS);
    this.sweepTimer.unref();
  }

  private placedHere(subdomain: string): boolean {
    return !this.draining && this.d.view.placement.owner(subdomain) === this.d.selfId;
  }

  /** Realms this worker serves now, by subdomain, with their lease epoch. */
  heldRealms(): { subdomain: string; realmId: number; epoch: number }[] {
    const out: { subdomain: string; realmId: number; epoch: number }[] = [];
    for (const slot of this.slots.values()) {
      if (slot.realmId === null || slot.leaving || !this.d.registry.activeById(slot.realmId)) continue;
      const lease = this.d.leases.valid(slot.realmId);
      if (lease) out.push({ subdomain: slot.subdomain, realmId: slot.realmId, epoch: lease.epoch });
    }
    return out;
  }

  async handle(req: ApiRequest): Promise<GateOutcome> {
    let slot = this.slots.get(req.subdomain);
    if (!slot) {
      if (!this.placedHere(req.subdomain)) {
        // The front may know of a membership change before this worker does.
        await this.d.view.refreshSoon();
        if (!this.placedHere(req.subdomain)) return bounce('realm is placed on another worker');
      }
      slot = this.slots.get(req.subdomain);
      if (!slot) this.slots.set(req.subdomain, (slot = new Slot(req.subdomain)));
    }
    if (slot.leaving) return bounce('realm is moving to another worker');
    if (slot.realmId !== null && this.d.registry.activeById(slot.realmId) && !this.d.leases.valid(slot.realmId)) {
      this.drop(slot, 'lease no longer trusted');
      return bounce('realm lease lapsed');
    }
    // While an activation runs, the actor is in the registry before its queues are restored:
    // a request let through then would publish events to queues not there yet (lost to them).
    if (slot.activating || slot.realmId === null || !this.d.registry.activeById(slot.realmId)) {
      let state: 'active' | 'missing' | 'refused';
      try {
        state = await this.activate(slot);
      } catch (err) {
        this.forgetIfIdle(slot); // gives back a lease taken for an activation that failed
        throw err;
      }
      if (state === 'refused') {
        this.forgetIfIdle(slot);
        return bounce('realm lease is held elsewhere');
      }
      // 'missing': no such realm; the handler answers NONEXISTENT_SUBDOMAIN.
    }
    if (slot.realmId !== null && req.method === 'GET' && req.path === '/events') {
      const queueId = req.params.queue_id;
      const lastEventId = Number(req.params.last_event_id);
      if (queueId && Number.isInteger(lastEventId) && this.d.queues.staleAfterCrash(slot.realmId, queueId, lastEventId)) {
        return { kind: 'response', res: errorResponse(badEventQueueId(queueId)) };
      }
    }
    return this.run(slot, req);
  }

  /**
   * A job's way into a realm (a scheduled message coming due in a realm nobody uses now): the
   * realm is activated as a request would activate it, if placement puts it on this worker and
   * its lease can be taken. Null when it belongs elsewhere (the job is passed on).
   */
  async activateForJob(realmId: number): Promise<RealmActor | null> {
    const active = this.d.registry.activeById(realmId);
    const held = this.byId.get(realmId);
    // An activation under way is joined below: its actor's queues may not be restored yet.
    if (active && !held?.activating) return this.d.leases.valid(realmId) && !held?.leaving ? active : null;
    const realm = await findRealmById(this.d.sql, realmId);
    if (!realm || !this.placedHere(realm.stringId)) return null;
    let slot = this.slots.get(realm.stringId);
    if (!slot) this.slots.set(realm.stringId, (slot = new Slot(realm.stringId)));
    if (slot.leaving) return null;
    let state: 'active' | 'missing' | 'refused';
    try {
      state = await this.activate(slot);
    } catch (err) {
      this.forgetIfIdle(slot);
      throw err;
    }
    if (state !== 'active') {
      this.forgetIfIdle(slot);
      return null;
    }
    return this.d.registry.activeById(realmId) ?? null;
  }

  /** Takes the realm's lease, loads it under the lease, restores its queues; once per slot at a time. */
  private activate(slot: Slot): Promise<'active' | 'missing' | 'refused'> {
    slot.activating ??= this.doActivate(slot).finally(() => (slot.activating = null));
    return slot.activating;
  }

  private async doActivate(slot: Slot): Promise<'active' | 'missing' | 'refused'> {
    const realm = await findRealmBySubdomain(this.d.sql, slot.subdomain);
    if (!realm) return 'missing';
    if (slot.leaving || !this.placedHere(realm.stringId)) return 'refused';
    slot.realmId = realm.id;
    this.byId.set(realm.id, slot);
    // A planned hand-off releases within milliseconds; a crashed holder's lease runs out.
    const lease = await this.d.leases.acquire(realm.id, this.d.timing.LEASE_TTL_MS + 1000);
    if (!lease) return 'refused';
    if (slot.leaving || !this.placedHere(realm.stringId)) {
      await this.d.leases.release(realm.id);
      return 'refused';
    }
    // The actor is found in the registry only once its queues are restored, and only if the
    // realm is still this worker's then (the lease may have been lost meanwhile).
    const stillOurs = () => this.byId.get(realm.id) === slot && !slot.leaving && this.d.leases.valid(realm.id)?.epoch === lease.epoch;
    try {
      await this.d.registry.activate(realm, this.d.leases.sqlFor(realm.id), async (actor) => {
        const shards = this.d.queueShards;
        if (shards?.owns(actor)) await shards.restore(actor);
        else {
          const { adopted } = await this.d.queues.restore(actor, lease.epoch, lease.queuesStale);
          // The stale copies were left out and deleted: the flag has done its work (if it
          // cannot be cleared now, a later holder leaves out copies it could have used).
          if (adopted && lease.queuesStale && stillOurs()) {
            await this.d.leases.clearQueuesStale(realm.id).catch((err: unknown) => this.d.log.warn({ realmId: realm.id, err: (err as Error).message }, 'could not clear the stale-copies flag'));
          }
        }
        if (!stillOurs()) throw new LostWhileActivating();
      });
    } catch (err) {
      // The actor never served (the registry closed it): its queues are not copied from here.
      this.d.queues.forget(realm.id);
      if (!(err instanceof LostWhileActivating)) throw err;
      return 'refused';
    }
    this.moves.activated++;
    return 'active';
  }

  /** The registry put an idle realm away: its lease goes back, so placement may move it freely. */
  private passivated(actor: RealmActor): void {
    const slot = this.byId.get(actor.realm.id);
    if (!slot || slot.leaving) return;
    this.byId.delete(actor.realm.id);
    if (this.slots.get(slot.subdomain) === slot && slot.calls.size === 0) this.slots.delete(slot.subdomain);
    this.d.queues.forget(actor.realm.id);
    void this.d.leases.release(actor.realm.id).catch((err: unknown) => this.d.log.warn({ err }, 'lease release failed'));
  }

  private run(slot: Slot, req: ApiRequest): Promise<GateOutcome> {
    let resolve!: (o: GateOutcome) => void;
    const promise = new Promise<GateOutcome>((r) => (resolve = r));
    const call: GateCall = {
      req,
      movable: req.method === 'GET' && req.path === '/events',
      settled: false,
      settle(o) {
        if (call.settled) return;
        call.settled = true;
        resolve(o);
      },
    };
    slot.calls.add(call);
    this.d.inner.handle(req).then(
      (outcome) => {
        slot.calls.delete(call);
        call.settle(outcome.kind === 'not_here' ? bounce(outcome.reason) : outcome);
        this.forgetIfIdle(slot);
      },
      (err: unknown) => {
        slot.calls.delete(call);
        this.d.log.error({ err, reqId: req.id }, 'request handler failed');
        call.settle({ kind: 'response', res: internalErrorResponse() });
        this.forgetIfIdle(slot);
      },
    );
    return promise;
  }

  /** A slot whose realm never became active here (missing realm, lease refused) is forgotten. */
  private forgetIfIdle(slot: Slot): void {
    if (slot.calls.size || slot.leaving) return;
    if (slot.realmId !== null && this.d.registry.activeById(slot.realmId)) return;
    if (this.slots.get(slot.subdomain) === slot) this.slots.delete(slot.subdomain);
    if (slot.realmId !== null && this.byId.get(slot.realmId) === slot) {
      this.byId.delete(slot.realmId);
      // Acquired, but activation failed: give the lease back instead of renewing it forever.
      if (this.d.leases.valid(slot.realmId)) {
        void this.d.leases.release(slot.realmId).catch((err: unknown) => this.d.log.warn({ err }, 'lease release failed'));
      }
    }
  }

  /** Client went away: a parked poll of an active realm is released. */
  cancel(req: ApiRequest): void {
    const slot = this.slots.get(req.subdomain);
    if (slot?.realmId != null && this.d.registry.activeById(slot.realmId)) this.d.inner.cancel(req.id, req.subdomain);
  }

  /** The lease manager found the lease gone. */
  lost(realmId: number): void {
    const slot = this.byId.get(realmId);
    if (slot) this.drop(slot, 'lease lost');
  }

  /** Stops serving a realm at once, writing nothing (another worker owns it now). */
  private drop(slot: Slot, why: string): void {
    this.d.log.warn({ realm: slot.subdomain, why }, 'realm dropped');
    this.moves.dropped++;
    if (this.slots.get(slot.subdomain) === slot) this.slots.delete(slot.subdomain);
    if (slot.realmId === null) return;
    if (this.byId.get(slot.realmId) === slot) this.byId.delete(slot.realmId);
    for (const call of slot.calls) if (call.movable) call.settle(bounce('realm lost'));
    const actor = this.d.registry.remove(slot.realmId);
    actor?.retire();
    // A write under way may still commit (its transaction began under the lease) and would
    // publish to queues gone from here: their copies are marked stale, so that their clients
    // register again rather than miss its events.
    const writing = actor?.writing === true;
    if (writing) this.moves.staleCopies++;
    this.d.queues.forget(slot.realmId, writing);
    this.d.leases.forget(slot.realmId);
    actor?.close();
  }

  /** Hands off every held realm that placement now puts elsewhere. */
  async rebalance(): Promise<void> {
    const moving = [...this.slots.values()].filter(
      (s) => !s.leaving && s.realmId !== null && this.d.registry.activeById(s.realmId) && !this.placedHere(s.subdomain),
    );
    for (let i = 0; i < moving.length; i += HANDOFF_CONCURRENCY) {
      await Promise.all(moving.slice(i, i + HANDOFF_CONCURRENCY).map((s) => this.handOff(s)));
    }
  }

  private handOff(slot: Slot): Promise<void> {
    let running = this.handoffs.get(slot);
    if (!running) {
      running = this.doHandOff(slot).finally(() => this.handoffs.delete(slot));
      this.handoffs.set(slot, running);
    }
    return running;
  }

  private async doHandOff(slot: Slot): Promise<void> {
    const realmId = slot.realmId!;
    const actor = this.d.registry.activeById(realmId);
    if (!actor) return;
    const lease = this.d.leases.valid(realmId);
    if (!lease) {
      // Not ours to hand over any more: another worker may hold it already.
      this.drop(slot, 'lease lapsed before the hand-off');
      return;
    }
    const started = Date.now();
    slot.leaving = true;
    // Parked and in-progress long-polls go to the new owner, which will have their queues.
    for (const call of slot.calls) if (call.movable) call.settle(bounce('realm is moving to another worker'));
    // Requests, jobs and sends under way finish here (sends commit and publish) before the
    // queues are written for the next owner.
    const underWay = () => actor.writing || [...slot.calls].some((c) => !c.movable);
    const deadline = started + this.d.timing.DRAIN_MS;
    while (Date.now() < deadline && underWay()) await new Promise((r) => setTimeout(r, 5));
    actor.retire();
    this.d.registry.remove(realmId);
    // Still writing after DRAIN_MS: what it publishes would miss the queues written now, so
    // they go over as not movable (their clients register again with the next owner).
    const stale = underWay();
    if (stale) {
      this.moves.staleCopies++;
      this.d.log.warn({ realm: slot.subdomain }, 'writes still under way at hand-off; its event queues are not moved');
    }
    const shards = this.d.queueShards;
    const handedOver = shards?.owns(actor) ? await shards.handOver(actor, stale) : await this.d.queues.handOver(actor, lease.epoch, stale);
    actor.close();
    if (handedOver === false) {
      // Redis did not take the queues: what it holds are older copies, which may lack events.
      this.moves.staleCopies++;
      await this.d.leases.markQueuesStale(realmId).catch((err: unknown) => this.d.log.warn({ realmId, err: (err as Error).message }, 'could not mark the queue copies stale'));
    }
    try {
      await this.d.leases.release(realmId);
    } catch (err) {
      // The lease then simply expires; the next owner waits up to LEASE_TTL_MS.
      this.d.log.warn({ realmId, err: (err as Error).message }, 'lease release failed');
      this.d.leases.forget(realmId);
    }
    if (this.slots.get(slot.subdomain) === slot) this.slots.delete(slot.subdomain);
    if (this.byId.get(realmId) === slot) this.byId.delete(realmId);
    this.moves.handedOff++;
    this.d.log.info({ realm: slot.subdomain, queues: handedOver, ms: Date.now() - started }, 'realm handed off');
  }

  /** Leaving the cluster: every realm is handed off (placement no longer includes this worker). */
  async drain(): Promise<void> {
    this.draining = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    // A realm whose activation was under way when draining began becomes active afterwards:
    // go round until none is left.
    const deadline = Date.now() + this.d.timing.DRAIN_MS + this.d.timing.LEASE_TTL_MS;
    for (;;) {
      await this.rebalance();
      await Promise.all(this.handoffs.values());
      const busy = [...this.slots.values()].some(
        (s) => s.calls.size > 0 || s.activating !== null || (s.realmId !== null && this.d.registry.activeById(s.realmId)),
      );
      if (!busy || Date.now() > deadline) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Requests still being answered (all realms). */
  get inFlight(): number {
    let n = 0;
    for (const slot of this.slots.values()) n += slot.calls.size;
    return n;
  }
}
