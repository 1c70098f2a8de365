// A front's connection to one worker: one TCP socket carrying many requests at once, each
// framed with an id. A parked long-poll is only an entry in `sent`, not a socket. Requests
// beyond MAX_IN_FLIGHT (long-polls not counted), or sent while the socket is congested or
// still connecting, wait in `queued`. Reconnects happen on demand with a growing backoff.
import net from 'node:net';
import type { Logger } from '../../src/log.js';
import type { ApiRequest, ApiResponse } from '../../src/http/contract.js';
import type { MemberInfo } from '../membership.js';
import { FramedSocket } from './framedSocket.js';
import type { Received, WorkerFrame } from './frames.js';
import { SlabPool, SlabReader } from './slabs.js';

/** The receive slabs of this front's connections to its workers (see slabs.ts). */
const receiveSlabs = new SlabPool();

export type Outcome =
  | { kind: 'response'; res: ApiResponse }
  /** The worker does not serve the realm (any more): route again. */
  | { kind: 'bounce'; reason: string }
  /** The connection failed; `sent` says whether the worker may have seen the request. */
  | { kind: 'unreachable'; sent: boolean; reason: string }
  | { kind: 'timeout' }
  | { kind: 'cancelled' };

export interface Call {
  /** The client went away: a sent request is cancelled on the worker, a queued one dropped. */
  cancel(): void;
}

/** Who learns a call's outcome, once. */
export interface OutcomeSink {
  outcome(o: Outcome): void;
}

/**
 * A request this connection carries, from queued to answered; it is also the router's Call.
 * One object with methods rather than a record with closures, and its outcome handed to a
 * sink rather than through a promise: a parked long-poll holds its entry for up to a
 * heartbeat, so what it holds lives through young collections and is copied by them.
 */
class Entry implements Call {
  sent = false;
  settled = false;

  constructor(
    readonly id: number,
    readonly req: ApiRequest,
    readonly isPoll: boolean,
    readonly deadline: number,
    private readonly client: WorkerClient,
    private readonly sink: OutcomeSink,
  ) {}

  settle(o: Outcome): void {
    if (this.settled) return;
    this.settled = true;
    this.sink.outcome(o);
  }

  cancel(): void {
    this.client.cancel(this);
  }
}

export interface ClientOptions {
  frontId: string;
  maxInFlight: number;
  log: Logger;
  /** The connection failed or recovered (the router watches membership more closely meanwhile). */
  onReachability: (member: MemberInfo, reachable: boolean) => void;
}

const MIN_BACKOFF_MS = 50;
const MAX_BACKOFF_MS = 2000;
const CONNECT_TIMEOUT_MS = 2000;

/** GET /events that may park (not dont_block): cheap while parked, so not counted in flight. */
export function isLongPoll(req: ApiRequest): boolean {
  return req.method === 'GET' && req.path === '/events' && req.params.dont_block !== 'true';
}

export class WorkerClient {
  private fs: FramedSocket | null = null;
  private ready = false;
  private connecting = false;
  private nextAttempt = 0;
  private backoff = MIN_BACKOFF_MS;
  private nextId = 1;
  private inFlight = 0;
  private readonly sent = new Map<number, Entry>();
  private queued: Entry[] = [];
  private readonly sweeper: NodeJS.Timeout;
  private retired = false;

  constructor(readonly member: MemberInfo, private readonly o: ClientOptions) {
    this.sweeper = setInterval(() => this.expire(), 1000);
    this.sweeper.unref();
  }

  get pending(): number {
    return this.sent.size + this.queued.length;
  }

  /** Sends a request; the worker must answer within `timeoutMs`. Its outcome goes to `sink`. */
  send(req: ApiRequest, timeoutMs: number, sink: OutcomeSink): Call {
    const entry = new Entry(this.nextId++, req, isLongPoll(req), Date.now() + timeoutMs, this, sink);
    if (this.retired) {
      entry.settle({ kind: 'unreachable', sent: false, reason: 'worker left the cluster' });
      return entry;
    }
    this.queued.push(entry);
    this.pump();
    return entry;
  }

  /** The client went away: a sent request is cancelled on the worker, a queued one dropped. */
  cancel(entry: Entry): void {
    if (!entry.sent) {
      this.queued = this.queued.filter((e) => e !== entry);
      entry.settle({ kind: 'cancelled' });
      return;
    }
    // The worker releases a parked poll and answers it; the answer settles the entry.
    if (this.sent.has(entry.id)) this.fs?.send({ kind: 'cancel', id: entry.id });
  }

  /** Asks the worker to answer every parked long-poll now (front shutting down). */
  releasePolls(): void {
    for (const entry of this.sent.values()) if (entry.isPoll) this.fs?.send({ kind: 'cancel', id: entry.id });
  }

  private pump(): void {
    if (!this.ready) {
      if (this.queued.length) this.connect();
      return;
    }
    const fs = this.fs!;
    while (this.queued.length && !fs.congested) {
      const next = this.queued[0]!;
      if (!next.isPoll && this.inFlight >= this.o.maxInFlight) {
        // Long-polls behind the cap still go out: they do not load the worker.
        const poll = this.queued.findIndex((e) => e.isPoll);
        if (poll < 0) break;
        this.transmit(fs, this.queued.splice(poll, 1)[0]!);
        continue;
      }
      this.transmit(fs, this.queued.shift()!);
    }
  }

  private transmit(fs: FramedSocket, entry: Entry): void {
    entry.sent = true;
    if (!entry.isPoll) this.inFlight++;
    this.sent.set(entry.id, entry);
    fs.send({ kind: 'request', id: entry.id, req: entry.req });
  }

