// A worker's connections to the workers holding its realms' queue shards: one socket per
// peer, many batches in flight on it, each answered by id. A shard held by this worker itself
// is fed by a direct call. Failures are answered as refusals; the sender looks the shard's
// worker up again and retries (see shardedHub.ts).
import net from 'node:net';
import type { Logger } from '../../src/log.js';
import type { MembershipView, MemberInfo } from '../membership.js';
import type { ShardHost } from '../shardHost.js';
import type { ShardBatch, ShardReply } from '../shardOps.js';
import { FramedSocket } from './framedSocket.js';
import type { Received, WorkerFrame } from './frames.js';

const CONNECT_TIMEOUT_MS = 2000;
const BATCH_TIMEOUT_MS = 10_000;

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
  ) {}

  send(batch: ShardBatch): Promise<ShardReply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(id, { ok: false, reason: 'queue shard did not answer in time' }), BATCH_TIMEOUT_MS);
      timer.unref();
      this.waiting.set(id, { resolve, timer });
      if (this.ready) this.fs!.send({ kind: 'shard', id, batch });
      else {
        this.queued.push({ id, batch });
        this.connect();
      }
    });
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
    private readonly view: MembershipView,
    private readonly host: ShardHost,
    private readonly log: Logger,
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
      this.peers.set(owner.id, (peer = new Peer(owner, this.selfId, this.log)));
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
