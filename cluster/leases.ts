// Realm leases: a worker serves a realm only while it holds the realm's row in realm_leases.
// Taking a realm bumps its epoch; every write transaction checks (owner, epoch) first (see
// fencedSql.ts), so a worker that was paused or cut off past its lease cannot commit even
// if it still believes it owns the realm. Locally a lease counts as valid a margin before
// its database expiry, so a worker stops serving reads before another can take over.
import type { Sql } from '../src/db/connect.js';
import type { StatementFence } from '../src/db/statementFence.js';
import type { Logger } from '../src/log.js';
import { RealmNotHereError } from '../src/realm/services.js';
import { fencedSql } from './fencedSql.js';
import type { Keeper } from './keeper/index.js';
import { renewRealmLeases } from './keeper/rounds.js';

export interface Lease {
  realmId: number;
  epoch: number;
  /** performance.now() after which this worker no longer trusts the lease (renewals by a keeper aside). */
  validUntil: number;
  /** The keeper's number for it (see Keeper.renewedUntil). */
  seq: number;
  /** The previous holder said its event queue copies may lack events (see markQueuesStale). */
  queuesStale: boolean;
}

export interface LeaseTiming {
  LEASE_TTL_MS: number;
  LEASE_RENEW_MS: number;
}

const ACQUIRE_POLL_MS = 100;
const ACQUIRE_LOCK_TIMEOUT_MS = 500;
const LOCK_NOT_AVAILABLE = '55P03';

export class LeaseManager {
  private readonly held = new Map<number, Lease>();
  private timer: NodeJS.Timeout | null = null;
  private readonly margin: number;
  private keeper: Keeper | null = null;
  /** Called when a lease is found lost (taken over, or not renewed in time). */
  onLost: (realmId: number) => void = () => {};

  constructor(
    private readonly sql: Sql,
    readonly owner: string,
    private readonly timing: LeaseTiming,
    private readonly log: Logger,
  ) {
    this.margin = Math.min(500, timing.LEASE_TTL_MS / 4);
  }

  /**
   * Hands renewals to a keeper thread (a worker does): the database rows are renewed from
   * there, so a long synchronous piece of work here does not cost the leases; this thread
   * only drops leases that lapsed anyway.
   */
  useKeeper(keeper: Keeper): void {
    this.keeper = keeper;
    keeper.onRealmLost = (realmId, epoch) => {
      if (this.held.get(realmId)?.epoch === epoch) this.lose(realmId, 'taken over');
    };
  }

