// Picks up changes other processes wrote (the admin CLI) and hands them to the realm actors
// that are active here. Polled, and also consulted on demand (an unknown API key may belong
// to a user created a moment ago).
import { changesAfter, latestChangeId } from '../db/changes.js';
import { adoptExternalUser, announceUser } from '../actions/users/create.js';
import { loadRealmUsers } from '../db/users.js';
import type { RealmActor } from '../realm/actor.js';
import type { RealmRegistry } from '../realm/registry.js';
import { RealmNotHereError } from '../realm/services.js';

/** Many users written at once (admin create-users): load and announce every one not held yet. */
function adoptNewUsers(actor: RealmActor): Promise<void> {
  return actor.exclusive(async () => {
    const users = await loadRealmUsers(actor.sql, actor.realm.id);
    for (const user of users) if (!actor.user(user.id)) announceUser(actor, user);
  });
}

const MIN_INTERVAL_MS = 100;
// Journal ids are assigned before commit, so on a real Postgres a smaller id can become
// visible after a larger one. Each poll re-reads this many ids below the highest seen and
// skips the ones already applied.
const REREAD_WINDOW = 500n;

export class ChangeFeed {
  private lastId = 0n;
  private readonly applied = new Set<bigint>();
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private lastRun = 0;

  constructor(private readonly registry: RealmRegistry, private readonly intervalMs = 1000) {}

  async start(): Promise<void> {
    this.lastId = BigInt(await latestChangeId(this.registry.services.sql));
    // Whatever exists now is already in the database the actors load from.
    for (let id = this.lastId; id > 0n && id > this.lastId - REREAD_WINDOW; id--) this.applied.add(id);
    this.timer = setInterval(() => void this.catchUp().catch((err: unknown) => this.registry.services.log.warn({ err }, 'change feed poll failed')), this.intervalMs);
    this.timer.unref();
  }

  /** Applies every change written so far; concurrent callers share one run. */
  catchUp(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const wait = Math.max(0, this.lastRun + MIN_INTERVAL_MS - Date.now());
    this.inFlight = new Promise<void>((r) => setTimeout(r, wait))
      .then(() => this.apply())
      .finally(() => {
        this.lastRun = Date.now();
        this.inFlight = null;
      });
    return this.inFlight;
  }

  private async apply(): Promise<void> {
    const floor = this.lastId > REREAD_WINDOW ? this.lastId - REREAD_WINDOW : 0n;
    const changes = await changesAfter(this.registry.services.sql, floor.toString());
    for (const change of changes) {
      const id = BigInt(change.id);
      if (this.applied.has(id)) continue;
      if (id > this.lastId) this.lastId = id;
      const actor = this.registry.activeById(change.realm_id);
      // A realm not active here is looked at again while the change is in the window: one
      // being taken up (its actor loaded before the change was written, its queues not yet
      // restored) learns of it once it serves. Adopting a user it has is harmless.
      if (!actor) continue;
      try {
        if (change.kind === 'user' && change.object_id !== null) await adoptExternalUser(actor, change.object_id);
        if (change.kind === 'users') await adoptNewUsers(actor);
      } catch (err) {
        // The realm is leaving this process: its next holder loads the change from the database.
        if (err instanceof RealmNotHereError) continue;
        throw err;
      }
      this.applied.add(id);
    }
    for (const id of this.applied) if (id <= floor) this.applied.delete(id);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
