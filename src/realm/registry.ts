// The realm actors of this worker: activated on first use from Postgres, found by subdomain.
import { realmNotHere, type Services } from './services.js';
import { RealmActor } from './actor.js';
import { findRealmById, findRealmBySubdomain } from '../db/realms.js';

export class RealmRegistry {
  private readonly bySubdomain = new Map<string, Promise<RealmActor | null>>();
  private readonly byId = new Map<number, RealmActor>();
  private gcTimer: NodeJS.Timeout;

  constructor(readonly services: Services) {
    this.gcTimer = setInterval(() => this.collectQueues(), services.config.QUEUE_GC_SECONDS * 1000);
    this.gcTimer.unref();
  }

  /** The actor for a subdomain, or null when no such realm exists. */
  get(subdomain: string): Promise<RealmActor | null> {
    let pending = this.bySubdomain.get(subdomain);
    if (!pending) {
      pending = this.activate(subdomain);
      this.bySubdomain.set(subdomain, pending);
      // A missing realm is not remembered: it may be created at any moment.
      void pending.then(
        (a) => { if (!a) this.bySubdomain.delete(subdomain); },
        () => this.bySubdomain.delete(subdomain),
      );
    }
    return pending;
  }

  private async activate(subdomain: string): Promise<RealmActor | null> {
    const realm = await findRealmBySubdomain(this.services.sql, subdomain);
    if (!realm) return null;
    // In a cluster a realm is activated only under its lease; the caller is told to go elsewhere.
    if (this.services.acquireRealm && !(await this.services.acquireRealm(realm))) throw realmNotHere();
    const actor = await RealmActor.activate(this.services, realm);
    await this.services.realmActivated?.(actor);
    this.byId.set(realm.id, actor);
    this.services.log.debug({ realm: subdomain }, 'realm actor activated');
    return actor;
  }

  /** The active actor for a realm id, if this worker has it in memory. */
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
    this.bySubdomain.delete(actor.realm.stringId);
    return actor;
  }

  get activeCount() {
    return this.byId.size;
  }

  actors(): Iterable<RealmActor> {
    return this.byId.values();
  }

  private collectQueues(): void {
    for (const actor of this.byId.values()) actor.events.collectGarbage();
  }

  close(): void {
    clearInterval(this.gcTimer);
    for (const actor of this.byId.values()) actor.close();
    this.byId.clear();
    this.bySubdomain.clear();
  }
}