  start(): void {
    this.timer = setInterval(() => void this.renew(), this.timing.LEASE_RENEW_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** The lease if held and still trusted locally. */
  valid(realmId: number): Lease | null {
    const lease = this.held.get(realmId);
    if (!lease) return null;
    const now = performance.now();
    if (now < lease.validUntil) return lease;
    return this.keeper && now < this.keeper.renewedUntil(lease.seq) - this.margin ? lease : null;
  }

  heldRealms(): Lease[] {
    return [...this.held.values()];
  }

  /** One attempt: the epoch when the realm is now ours, null when another worker holds it. */
  async tryAcquire(realmId: number): Promise<Lease | null> {
    const started = performance.now();
    let rows: { epoch: string; queues_stale: boolean | null }[];
    try {
      rows = await this.sql.begin(async (tx) => {
        // The previous holder's write in flight holds the row (FOR KEY SHARE): wait for it a
        // little, then try again later, rather than queue behind a paused process.
        await tx`SELECT set_config('lock_timeout', ${String(ACQUIRE_LOCK_TIMEOUT_MS)}, true)`;
        const taken = await tx<{ epoch: string }[]>`
          INSERT INTO realm_leases (realm_id, owner, epoch, expires_at)
          VALUES (${realmId}, ${this.owner}, 1, now() + ${this.timing.LEASE_TTL_MS} * interval '1 millisecond')
          ON CONFLICT (realm_id) DO UPDATE
            SET epoch = realm_leases.epoch + 1, owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
            WHERE realm_leases.expires_at < now() OR realm_leases.owner = EXCLUDED.owner
          RETURNING epoch`;
        if (!taken[0]) return [];
        // A statement of its own sees what the previous holder committed up to our taking the
        // row (it may have marked its copies stale while this statement waited for the row).
        const [row] = await tx<{ queues_stale: boolean }[]>`SELECT queues_stale FROM realm_leases WHERE realm_id = ${realmId}`;
        return [{ epoch: taken[0].epoch, queues_stale: row?.queues_stale ?? false }];
      });
    } catch (err) {
      if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) return null;
      throw err;
    }
    if (!rows[0]) return null;
    const epoch = Number(rows[0].epoch);
    const previous = this.held.get(realmId);
    if (previous) this.keeper?.dropLease(realmId, previous.seq);
    const lease = {
      realmId, epoch, validUntil: started + this.timing.LEASE_TTL_MS - this.margin, seq: this.keeper?.keepLease(realmId, epoch) ?? 0,
      queuesStale: rows[0].queues_stale === true,
    };
    this.held.set(realmId, lease);
    return lease;
  }

  /**
   * Acquires, waiting up to `waitMs` for the current holder to release it or for its lease
   * to expire (a planned hand-off takes milliseconds; a crashed holder up to LEASE_TTL_MS).
   */
  async acquire(realmId: number, waitMs: number): Promise<Lease | null> {
    const deadline = performance.now() + waitMs;
    for (;;) {
      const lease = await this.tryAcquire(realmId);
      if (lease || performance.now() + ACQUIRE_POLL_MS > deadline) return lease;
      await new Promise((r) => setTimeout(r, ACQUIRE_POLL_MS));
    }
  }

  /** Gives the realm up at once (after a hand-off), so the next owner need not wait. */
  async release(realmId: number): Promise<void> {
    const lease = this.held.get(realmId);
    if (!lease) return;
    this.unhold(lease);
    await this.sql`
      UPDATE realm_leases SET expires_at = now() - interval '1 millisecond'
      WHERE realm_id = ${realmId} AND owner = ${this.owner} AND epoch = ${lease.epoch}`;
  }

  /**
   * Tells the realm's next holder not to restore this holder's event queue copies: they may
   * lack events. Written only while the lease is still this worker's; false when it was not.
   */
  async markQueuesStale(realmId: number): Promise<boolean> {
    const lease = this.held.get(realmId);
    if (!lease) return false;
    const rows = await this.sql`
      UPDATE realm_leases SET queues_stale = true
      WHERE realm_id = ${realmId} AND owner = ${this.owner} AND epoch = ${lease.epoch}
      RETURNING realm_id`;
    return rows.length === 1;
  }

  /**
   * The previous holder's stale copies were dealt with (left out of the restore and deleted):
   * the flag goes, while the lease is still this worker's.
   */
  async clearQueuesStale(realmId: number): Promise<void> {
    const lease = this.held.get(realmId);
    if (!lease) return;
    await this.sql`
      UPDATE realm_leases SET queues_stale = false
      WHERE realm_id = ${realmId} AND owner = ${this.owner} AND epoch = ${lease.epoch} AND queues_stale`;
  }

  /** Forgets a lease without touching the database (it was lost anyway). */
  forget(realmId: number): void {
    const lease = this.held.get(realmId);
    if (lease) this.unhold(lease);
  }

  private unhold(lease: Lease): void {
    this.held.delete(lease.realmId);
    this.keeper?.dropLease(lease.realmId, lease.seq);
  }

  /**
   * Renews every held lease in one statement (without a keeper); leases not renewed are
   * lost, and so are those not renewed in time.
   */
  async renew(): Promise<void> {
    const ids = this.keeper ? [] : [...this.held.keys()];
    const now = performance.now();
    if (ids.length) {
      try {
        const renewed = await renewRealmLeases(this.sql, this.owner, ids, this.timing.LEASE_TTL_MS);
        for (const id of ids) {
          const lease = this.held.get(id);
          if (!lease) continue;
          if (renewed.get(id) === lease.epoch) lease.validUntil = now + this.timing.LEASE_TTL_MS - this.margin;
          else if (!renewed.has(id)) this.lose(id, 'taken over');
        }
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'lease renewal failed');
      }
    }
    for (const lease of [...this.held.values()]) if (!this.valid(lease.realmId)) this.lose(lease.realmId, 'not renewed in time');
  }

