// RealmActor: owns one realm's state and is its only writer. State changes run one at a
// time through the mailbox (`exclusive`); reads are served straight from memory.
import type { Services } from './services.js';
import { RealmState } from '../model/realmState.js';
import { EventHub } from '../events/hub.js';
import type { RealmRecord, User } from '../model/types.js';
import { loadRealmUsers } from '../db/users.js';
import { loadRealmGroups } from '../db/groups.js';
import { loadRealmStreams, loadRealmSubscriptions } from '../db/streams.js';
import { loadRealmAlertWords } from '../db/alertWords.js';
import { loadOrganizationState } from '../db/organization.js';
import { loadMessageState } from '../db/messages.js';
import { loadRealmLinkifiers } from '../db/linkifiers.js';
import { loadRealmPlaygrounds } from '../db/playgrounds.js';

export class RealmActor {
  readonly events: EventHub;
  /** Where actions write: the pool, or in a cluster the pool fenced by the lease this actor was activated under. */
  private readonly writeSql: Services['sql'];
  private tail: Promise<unknown> = Promise.resolve();
  private busy = 0;
  lastUsed = Date.now();

  constructor(
    readonly services: Services,
    readonly state: RealmState,
  ) {
    const c = services.config;
    this.writeSql = services.sqlForRealm?.(state.realm.id) ?? services.sql;
    this.events = new EventHub({
      heartbeatSeconds: c.HEARTBEAT_SECONDS,
      maxEvents: c.QUEUE_MAX_EVENTS,
      maxBytes: c.QUEUE_MAX_BYTES,
    });
  }

  static async activate(services: Services, realm: RealmRecord): Promise<RealmActor> {
    const state = new RealmState(realm);
    for (const user of await loadRealmUsers(services.sql, realm.id)) state.putUser(user);
    for (const group of await loadRealmGroups(services.sql, realm.id)) state.groups.set(group.id, group);
    for (const stream of await loadRealmStreams(services.sql, realm.id)) state.putStream(stream);
    for (const sub of await loadRealmSubscriptions(services.sql, realm.id)) state.putSubscription(sub);
    for (const [userId, words] of await loadRealmAlertWords(services.sql, realm.id)) state.alertWords.set(userId, words);
    await loadOrganizationState(services.sql, state);
    await loadMessageState(services.sql, state);
    state.linkifiers = await loadRealmLinkifiers(services.sql, realm.id);
    for (const playground of await loadRealmPlaygrounds(services.sql, realm.id)) state.playgrounds.set(playground.id, playground);
    return new RealmActor(services, state);
  }

  get realm(): RealmRecord {
    return this.state.realm;
  }

  get sql() {
    return this.writeSql;
  }

  /** Runs a state change after every earlier one has finished; no interleaving across awaits. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.busy++;
    const run = this.tail.then(fn);
    this.tail = run.then(
      () => this.busy--,
      () => this.busy--,
    );
    return run;
  }

  get mailboxDepth() {
    return this.busy;
  }

  user(id: number): User | undefined {
    return this.state.users.get(id);
  }

  close(): void {
    this.events.close();
  }
}
