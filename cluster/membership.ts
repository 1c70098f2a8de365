// Which workers are alive. A worker announces itself with a key that expires (refreshed by a
// heartbeat from its keeper thread) plus an entry in a hash of members, and publishes joins and leaves on a channel.
// Views (every front and every worker) re-read the members when a message arrives and on a
// timer, so a missed message or a crashed worker (its key expired) is noticed within
// MEMBER_TTL_MS + MEMBERSHIP_CHECK_MS.
import { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import type { Logger } from '../src/log.js';
import type { RedisKeys } from './redis.js';
import { Placement } from './placement.js';
import type { Keeper } from './keeper/index.js';
import { announceMember, type MemberKeys } from './keeper/rounds.js';

export interface MemberInfo {
  id: string;
  host: string;
  port: number;
  metricsPort?: number;
  pid: number;
  hostname: string;
  startedAt: string;
}

interface Timing {
  MEMBER_TTL_MS: number;
  MEMBERSHIP_CHECK_MS: number;
}

// Drops a member's hash entry only if its key is really gone (it may have just rejoined).
const REMOVE_IF_EXPIRED = `
if redis.call('EXISTS', KEYS[2]) == 0 then
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0`;

/** The worker side: join, leave; the keeper thread keeps the membership key alive between. */
export class MemberAnnouncer {
  private readonly member: MemberKeys;

  constructor(
    private readonly redis: Redis,
    keys: RedisKeys,
    readonly info: MemberInfo,
    private readonly timing: Pick<Timing, 'MEMBER_TTL_MS'>,
    private readonly keeper: Keeper,
  ) {
    this.member = { key: keys.member(info.id), members: keys.members, channel: keys.membershipChannel, id: info.id, info: JSON.stringify(info) };
  }

  /**
   * Joins; refuses while another live worker has the same id (its key exists). A worker
   * restarted under its old id right after a crash waits for the old key to expire.
   */
  async join(): Promise<void> {
    const deadline = Date.now() + this.timing.MEMBER_TTL_MS + 1000;
    while ((await this.redis.set(this.member.key, '1', 'PX', this.timing.MEMBER_TTL_MS, 'NX')) === null) {
      if (Date.now() > deadline) throw new Error(`Another worker with id '${this.info.id}' is alive; worker ids must be unique`);
      await new Promise((r) => setTimeout(r, 250));
    }
    await announceMember(this.redis, this.member, this.timing.MEMBER_TTL_MS);
    this.keeper.keepMember(this.member);
  }

  /** Leaves on purpose: views drop this worker at once instead of waiting for the key to expire. */
  async leave(): Promise<void> {
    await this.keeper.dropMember();
    await this.redis.multi().del(this.member.key).hdel(this.member.members, this.info.id).exec();
    await this.redis.publish(this.member.channel, JSON.stringify({ op: 'leave', id: this.info.id }));
  }
}

/**
 * A process's view of the live workers and the placement computed from it. Emits 'change'
 * (with the previous and new member ids) whenever the set of live workers changes.
 */
export class MembershipView extends EventEmitter {
  private members = new Map<string, MemberInfo>();
  private current = new Placement([]);
  private excluded = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private fastTimer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private again = false;
  private lastRefresh = 0;
  private closed = false;
  version = 0;

  constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly keys: RedisKeys,
    private readonly timing: Timing,
    private readonly log: Logger,
  ) {
    super();
  }

  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string) => {
      if (channel === this.keys.membershipChannel) void this.refresh();
    });
    // After a reconnect the subscription is restored, but messages sent meanwhile are lost.
    this.subscriber.on('ready', () => void this.refresh());
    await this.subscriber.subscribe(this.keys.membershipChannel);
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.timing.MEMBERSHIP_CHECK_MS);
    this.timer.unref();
  }

  get placement(): Placement {
    return this.current;
  }

  live(): MemberInfo[] {
    return this.current.nodes.map((id) => this.members.get(id)!);
  }

  member(id: string): MemberInfo | undefined {
    return this.members.get(id);
  }

  /** The worker that owns a realm, or null while there is none. */
  owner(subdomain: string): MemberInfo | null {
    const id = this.current.owner(subdomain);
    return id === null ? null : (this.members.get(id) ?? null);
  }

  /** Leaves a member out of placement at once (a worker that is leaving drops itself). */
  exclude(id: string): void {
    this.excluded.add(id);
    this.recompute();
  }

  /** Re-reads membership now; concurrent callers share one read, and one more follows if asked meanwhile. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.again = true;
      return this.refreshing;
    }
    this.refreshing = this.read()
      .catch((err: unknown) => this.log.warn({ err: (err as Error).message }, 'membership read failed; keeping the last view'))
      .finally(() => {
        this.refreshing = null;
        this.lastRefresh = Date.now();
        if (this.again && !this.closed) {
          this.again = false;
          void this.refresh();
        }
      });
    return this.refreshing;
  }

  /** A refresh unless one finished within `minIntervalMs` (callers that saw a bounce). */
  refreshSoon(minIntervalMs = 100): Promise<void> {
    if (this.refreshing) return this.refreshing;
    if (Date.now() - this.lastRefresh < minIntervalMs) return Promise.resolve();
    return this.refresh();
  }

  /** While some worker looks unreachable, re-read often so its expiry is seen quickly. */
  suspect(on: boolean): void {
    if (on && !this.fastTimer && !this.closed) {
      this.fastTimer = setInterval(() => void this.refresh(), 250);
      this.fastTimer.unref();
    } else if (!on && this.fastTimer) {
      clearInterval(this.fastTimer);
      this.fastTimer = null;
    }
  }

  private async read(): Promise<void> {
    const all = await this.redis.hgetall(this.keys.members);
    const ids = Object.keys(all);
    const alive = ids.length ? await this.redis.mget(ids.map((id) => this.keys.member(id))) : [];
    const next = new Map<string, MemberInfo>();
    for (const [i, id] of ids.entries()) {
      if (alive[i] === null) {
        await this.redis.eval(REMOVE_IF_EXPIRED, 2, this.keys.members, this.keys.member(id), id);
        continue;
      }
      try {
        next.set(id, JSON.parse(all[id]!) as MemberInfo);
      } catch (err) {
        this.log.warn({ id, err: (err as Error).message }, 'unreadable member entry');
      }
    }
    this.members = next;
    this.recompute();
  }

  private recompute(): void {
    const ids = [...this.members.keys()].filter((id) => !this.excluded.has(id)).sort();
    const before = this.current.nodes;
    if (ids.length === before.length && ids.every((id, i) => id === before[i])) return;
    this.current = new Placement(ids);
    this.version++;
    this.log.info({ workers: ids }, 'cluster membership changed');
    this.emit('change', before, ids);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.suspect(false);
    await this.subscriber
      .unsubscribe(this.keys.membershipChannel)
      .catch((err: unknown) => this.log.debug({ err: (err as Error).message }, 'unsubscribe on close failed'));
  }
}
