// The realm actors of this process: found by subdomain, activated from Postgres, put away
// again when idle (no request for a while, no event queue, nothing in flight).
//
// Activation is on demand in the one-process mode: the first request for a realm loads it.
// In a cluster a realm may only be loaded under its lease, so activation is managed: the
// cluster's gate calls activate() with the fenced `sql`, and get() for a realm that is not
// active here answers RealmNotHereError instead of loading it.
import type { Sql } from '../db/connect.js';
import type { RealmRecord } from '../model/types.js';
import { findRealmById, findRealmBySubdomain } from '../db/realms.js';
import { RealmNotHereError, type Services } from './services.js';
import type { RealmActor } from './actor.js';
import { activateRealm } from './activate.js';

export interface RegistryOptions {
  /** `on_demand`: get() loads a realm; `managed`: only activate() does. */
  activation: 'on_demand' | 'managed';
  /** Where the realms' event queues live (see Services.eventHub); absent: in each actor. */
  eventHub?: Services['eventHub'];
}

/**
 * How a managed registry takes up a realm for a job (a cluster: only a realm placed on this
 * process, under its lease); null when the realm belongs elsewhere now.
 */
export type JobActivation = (realmId: number) => Promise<RealmActor | null>;

export class RealmRegistry {
  private readonly loading = new Map<string, Promise<RealmActor | null>>();
  private jobActivation: JobActivation | null = null;
  private readonly bySubdomain = new Map<string, RealmActor>();
  private readonly byId = new Map<number, RealmActor>();
  private readonly passivatedListeners: Array<(actor: RealmActor) => void> = [];
  private gcTimer: NodeJS.Timeout;

  constructor(
    readonly services: Services,
    private readonly options: RegistryOptions = { activation: 'on_demand' },
  ) {
    this.gcTimer = setInterval(() => this.sweep(), services.config.QUEUE_GC_SECONDS * 1000);
    this.gcTimer.unref();
  }

  /** The actor for a subdomain; null when no such realm exists. */
  get(subdomain: string): Promise<RealmActor | null> {
    const active = this.bySubdomain.get(subdomain);
    if (active) return Promise.resolve(active);
    let pending = this.loading.get(subdomain);
    if (!pending) {
      pending = this.load(subdomain).finally(() => this.loading.delete(subdomain));
      this.loading.set(subdomain, pending);
    }
    return pending;
  }

  private async load(subdomain: string): Promise<RealmActor | null> {
    const realm = await findRealmBySubdomain(this.services.sql, subdomain);
    if (!realm) return null;
    // Activated meanwhile (by another caller of get(), or by activate()).
    const active = this.bySubdomain.get(subdomain);
    if (active) return active;
    if (this.options.activation === 'managed') throw new RealmNotHereError(`realm ${subdomain} is not held by this process`);
    return this.activate(realm);
  }

  /**
   * Loads a realm and makes it active; `writeSql` is where its actor writes. `prepare` runs
   * before the actor can be found here (a cluster restores its event queues then): nothing
   * reaches an actor whose queues are not there yet. If it fails, the actor is closed.
   */
  async activate(realm: RealmRecord, writeSql?: Sql, prepare?: (actor: RealmActor) => Promise<void>): Promise<RealmActor> {
    const actor = await activateRealm(this.services, realm, writeSql);
    if (prepare) {
      try {
        await prepare(actor);
      } catch (err) {
        actor.close();
        throw err;
      }
    }
    this.byId.set(realm.id, actor);
    this.bySubdomain.set(realm.stringId, actor);
    this.services.log.debug({ realm: realm.stringId }, 'realm actor activated');
    return actor;
  }

  /** How a managed registry activates a realm for a job; without it, jobs use active realms only. */
  setJobActivation(activation: JobActivation): void {
    this.jobActivation = activation;
  }

  /**
   * The actor a job works in. On demand: the active one, else the realm loaded. Managed: as
   * the job activation decides (without one, the active one only). Null when the realm does
   * not exist or is not this process's to hold.
   */
  async holdForJob(realmId: number): Promise<RealmActor | null> {
    const active = this.byId.get(realmId);
    // Managed: the activation decides even for an active realm (it may be still restoring its
    // queues, or leaving).
    if (this.options.activation === 'managed') return this.jobActivation ? this.jobActivation(realmId) : (active ?? null);
    if (active) return active;
    const subdomain = await this.subdomainOf(realmId);
    return subdomain === null ? null : this.get(subdomain);
  }

  /** The active actor for a subdomain, if this process has it in memory (never loads it). */
  activeBySubdomain(subdomain: string): RealmActor | undefined {
    return this.bySubdomain.get(subdomain);
  }

  /** The active actor for a realm id, if this process has it in memory. */
  activeById(realmId: number): RealmActor | undefined {
    return this.byId.get(realmId);
  }

  async subdomainOf(realmId: number): Promise<string | null> {
    const active = this.byId.get(realmId);
    if (active) return active.realm.stringId;
    return (await findRealmById(this.services.sql, realmId))?.stringId ?? null;
  }

  /**
   * Forgets an active realm without closing it (a cluster hands its realm over: the caller
   * exports the event queues, then closes the actor). Later requests activate it afresh.
   */
  remove(realmId: number): RealmActor | undefined {
    const actor = this.byId.get(realmId);
    if (!actor) return undefined;
    this.byId.delete(realmId);
    if (this.bySubdomain.get(actor.realm.stringId) === actor) this.bySubdomain.delete(actor.realm.stringId);
    return actor;
  }

  /** Told of every realm put away for being idle (a cluster then gives its lease back). */
  onPassivated(listener: (actor: RealmActor) => void): void {
    this.passivatedListeners.push(listener);
  }

  get activeCount() {
    return this.byId.size;
  }

  actors(): Iterable<RealmActor> {
    return this.byId.values();
  }

  /** Collects expired event queues, then puts away realms idle past REALM_IDLE_SECONDS. */
  sweep(now = Date.now()): void {
    const idleMs = this.services.config.REALM_IDLE_SECONDS * 1000;
    for (const actor of [...this.byId.values()]) {
      actor.events.collectGarbage(now);
      if (now - actor.lastUsed < idleMs || !actor.idle) continue;
      this.remove(actor.realm.id);
      actor.close();
      this.services.log.debug({ realm: actor.realm.stringId }, 'idle realm actor passivated');
      for (const listener of this.passivatedListeners) listener(actor);
    }
  }

  close(): void {
    clearInterval(this.gcTimer);
    for (const actor of this.byId.values()) actor.close();
    this.byId.clear();
    this.bySubdomain.clear();
  }
}
