// A TCP socket that carries frames both ways. Writes made in one turn of the event loop go
// out together: the socket is corked at the first and uncorked in setImmediate, after every
// I/O callback of that turn ran (requests that arrived together leave in one write, not one
// system call each; the wait is that one turn). When the kernel buffer is full (`write` returns false) frames
// wait in memory until 'drain', and `congested` tells the owner to stop producing: the worker
// stops reading requests from a front whose responses back up; the front stops sending.
import type net from 'node:net';
import { EventEmitter } from 'node:events';
import { encodeFrame, encodeFrameParts, FrameDecoder, type Frame, type Received } from './frames.js';
import type { Slab, SlabReader } from './slabs.js';

export class FramedSocket extends EventEmitter {
  private readonly decoder = new FrameDecoder();
  private waiting: Uint8Array[] = [];
  private corked = false;
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
    socket.on('drain', () => this.flushWaiting());
    socket.on('error', (err: Error) => this.emit('socketError', err));
    socket.on('close', () => {
      this.closed = true;
      this.waiting = [];
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

  /** True while frames wait for the kernel buffer to drain. */
  get congested(): boolean {
    return this.blocked;
  }

  /**
   * Sends a frame, with a payload carried as is after its header (see frames.ts): text, or
   * byte pieces, which are written as they are (a large body is not joined into one buffer).
   */
  send(frame: Frame, payload?: string | readonly Uint8Array[]): void {
    if (this.closed || this.socket.destroyed) return;
    const pieces = typeof payload === 'object' ? encodeFrameParts(frame, payload) : [encodeFrame(frame, payload)];
    if (this.blocked) {
      for (const piece of pieces) this.waiting.push(piece);
      return;
    }
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      setImmediate(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    // Every piece is handed over; the socket keeps what it cannot send yet (no copy).
    let full = false;
    for (const piece of pieces) if (!this.socket.write(piece)) full = true;
    if (full) this.block();
  }

  private block(): void {
    if (this.blocked) return;
    this.blocked = true;
    this.emit('congested');
  }

  /**
   * The kernel took what it had: every frame that waited is handed over at once, corked, so
   * that they leave in one system call rather than one each (a busy peer leaves many waiting);
   * the socket keeps what the kernel cannot take yet, and stays congested until it drains.
   */
  private flushWaiting(): void {
    const waiting = this.waiting;
    this.waiting = [];
    this.blocked = false;
    let full = false;
    this.socket.cork();
    for (const piece of waiting) if (!this.socket.write(piece)) full = true;
    this.socket.uncork();
    if (full) this.block();
    else this.emit('drained');
  }

  close(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }
}
