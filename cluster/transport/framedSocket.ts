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
import { FrameDecoder, FrameEncoder, type Frame, type Received } from './frames.js';
import type { Slab, SlabReader } from './slabs.js';

/** A turn that produced this much is congested until it is handed to the socket. */
const TURN_HIGH_WATER = 1024 * 1024;

export class FramedSocket extends EventEmitter {
  private readonly decoder = new FrameDecoder();
  private readonly encoder = new FrameEncoder();
  private flushScheduled = false;
  /** The socket said it is full: nothing more is handed to it until 'drain'. */
  private blocked = false;
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
  }

  /** True while frames wait for the kernel buffer to drain, or this turn produced a lot. */
  get congested(): boolean {
    return this.blocked || this.encoder.bytes >= TURN_HIGH_WATER;
  }

  /**
   * Sends a frame, with a payload carried as is after its header (see frames.ts): text, or
   * byte pieces (small ones copied, large ones written as they are).
   */
  send(frame: Frame, payload?: string | readonly Uint8Array[]): void {
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

  /** Writes pieces to the socket; true when it said it is full. */
  private write(pieces: Uint8Array[]): boolean {
    if (pieces.length === 0) return false;
    if (pieces.length === 1) return !this.socket.write(pieces[0]!);
    let full = false;
    this.socket.cork();
    for (const piece of pieces) if (!this.socket.write(piece)) full = true;
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
