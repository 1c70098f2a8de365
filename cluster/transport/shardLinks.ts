// A worker's connections to the workers holding its realms' queue shards: one socket per
// peer, many batches in flight on it, each answered by id. A shard held by this worker itself
// is fed by a direct call. Failures are answered as refusals; the sender looks the shard's
// worker up again and retries (see shardedHub.ts).
// A batch not answered within the batch timeout is waited for longer while the worker it went
// to still holds the shard's lease: that lease is renewed from the worker's keeper thread only
// while its event loop turns (cluster/keeper/), so a worker that is slow under load is waited
// for, and one that stalled past STALL_LIMIT_MS or died is given up on once its lease lapsed.
// (Giving up on a live shard makes the actor reset it: every client of it registers again.)
import net from 'node:net';
import type { Logger } from '../../src/log.js';
import type { MemberInfo } from '../membership.js';
import type { ShardHost } from '../shardHost.js';
import type { ShardBatch, ShardReply } from '../shardOps.js';
import { FramedSocket } from './framedSocket.js';
import type { Received, WorkerFrame } from './frames.js';

const CONNECT_TIMEOUT_MS = 2000;
/** How long a batch is waited for before the shard's lease is looked at. */
export const BATCH_TIMEOUT_MS = 10_000;

/** What the links read of membership (a MembershipView). */
export interface ShardPlacement {
  owner(unit: string): MemberInfo | null;
  member(id: string): MemberInfo | undefined;
  refreshSoon(): Promise<void>;
  on(event: 'change', listener: () => void): unknown;
}

/** The worker holding a shard's lease now (null when nobody does). */
export type ShardHolder = (unit: string) => Promise<string | null>;

class Peer {
  private fs: FramedSocket | null = null;
  private ready = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: ShardReply) => void; timer: NodeJS.Timeout }>();
  private queued: { id: number; batch: ShardBatch }[] = [];

  constructor(
    readonly member: MemberInfo,
    private readonly selfId: string,
    private readonly log: Logger,
    private readonly holder: ShardHolder,
    private readonly timeoutMs: number,
  ) {}

  send(batch: ShardBatch): Promise<ShardReply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => void this.overdue(id, batch.unit), this.timeoutMs);
      timer.unref();
      this.waiting.set(id, { resolve, timer });
      if (this.ready) this.fs!.send({ kind: 'shard', id, batch });
      else {
        this.queued.push({ id, batch });
        this.connect();
      }
    });
  }

  /** A batch is late: waited for again while this worker holds the shard, else refused. */
  private async overdue(id: number, unit: string): Promise<void> {
    let held: boolean;
    try {
      held = (await this.holder(unit)) === this.member.id;
    } catch {
      held = false;
    }
    const w = this.waiting.get(id);
    if (!w) return;
    if (!held) {
      this.settle(id, { ok: false, reason: 'queue shard did not answer in time' });
      return;
    }
    this.log.warn({ worker: this.member.id, shard: unit }, 'queue shard is slow to answer a batch; its worker still holds it, waiting on');
    w.timer = setTimeout(() => void this.overdue(id, unit), this.timeoutMs);
    w.timer.unref();
  }

  private settle(id: number, reply: ShardReply): void {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    clearTimeout(w.timer);
    w.resolve(reply);
  }

  private connect(): void {
    if (this.fs) return;
    const socket = net.createConnection({ host: this.member.host, port: this.member.port });
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy(new Error('no hello from worker')));
    const fs = new FramedSocket(socket);
    this.fs = fs;
    socket.once('connect', () => fs.send({ kind: 'hello', front: this.selfId }));
    fs.on('frame', (frame: Received<WorkerFrame>) => {
      if (frame.kind === 'hello') {
        if (frame.worker !== this.member.id) {
          this.log.warn({ expected: this.member.id, got: frame.worker }, 'another worker answers at this address');
          fs.destroy();
          return;
        }
        socket.setTimeout(0);
        this.ready = true;
        for (const { id, batch } of this.queued) fs.send({ kind: 'shard', id, batch });
        this.queued = [];
      } else if (frame.kind === 'shardReply') this.settle(frame.id, frame.reply);
      // The worker is leaving: what it has not answered is sent again to the shards' new workers.
      else if (frame.kind === 'bye') fs.close();
    });
    fs.on('socketError', (err: Error) => this.log.debug({ worker: this.member.id, err: err.message }, 'queue shard connection error'));
    fs.on('close', () => {
      this.fs = null;
      this.ready = false;
      this.queued = [];
      for (const id of [...this.waiting.keys()]) this.settle(id, { ok: false, reason: 'connection to the queue shard worker lost' });
    });
  }

  close(): void {
    this.fs?.close();
  }
}

export class ShardLinks {
  private readonly peers = new Map<string, Peer>();

  constructor(
    private readonly selfId: string,
    private readonly view: ShardPlacement,
    private readonly host: Pick<ShardHost, 'apply'>,
    private readonly log: Logger,
    private readonly holder: ShardHolder,
    private readonly timeoutMs = BATCH_TIMEOUT_MS,
  ) {
    view.on('change', () => {
      for (const [id, peer] of this.peers) {
        if (this.view.member(id)) continue;
        this.peers.delete(id);
        peer.close();
      }
    });
  }

  /** Sends a batch to the worker placement gives its shard now. */
  async send(batch: ShardBatch): Promise<ShardReply> {
    let owner = this.view.owner(batch.unit);
    if (!owner) {
      await this.view.refreshSoon();
      owner = this.view.owner(batch.unit);
      if (!owner) return { ok: false, reason: 'no worker is available' };
    }
    if (owner.id === this.selfId) return this.host.apply(batch);
    let peer = this.peers.get(owner.id);
    if (!peer || peer.member.port !== owner.port || peer.member.host !== owner.host) {
      peer?.close();
      this.peers.set(owner.id, (peer = new Peer(owner, this.selfId, this.log, this.holder, this.timeoutMs)));
    }
    const reply = await peer.send(batch);
    if (!reply.ok) await this.view.refreshSoon();
    return reply;
  }

  close(): void {
    for (const peer of this.peers.values()) peer.close();
    this.peers.clear();
  }
}
