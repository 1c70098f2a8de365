// RealmActor: owns one realm's state and is its only writer. State changes run one at a
// time through the mailbox (`exclusive`); reads are served straight from memory. What the
// actor derives and keeps between requests (the send queue, caches) are its fields, so they
// go away with it when the realm is passivated or moves to another process.
import type { Sql } from '../db/connect.js';
import type { RealmState } from '../model/realmState.js';
import type { RealmRecord, User } from '../model/types.js';
import { EventHub } from '../events/hub.js';
import { SendQueue } from './sendQueue.js';
import { storedMessageIds } from '../db/messages.js';
import { RealmCaches } from './caches.js';
import { RealmNotHereError, type Services } from './services.js';

export class RealmActor {
  readonly events: EventHub;
  /** Group commit of sends (see sendQueue.ts). */
  readonly sendQueue: SendQueue;
  readonly caches = new RealmCaches();
  private tail: Promise<unknown> = Promise.resolve();
  private busy = 0;
  private retired = false;
  /** Jobs at work in this realm (see working). */
  private jobs = 0;
  /** When a request last reached this realm; the registry passivates realms idle for long. */
  lastUsed = Date.now();

  constructor(
    readonly services: Services,
    readonly state: RealmState,
    /** Where actions write: the pool, or in a cluster the pool fenced by the lease this actor was activated under. */
    readonly sql: Sql,
  ) {
    const c = services.config;
    const limits = { heartbeatSeconds: c.HEARTBEAT_SECONDS, maxEvents: c.QUEUE_MAX_EVENTS, maxBytes: c.QUEUE_MAX_BYTES, counters: services.counters };
    this.events = services.eventHub?.(state.realm, limits) ?? new EventHub(limits);
    // Stored ids are read on the pool, outside the realm's (in a cluster, fenced) connection.
    this.sendQueue = new SendQueue(sql, (ids) => storedMessageIds(services.sql, state.realm.id, ids), services.counters);
  }

  get realm(): RealmRecord {
    return this.state.realm;
  }

  /** Runs a state change after every earlier one has finished; no interleaving across awaits. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.retired) return Promise.reject(this.leftError());
    this.busy++;
    const run = this.tail.then(fn);
    this.tail = run.then(
      () => this.busy--,
      () => this.busy--,
    );
    return run;
  }

  /**
   * The realm is leaving this process (handed over, or its lease lost): no state change starts
   * any more (each is refused as not here, so its caller takes it to the realm's new owner).
   * Those under way finish.
   */
  retire(): void {
    this.retired = true;
  }

  private leftError(): RealmNotHereError {
    return new RealmNotHereError(`realm ${this.realm.stringId} has left this process`);
  }

  /**
   * Runs a job's work in this realm (a scheduled delivery, an email post, a bot's reply): it
   * may take several state changes, with waits between them, and a realm leaving this process
   * waits for it as for the mailbox. Refused as not here once the realm is retired.
   */
  async working<T>(fn: () => Promise<T>): Promise<T> {
    if (this.retired) throw this.leftError();
    this.jobs++;
    try {
      return await fn();
    } finally {
      this.jobs--;
    }
  }

  /** State changes under way: in the mailbox, sends checked and not yet committed, jobs at work. */
  get writing(): boolean {
    return this.busy > 0 || this.jobs > 0 || !this.sendQueue.idle;
  }

  /** Nothing in flight and no client connected: the realm can be put away without losing anything. */
  get idle(): boolean {
    return this.busy === 0 && this.sendQueue.idle && this.events.queueCount === 0;
  }

  user(id: number): User | undefined {
    return this.state.users.get(id);
  }

  close(): void {
    this.events.close();
  }
}