  private lose(realmId: number, why: string): void {
    const lease = this.held.get(realmId);
    if (!lease) return;
    this.unhold(lease);
    this.log.warn({ realmId, why }, 'realm lease lost');
    this.onLost(realmId);
  }

  /**
   * The check every write transaction of the realm starts with, for the epoch an actor was
   * activated under. Its statement fails when the lease row is not this worker's at that
   * epoch (see `condition`), which aborts the transaction, so that nothing sent after it in
   * the same transaction can commit, even statements pipelined behind it (see fencedSql.ts).
   * The same statement sets the transaction's idle limit: if this process stalls (paused,
   * swapped out) inside the transaction, Postgres ends the session after a lease's time, so
   * the lock cannot keep the next owner out for longer.
   */
  async check(tx: Sql, realmId: number, epoch: number): Promise<void> {
    await this.fenced(realmId, epoch, () =>
      tx`SELECT ${this.condition(tx, realmId, epoch)} AS held, set_config('idle_in_transaction_session_timeout', ${String(this.timing.LEASE_TTL_MS)}, true)`,
    );
  }

  /**
   * 1 while the lease row is this worker's at that epoch; otherwise a division by the count of
   * matching rows, zero, which fails the statement. FOR KEY SHARE: a takeover (it changes
   * epoch, a key column: migration 090) waits for the statement's transaction; a renewal
   * (expires_at only) does not.
   */
  private condition(sql: Sql, realmId: number, epoch: number) {
    return sql`(SELECT 1 / count(*)::int
      FROM (SELECT 1 FROM realm_leases WHERE realm_id = ${realmId} AND owner = ${this.owner} AND epoch = ${epoch} FOR KEY SHARE) AS lease)`;
  }

  /**
   * Runs a statement carrying the condition: refused at once when the lease is known to be
   * gone, and a failed condition makes the realm lost here.
   */
  private async fenced<T>(realmId: number, epoch: number, statement: () => Promise<T>): Promise<T> {
    const lease = this.valid(realmId);
    if (!lease || lease.epoch !== epoch) throw leaseLost(realmId);
    try {
      return await statement();
    } catch (err) {
      if ((err as { code?: string } | null)?.code !== DIVISION_BY_ZERO) throw err;
      if (this.held.get(realmId)?.epoch === epoch) this.lose(realmId, 'fence check failed');
      throw leaseLost(realmId);
    }
  }

  /**
   * The `sql` of an actor activated under the lease held now. The epoch is fixed here: an
   * actor from an earlier tenure (the realm was lost and taken again) can never pass the
   * check, even though this worker holds the realm again.
   */
  sqlFor(realmId: number): Sql {
    const epoch = this.held.get(realmId)?.epoch ?? -1;
    const fence: StatementFence = {
      condition: () => this.condition(this.sql, realmId, epoch),
      run: (statement) => this.fenced(realmId, epoch, () => statement(this.sql)),
    };
    return fencedSql(
      this.sql,
      (tx) => this.check(tx, realmId, epoch),
      // The front sends the request again; nothing of it was committed.
      () => new RealmNotHereError(`A transaction of realm ${realmId} was interrupted before it committed`),
      fence,
    );
  }
}

/** What the fence check fails with when the lease is not held. */
const DIVISION_BY_ZERO = '22012';

const leaseLost = (realmId: number) => new RealmNotHereError(`Realm ${realmId} is no longer held by this worker`);
