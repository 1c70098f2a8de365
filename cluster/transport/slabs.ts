// Receive buffers for a front's connections to its workers, used again once the bytes read
// into them were written out to the client. A large answer (a register of 100,000 users, some
// 34 MB) read into fresh buffers costs the front a full garbage collection per answer (V8
// collects when that much memory outside its heap was allocated), and those are most of
// what relaying the answer costs it. Read into slabs taken from a pool, the same memory
// serves answer after answer.
//
// A slab counts who holds it: the reader while it reads into it, the frame decoder for each
// chunk it keeps, and each frame whose payload lies in it until the front wrote that payload
// out (or dropped it). At zero it goes back to the pool. A hold that is never given back
// only keeps the slab out of the pool (the garbage collector takes it, as any buffer).

export class Slab {
  /** Holders; the pool's own slabs have none. */
  refs = 0;
  constructor(
    private readonly pool: SlabPool,
    readonly buf: Buffer,
  ) {}

  hold(): void {
    this.refs++;
  }

  release(): void {
    if (this.refs === 0) return; // never below zero: a slab in the pool is no one's
    if (--this.refs === 0) this.pool.give(this);
  }
}

export class SlabPool {
  private readonly free: Slab[] = [];
  /** Slabs made, for tests and metrics. */
  made = 0;

  constructor(
    readonly slabBytes = 1024 * 1024,
    /** Free slabs kept at most (memory the pool may keep while idle: maxFree × slabBytes). */
    readonly maxFree = 48,
  ) {}

  take(): Slab {
    const slab = this.free.pop();
    if (slab) return slab;
    this.made++;
    return new Slab(this, Buffer.allocUnsafeSlow(this.slabBytes));
  }

  give(slab: Slab): void {
    if (this.free.length < this.maxFree) this.free.push(slab);
  }

  get freeCount(): number {
    return this.free.length;
  }
}

/** Below this much room left in its slab, the next read goes into a new slab. */
const MIN_READ_ROOM = 64 * 1024;

/**
 * Reads a socket into slabs of a pool: its `onread` is given to net.createConnection. Each
 * read lands in the room left in the current slab; `onChunk` gets the bytes read with the slab
 * they are in (to hold it as long as it keeps them).
 */
export class SlabReader {
  private slab: Slab | null = null;
  private used = 0;

  constructor(
    private readonly pool: SlabPool,
    private readonly onChunk: (chunk: Buffer, slab: Slab) => void,
  ) {}

  readonly onread = {
    buffer: (): Buffer => this.next(),
    callback: (nread: number, buf: Buffer): boolean => {
      const slab = this.slab!;
      this.used = buf.byteOffset - slab.buf.byteOffset + nread;
      this.onChunk(buf.subarray(0, nread), slab);
      return true;
    },
  };

  /** Room for the next read. */
  private next(): Buffer {
    if (!this.slab || this.slab.buf.length - this.used < MIN_READ_ROOM) {
      this.slab?.release();
      this.slab = this.pool.take();
      this.slab.hold();
      this.used = 0;
    }
    return this.slab.buf.subarray(this.used);
  }

  /** The socket is closed: the reader's hold on its slab goes. */
  close(): void {
    this.slab?.release();
    this.slab = null;
  }
}
