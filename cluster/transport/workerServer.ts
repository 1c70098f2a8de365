// The worker's end of the transport: accepts connections from fronts and answers their
// framed requests through the realm gate. When a front stops reading (its responses back
// up), this side stops reading that front's requests until the socket drains.
import net from 'node:net';
import type { Logger } from '../../src/log.js';
import type { ApiRequest } from '../../src/http/contract.js';
import { internalErrorResponse } from '../../src/http/envelope.js';
import { bodyPayload } from '../../src/http/bodyText.js';
import type { GateOutcome, RealmGate } from '../realmGate.js';
import type { ShardHost } from '../shardHost.js';
import { shardOfRequest } from '../queueShards.js';
import { FramedSocket } from './framedSocket.js';
import { responseHead, type FrontFrame } from './frames.js';

export class WorkerServer {
  private server: net.Server | null = null;
  private readonly sockets = new Set<FramedSocket>();
  private readonly pendingBySocket = new Map<FramedSocket, Map<number, ApiRequest>>();
  private shardBatches = 0;

  constructor(
    private readonly gate: RealmGate,
    private readonly selfId: string,
    private readonly log: Logger,
    /** Queue shards held by this worker, and how many each realm has (1: none). */
    private readonly shards: { host: ShardHost; count: number } | null = null,
  ) {}

  /** A request goes to its realm's gate, or to a queue shard for a poll of a shard's queue. */
  private handle(req: ApiRequest): Promise<GateOutcome> {
    const k = this.shards ? shardOfRequest(req, this.shards.count) : null;
    return k === null ? this.gate.handle(req) : this.shards!.host.handle(req, k);
  }

  /**
   * The front will not pass the answer on: its client left, or it stopped waiting (its
   * request timeout). The request is marked first, so that one still waiting to reach its
   * realm (being loaded here) learns of it when it gets there.
   */
  private cancel(req: ApiRequest): void {
    req.cancelled = true;
    const k = this.shards ? shardOfRequest(req, this.shards.count) : null;
    if (k === null) this.gate.cancel(req);
    else this.shards!.host.cancel(req, k);
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const server = net.createServer((socket) => this.accept(socket));
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        server.on('error', (err) => this.log.error({ err }, 'transport server error'));
        this.server = server;
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  }

  private accept(socket: net.Socket): void {
    const fs = new FramedSocket(socket);
    const pending = new Map<number, ApiRequest>();
    this.sockets.add(fs);
    this.pendingBySocket.set(fs, pending);
    fs.on('frame', (frame: FrontFrame) => {
      switch (frame.kind) {
        case 'hello':
          fs.send({ kind: 'hello', worker: this.selfId });
          return;
        case 'request':
          pending.set(frame.id, frame.req);
          void this.handle(frame.req).then(
            (outcome) => {
              pending.delete(frame.id);
              if (outcome.kind === 'response') {
                // The body goes as the frame's payload, as the JSON the client gets (its bytes
                // as they are when the worker has them in pieces).
                const res = outcome.res;
                fs.send(
                  { kind: 'response', id: frame.id, res: responseHead(res) },
                  res.bodyBytes ?? (res.bodyJson !== undefined ? res.bodyJson + '\n' : bodyPayload(res.body)),
                );
              } else fs.send({ kind: 'bounce', id: frame.id, reason: outcome.reason });
            },
            (err: unknown) => {
              pending.delete(frame.id);
              this.log.error({ err, reqId: frame.req.id }, 'request failed in the realm gate');
              fs.send({ kind: 'response', id: frame.id, res: internalErrorResponse() });
            },
          );
          return;
        case 'cancel': {
          const req = pending.get(frame.id);
          if (req) this.cancel(req);
          return;
        }
        case 'shard': {
          const host = this.shards?.host;
          if (!host) {
            fs.send({ kind: 'shardReply', id: frame.id, reply: { ok: false, reason: 'this worker holds no queue shards' } });
            return;
          }
          this.shardBatches++;
          host
            .apply(frame.batch)
            .then(
              (reply) => fs.send({ kind: 'shardReply', id: frame.id, reply }),
              (err: unknown) => {
                this.log.error({ err, shard: frame.batch.unit }, 'queue shard batch failed');
                fs.send({ kind: 'shardReply', id: frame.id, reply: { ok: false, reason: 'queue shard failed' } });
              },
            )
            .finally(() => this.shardBatches--);
          return;
        }
        default:
          this.log.warn({ frame: (frame as { kind: string }).kind }, 'unknown frame from front');
      }
    });
    fs.on('congested', () => fs.holdReading(true));
    fs.on('drained', () => fs.holdReading(false));
    fs.on('socketError', (err: Error) => this.log.debug({ err: err.message }, 'front connection error'));
    fs.on('close', () => {
      // The front went away: its parked polls are released (their queues stay).
      for (const req of pending.values()) this.cancel(req);
      pending.clear();
      this.sockets.delete(fs);
      this.pendingBySocket.delete(fs);
    });
  }

  /** Requests (and queue shard batches) received and not yet answered, over all connections. */
  get pending(): number {
    let n = this.shardBatches;
    for (const p of this.pendingBySocket.values()) n += p.size;
    return n;
  }

  /**
   * Stops accepting connections; waits (bounded) for answers to go out, then says bye on each
   * connection and waits for the other side to close it. A request that crossed the bye is
   * still answered (bounced, since the realms are gone): closing first would leave it without
   * an answer, which a front must report as 502 for a write.
   */
  async close(graceMs = 5000): Promise<void> {
    this.server?.close();
    const deadline = Date.now() + graceMs;
    while (this.pending > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    for (const fs of this.sockets) fs.send({ kind: 'bye' });
    const closeBy = Date.now() + Math.min(graceMs, 2000);
    while (this.sockets.size > 0 && Date.now() < closeBy) await new Promise((r) => setTimeout(r, 20));
    for (const fs of this.sockets) fs.close();
  }
}