  private connect(): void {
    if (this.connecting || this.fs || this.retired) return;
    const wait = this.nextAttempt - Date.now();
    if (wait > 0) {
      // Still backing off from the last failure: callers re-route (maybe to this worker again).
      this.failQueued(`reconnecting in ${wait} ms`);
      return;
    }
    this.connecting = true;
    // Answers are read into pooled slabs, given back once the front wrote them out.
    const reader = new SlabReader(receiveSlabs, (chunk, slab) => fs.receive(chunk, slab));
    const socket = net.createConnection({ host: this.member.host, port: this.member.port, onread: reader.onread });
    // Until the worker's hello arrives: a stalled worker accepts connections but never answers.
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => socket.destroy(new Error('no hello from worker')));
    const fs = new FramedSocket(socket, reader);
    this.fs = fs;
    socket.once('connect', () => fs.send({ kind: 'hello', front: this.o.frontId }));
    fs.on('frame', (frame: Received<WorkerFrame>) => this.onFrame(fs, frame));
    fs.on('drained', () => this.pump());
    fs.on('socketError', (err: Error) => this.o.log.debug({ worker: this.member.id, err: err.message }, 'worker connection error'));
    fs.on('close', () => this.onClose(fs));
  }

  private onFrame(fs: FramedSocket, frame: Received<WorkerFrame>): void {
    if (frame.kind !== 'response') frame.release?.(); // only answers carry payloads
    if (frame.kind === 'hello') {
      if (frame.worker !== this.member.id) {
        this.o.log.warn({ expected: this.member.id, got: frame.worker }, 'another worker answers at this address');
        fs.destroy();
        return;
      }
      fs.socket.setTimeout(0);
      this.ready = true;
      this.connecting = false;
      this.backoff = MIN_BACKOFF_MS;
      this.o.onReachability(this.member, true);
      this.pump();
      return;
    }
    if (frame.kind === 'shardReply') return; // only for worker-to-worker links (shardLinks.ts)
    if (frame.kind === 'bye') {
      // Requests already sent are still answered; new ones go elsewhere.
      this.retire();
      return;
    }
    const entry = this.sent.get(frame.id);
    if (!entry) {
      frame.release?.(); // timed out or abandoned meanwhile
      return;
    }
    this.sent.delete(frame.id);
    if (!entry.isPoll) this.inFlight--;
    // The body came as the payload: JSON bytes the front writes as they came.
    if (frame.kind === 'response') {
      const res = frame.res;
      if (frame.payload !== undefined) {
        // Set on the parsed header itself: a spread copy gets a hidden class of its own (see responseHead).
        res.bodyBytes = frame.payload;
        res.releaseBody = frame.release;
      }
      entry.settle({ kind: 'response', res });
    } else entry.settle({ kind: 'bounce', reason: frame.reason });
    this.pump();
  }

  private onClose(fs: FramedSocket): void {
    if (this.fs !== fs) return;
    const wasReady = this.ready;
    this.fs = null;
    this.ready = false;
    this.connecting = false;
    this.inFlight = 0;
    if (!this.retired) {
      this.nextAttempt = Date.now() + this.backoff;
      this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF_MS);
      this.o.onReachability(this.member, false);
    }
    const reason = wasReady ? 'connection to worker lost' : 'worker unreachable';
    for (const entry of this.sent.values()) entry.settle({ kind: 'unreachable', sent: true, reason });
    this.sent.clear();
    this.failQueued(reason);
    if (this.retired) clearInterval(this.sweeper);
  }

  private failQueued(reason: string): void {
    const queued = this.queued;
    this.queued = [];
    for (const entry of queued) entry.settle({ kind: 'unreachable', sent: false, reason });
  }

  /** Requests past their deadline are answered 504 and cancelled on the worker. */
  private expire(): void {
    const now = Date.now();
    for (const entry of [...this.sent.values()]) {
      if (entry.deadline > now) continue;
      this.sent.delete(entry.id);
      if (!entry.isPoll) this.inFlight--;
      this.fs?.send({ kind: 'cancel', id: entry.id });
      entry.settle({ kind: 'timeout' });
    }
    const late = this.queued.filter((e) => e.deadline <= now);
    if (late.length) {
      this.queued = this.queued.filter((e) => e.deadline > now);
      for (const entry of late) entry.settle({ kind: 'timeout' });
    }
    this.pump();
  }

  /**
   * The worker left the cluster. Requests that only read (GET) are given back to the router
   * at once to go to the realm's new owner; writes wait for the worker's answer (it finishes
   * or bounces them while leaving; a crashed worker's connection closes). The socket closes
   * when nothing is pending.
   */
  retire(): void {
    this.retired = true;
    for (const entry of [...this.sent.values()]) {
      if (entry.req.method !== 'GET') continue;
      this.sent.delete(entry.id);
      if (!entry.isPoll) this.inFlight--;
      this.fs?.send({ kind: 'cancel', id: entry.id });
      entry.settle({ kind: 'unreachable', sent: true, reason: 'worker left the cluster' });
    }
    this.failQueued('worker left the cluster');
    this.closeWhenIdle();
  }

  private closeWhenIdle(): void {
    if (!this.fs || this.sent.size === 0) {
      this.fs?.close();
      if (!this.fs) clearInterval(this.sweeper);
      return;
    }
    setTimeout(() => this.closeWhenIdle(), 200).unref();
  }

  close(): void {
    this.retired = true;
    clearInterval(this.sweeper);
    this.fs?.destroy();
  }
}
