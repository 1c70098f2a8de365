// The main thread's side of the keeper (see thread.ts): it starts the thread, beats so the
// thread can tell the main thread is making progress, tells it which claims to keep alive,
// and hears back when one was lost.
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../src/log.js';
import type { MemberKeys } from './rounds.js';
import {
  BEAT, REALM_ROUND_SEQ, REALM_ROUND_START, absoluteNow, loadNumber, loadTime, newShared, storeTime,
  type FromKeeper, type KeeperTiming, type ToKeeper,
} from './protocol.js';

export type { KeeperTiming } from './protocol.js';

export interface KeeperOptions {
  redisUrl: string;
  redisPrefix: string;
  databaseUrl: string;
  owner: string;
  timing: KeeperTiming;
  log: Logger;
  /** The compiled thread module (tests that run from sources point at dist/). */
  threadFile?: URL | string;
}

const BEAT_MS = 100;

export class Keeper {
  private readonly shared = newShared();
  private readonly thread: Worker;
  private readonly beat: NodeJS.Timeout;
  private readonly acks = new Map<number, () => void>();
  private nextAck = 1;
  private seq = 0;
  private closed = false;
  private lastBeat = performance.now();
  /** Turns of the event loop later than a lease's lifetime, and later than STALL_LIMIT_MS. */
  readonly stalls = { longerThanLease: 0, pastLimit: 0 };
  /** A realm lease the thread found taken over (or expired) at a renewal. */
  onRealmLost: (realmId: number, epoch: number) => void = () => {};
  /** A queue shard's lease the thread could not renew (`seq`: the holding, from keepShard). */
  onShardLost: (key: string, seq: number) => void = () => {};

  private constructor(private readonly o: KeeperOptions) {
    storeTime(this.shared, BEAT, absoluteNow());
    this.thread = new Worker(o.threadFile ?? new URL('./thread.js', import.meta.url), {
      workerData: {
        redisUrl: o.redisUrl, redisPrefix: o.redisPrefix, databaseUrl: o.databaseUrl, owner: o.owner, timing: o.timing,
        shared: this.shared.buffer,
      },
    });
    this.thread.on('message', (m: FromKeeper) => this.heard(m));
    this.thread.on('error', (err) => o.log.error({ err }, 'keeper thread failed'));
    this.thread.on('exit', (code) => {
      if (this.closed) return;
      // Without it nothing keeps this worker's claims alive: they would lapse one by one.
      o.log.fatal({ code }, 'keeper thread exited; the worker stops');
      process.exit(1);
    });
    this.beat = setInterval(() => this.tick(), BEAT_MS);
    this.beat.unref();
  }

  static async start(o: KeeperOptions): Promise<Keeper> {
    const keeper = new Keeper(o);
    await new Promise<void>((resolve, reject) => {
      keeper.thread.once('message', (m: FromKeeper) => (m.op === 'ready' ? resolve() : reject(new Error(`keeper said ${m.op} first`))));
      keeper.thread.once('error', reject);
    });
    return keeper;
  }

  private tick(): void {
    const now = performance.now();
    const gap = now - this.lastBeat;
    this.lastBeat = now;
    storeTime(this.shared, BEAT, absoluteNow());
    if (gap > this.o.timing.LEASE_TTL_MS) this.stalls.longerThanLease++;
    if (gap > this.o.timing.STALL_LIMIT_MS) {
      this.stalls.pastLimit++;
      this.o.log.warn({ ms: Math.round(gap) }, 'event loop stalled past STALL_LIMIT_MS: this worker’s claims were left to lapse');
    } else if (gap > this.o.timing.LEASE_TTL_MS) {
      this.o.log.info({ ms: Math.round(gap) }, 'event loop stalled longer than a lease; the keeper thread renewed meanwhile');
    }
  }

  private heard(m: FromKeeper): void {
    switch (m.op) {
      case 'ack':
        this.acks.get(m.ack)?.();
        this.acks.delete(m.ack);
        break;
      case 'realmLost':
        this.onRealmLost(m.realmId, m.epoch);
        break;
      case 'shardLost':
        this.onShardLost(m.key, m.seq);
        break;
      case 'log':
        this.o.log[m.level](m.data, m.msg);
        break;
      case 'ready':
        break;
    }
  }

  private tell(m: ToKeeper): void {
    if (!this.closed) this.thread.postMessage(m);
  }

  private ask(make: (ack: number) => ToKeeper): Promise<void> {
    if (this.closed) return Promise.resolve();
    const ack = this.nextAck++;
    return new Promise((resolve) => {
      this.acks.set(ack, resolve);
      this.thread.postMessage(make(ack));
    });
  }

  /** Keeps a membership key alive from now on (announcing the member again if it lapsed). */
  keepMember(member: MemberKeys): void {
    this.tell({ op: 'member', member });
  }

  /** Stops the membership heartbeat; resolves once none is in flight. */
  dropMember(): Promise<void> {
    return this.ask((ack) => ({ op: 'memberGone', ack }));
  }

  /** Keeps a realm lease alive; its number for `renewedUntil`. */
  keepLease(realmId: number, epoch: number): number {
    const seq = ++this.seq;
    this.tell({ op: 'lease', realmId, epoch, seq });
    return seq;
  }

  dropLease(realmId: number, seq: number): void {
    this.tell({ op: 'leaseGone', realmId, seq });
  }

  /**
   * Until when (performance.now() of this thread) the database holds a lease for certain:
   * the start of the last renewal that covered it, plus the lease's lifetime. 0 when no
   * renewal has covered it yet.
   */
  renewedUntil(seq: number): number {
    if (loadNumber(this.shared, REALM_ROUND_SEQ) < seq) return 0;
    return loadTime(this.shared, REALM_ROUND_START) - performance.timeOrigin + this.o.timing.LEASE_TTL_MS;
  }

  /** Keeps a queue shard's lease alive; the number of this holding, for dropShard and onShardLost. */
  keepShard(key: string): number {
    const seq = ++this.seq;
    this.tell({ op: 'shard', key, seq });
    return seq;
  }

  dropShard(key: string, seq: number): void {
    this.tell({ op: 'shardGone', key, seq });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    clearInterval(this.beat);
    await this.ask((ack) => ({ op: 'close', ack }));
    this.closed = true;
    await this.thread.terminate();
  }
}
