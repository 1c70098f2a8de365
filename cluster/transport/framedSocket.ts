// A TCP socket that carries frames both ways. Frames sent in one turn of the event loop go
// out together, in setImmediate after every I/O callback of that turn ran: they are encoded
// one after the other into a shared buffer (FrameEncoder; large payload pieces stay as they
// are), so that requests that arrived together leave in one system call and the stream
// handles one chunk, not one per frame; the wait is that one turn. When the kernel buffer is
// full (`write` returns false) frames wait in memory until 'drain', and `congested` tells the
// owner to stop producing: the worker stops reading requests from a front whose responses
// back up; the front stops sending.
import type net from 'node:net';
import { EventEmitter } from 'node:events';
import { FrameDecoder, FrameEncoder, type Frame, type Received, type Taken } from './frames.js';
import type { BodyBytes } from '../../src/http/bodyText.js';
import type { Slab, SlabReader } from './slabs.js';

/** Frames received in one turn of the event loop, after which reading waits for the next turn. */
const FRAMES_PER_TURN = 256;
/** A turn that produced this much is congested until it is handed to the socket. */
const TURN_HIGH_WATER = 1024 * 1024;

export class FramedSocket extends EventEmitter {
  private readonly decoder = new FrameDecoder();
  private readonly encoder = new FrameEncoder();
  private flushScheduled = false;
  /** The socket said it is full: nothing more is handed to it until 'drain'. */
  private blocked = false;
  /** Frames received since this turn began (reset in setImmediate). */
  private framesThisTurn = 0;
  /** Reading stops for the rest of a turn that received FRAMES_PER_TURN, or while the owner says. */
  private heldForTurn = false;
  private heldByOwner = false;
  closed = false;

  /**
   * `reader`: the socket was made with this reader's `onread` (its bytes land in pooled slabs
   * and come here through receive); otherwise its 'data' events are read.
   */
  constructor(
    readonly socket: net.Socket,
    private readonly reader: SlabReader | null = null,
  ) {
    super();
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
    if (!reader) socket.on('data', (chunk: Buffer) => this.receive(chunk, null));
    socket.on('drain', () => {
      this.blocked = false;
      this.flush();
      if (!this.blocked) this.emit('drained');
    });
    socket.on('error', (err: Error) => this.emit('socketError', err));
    socket.on('close', () => {
      this.closed = true;
      this.encoder.take();
      this.reader?.close();
      this.emit('close');
    });
  }

  /** Bytes read from the socket, with the pooled slab they lie in, if any. */
  receive(chunk: Buffer, slab: Slab | null): void {
    let frames: Received[];
    try {
      frames = this.decoder.push(chunk, slab);
    } catch (err) {
      this.socket.destroy(err as Error);
      return;
    }
    for (const frame of frames) this.emit('frame', frame);
    if (this.framesThisTurn === 0 && frames.length > 0) {
      // The count starts again in the next turn, and reading too if it stopped for this one.
      setImmediate(() => {
        this.framesThisTurn = 0;
        if (!this.heldForTurn) return;
        this.heldForTurn = false;
        this.updateReading();
      });
    }
    this.framesThisTurn += frames.length;
    if (this.framesThisTurn >= FRAMES_PER_TURN && !this.heldForTurn) {
      // Enough for one turn: the rest is read after the event loop has seen to its other
      // sockets and timers (a wave of thousands of poll answers read at once would hold a
      // send, its commit and its answer behind it for hundreds of milliseconds).
      this.heldForTurn = true;
      this.updateReading();
    }
  }

  /** The owner stops reading (true) or reads again (false), e.g. while its answers back up. */
  holdReading(hold: boolean): void {
    this.heldByOwner = hold;
    this.updateReading();
  }

  private updateReading(): void {
    if (this.closed || this.socket.destroyed) return;
    if (this.heldByOwner || this.heldForTurn) this.socket.pause();
    else this.socket.resume();
  }

  /** True while frames wait for the kernel buffer to drain, or this turn produced a lot. */
  get congested(): boolean {
    return this.blocked || this.encoder.bytes >= TURN_HIGH_WATER;
  }

  /**
   * Sends a frame, with a payload carried as is after its header (see frames.ts): text, byte
   * pieces (small ones copied, large ones written as they are), or bytes that write themselves.
   */
  send(frame: Frame, payload?: string | readonly Uint8Array[] | BodyBytes): void {
    if (this.closed || this.socket.destroyed || this.socket.writableEnded) return;
    this.encoder.add(frame, payload);
    if (this.flushScheduled || this.blocked) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      // A turn that produced enough to count as congested frees its producer once handed over.
      const wasCongested = this.encoder.bytes >= TURN_HIGH_WATER;
      this.flush();
      if (wasCongested && !this.blocked) this.emit('drained');
    });
  }

  /**
   * Hands what waits to the socket, corked when in several pieces, so that it leaves in one
   * system call; the socket keeps what the kernel cannot take yet, and this stays congested
   * until it drains.
   */
  private flush(): void {
    if (this.blocked || this.closed || this.socket.destroyed || this.socket.writableEnded) return;
    if (this.write(this.encoder.take())) {
      this.blocked = true;
      this.emit('congested');
    }
  }

  /**
   * Writes what was taken to the socket; true when it said it is full. The encoder's buffers
   * are given back once the socket wrote the last piece (or failed to).
   */
  private write(taken: Taken): boolean {
    const { pieces } = taken;
    if (pieces.length === 0) {
      taken.release();
      return false;
    }
    const done = (err?: Error | null) => {
      // A failed write may leave bytes with the socket: those buffers go to the collector.
      if (!err) taken.release();
    };
    if (pieces.length === 1) return !this.socket.write(pieces[0]!, done);
    let full = false;
    this.socket.cork();
    for (let i = 0; i < pieces.length; i++) if (!this.socket.write(pieces[i]!, i === pieces.length - 1 ? done : undefined)) full = true;
    this.socket.uncork();
    return full;
  }

  /**
   * Ends the connection after what waits (the socket buffers what the kernel cannot take);
   * frames sent after this are dropped.
   */
  close(): void {
    if (this.closed || this.socket.destroyed || this.socket.writableEnded) return;
    this.write(this.encoder.take());
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }
}
