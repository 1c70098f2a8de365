// Length-prefixed frames: a 4-byte big-endian length of the rest, a 4-byte big-endian length
// of the JSON header, the header (UTF-8 JSON), then an optional payload of bytes (UTF-8 text)
// that is carried as is. A response's body travels as the payload: the worker turns it into
// JSON once (or has its bytes ready: register's user lists), and the front writes those bytes
// to the client without decoding, parsing or encoding them again (as JSON inside JSON it would
// be escaped, parsed and stringified once more). A payload is sent without being joined into
// one buffer (small pieces are copied into the sender's gather buffer, large ones go as they
// are; see FrameEncoder) and received as the pieces it came in.
import type { ApiRequest, ApiResponse } from '../../src/http/contract.js';
import type { ShardBatch, ShardReply } from '../shardOps.js';
import type { Slab } from './slabs.js';
import { isBodyBytes, type BodyBytes } from '../../src/http/bodyText.js';

/** front → worker */
export type FrontFrame =
  | { kind: 'hello'; front: string }
  | { kind: 'request'; id: number; req: ApiRequest }
  | { kind: 'cancel'; id: number }
  /** worker → worker: a realm's actor feeds one of its queue shards (see shardOps.ts). */
  | { kind: 'shard'; id: number; batch: ShardBatch };

/** worker → front */
export type WorkerFrame =
  | { kind: 'hello'; worker: string }
  | { kind: 'response'; id: number; res: ApiResponse }
  /** The worker does not (or no longer) serve the request's realm: send it to the owner. */
  | { kind: 'bounce'; id: number; reason: string }
  | { kind: 'shardReply'; id: number; reply: ShardReply }
  /** The worker is leaving: send nothing more on this connection, close it once answered. */
  | { kind: 'bye' };

export type Frame = FrontFrame | WorkerFrame;

/**
 * A decoded frame and the payload bytes that came with it, if any, in the pieces they arrived
 * in. When those lie in pooled receive slabs (see slabs.ts), `release` gives them back once the
 * payload was written out or dropped; the bytes must not be used after it.
 */
export type Received<F extends Frame = Frame> = F & { payload?: Buffer[]; release?: () => void };

/**
 * What of a response goes in its frame's header: every field but the body, which travels as
 * the payload. The fields are named one by one (the type lists them all, so a new one is not
 * forgotten) rather than copied with rest and spread: such a copy gets a hidden class of its
 * own, and a property added to it makes a new one every time (V8 keeps no transition from
 * it), old-space garbage for every answer.
 */
export function responseHead(res: ApiResponse): ApiResponse {
  const head: { [K in Exclude<keyof ApiResponse, 'bodyJson' | 'bodyBytes' | 'releaseBody'>]: ApiResponse[K] } = {
    status: res.status,
    body: {},
    headers: res.headers,
    route: res.route,
    userId: res.userId,
    cookies: res.cookies,
    file: res.file,
  };
  return head;
}

/** Request bodies are capped by MAX_BODY_BYTES (25 MiB by default); JSON escaping can double them. */
export const MAX_FRAME_BYTES = 128 * 1024 * 1024;

/** Payload pieces up to this size are copied into the gather buffer; larger ones go as they are. */
const COPY_MAX = 16 * 1024;
/** Size of a gather buffer. */
const GATHER_BYTES = 64 * 1024;
/**
 * Gather buffers kept for use again, shared by the process's encoders: up to 64 MiB, enough
 * for a queue shard's answers to a wave of 10,000 polls, which leave in one turn.
 */
const MAX_FREE_GATHERS = 1024;
const freeGathers: Buffer[] = [];

/** A gather buffer, and how many taken pieces in it are not written out yet. */
interface Gather {
  buf: Buffer;
  /** Takes whose pieces lie in it and were not released. */
  refs: number;
}

/** What an encoder hands over: pieces in order, and the call that frees them once written. */
export interface Taken {
  pieces: Uint8Array[];
  /** The pieces were written out (or dropped): their gather buffers may be used again. */
  release(): void;
}

/**
 * Encodes frames one after the other for one write: small frames and payload pieces are
 * copied into a gather buffer, and a body given as BodyBytes is written straight into it;
 * larger pieces are kept as they are (a large body is never joined into one buffer). `take`
 * hands over what was encoded since the last take. A gather buffer is used again once every
 * take with pieces in it was released and it is full: a busy connection writes through the
 * same few buffers instead of allocating memory outside V8's heap for each (enough of that
 * makes V8 run a full collection, which for a worker holding a large realm takes hundreds of
 * milliseconds).
 */
export class FrameEncoder {
  private out: Uint8Array[] = [];
  private outBytes = 0;
  /** The gather buffer, the start of the run not yet in `out`, and its end. */
  private gather: Gather | null = null;
  private runStart = 0;
  private runEnd = 0;
  /** Gather buffers the pieces since the last take lie in. */
  private used: Gather[] = [];

  /** Bytes encoded and not yet taken. */
  get bytes(): number {
    return this.outBytes + this.runEnd - this.runStart;
  }

  add(frame: Frame, payload?: string | readonly Uint8Array[] | BodyBytes): void {
    const json = JSON.stringify(frame);
    const body = isBodyBytes(payload) ? payload : null;
    let payloadBytes = 0;
    if (typeof payload === 'string') payloadBytes = Buffer.byteLength(payload, 'utf8');
    else if (body) payloadBytes = body.byteLength;
    else if (payload) for (const piece of payload as readonly Uint8Array[]) payloadBytes += piece.byteLength;
    // Room for the header: three bytes a UTF-16 unit at most (measured when it is long).
    const headRoom = 8 + (json.length <= 1024 ? json.length * 3 : Buffer.byteLength(json, 'utf8'));
    const inline = typeof payload === 'string' || body ? payloadBytes : 0;
    const at = this.reserve(headRoom + inline);
    const buf = this.gather!.buf;
    const jsonBytes = buf.write(json, at + 8, 'utf8');
    buf.writeUInt32BE(4 + jsonBytes + payloadBytes, at);
    buf.writeUInt32BE(jsonBytes, at + 4);
    this.runEnd = at + 8 + jsonBytes;
    if (typeof payload === 'string') {
      if (inline > 0) this.runEnd += buf.write(payload, this.runEnd, 'utf8');
      return;
    }
    if (body) {
      body.writeTo(buf, this.runEnd);
      this.runEnd += inline;
      return;
    }
    if (!payload) return;
    for (const piece of payload as readonly Uint8Array[]) {
      if (piece.byteLength === 0) continue;
      if (piece.byteLength <= COPY_MAX) {
        const to = this.reserve(piece.byteLength);
        this.gather!.buf.set(piece, to);
        this.runEnd = to + piece.byteLength;
      } else {
        this.endRun();
        this.out.push(piece);
        this.outBytes += piece.byteLength;
      }
    }
  }

  /**
   * What was encoded since the last take, in order. Its bytes stay as they are until
   * `release` is called, and are not the encoder's to reuse before.
   */
  take(): Taken {
    this.endRun();
    // A buffer made larger for one big frame is not kept for the small ones after it.
    if (this.gather && this.gather.buf.length > GATHER_BYTES) this.retire();
    const pieces = this.out;
    const used = this.used;
    this.out = [];
    this.outBytes = 0;
    this.used = [];
    for (const g of used) g.refs++;
    let released = false;
    return {
      pieces,
      release: () => {
        if (released) return;
        released = true;
        for (const g of used) {
          g.refs--;
          this.recycle(g);
        }
      },
    };
  }

  /**
   * Where `n` bytes can be written next: on in the current run when they fit, otherwise at
   * the start of another gather buffer of at least `n` bytes.
   */
  private reserve(n: number): number {
    if (this.gather && this.runEnd + n <= this.gather.buf.length) return this.runEnd;
    this.endRun();
    this.retire();
    const buf = n <= GATHER_BYTES ? (freeGathers.pop() ?? Buffer.allocUnsafeSlow(GATHER_BYTES)) : Buffer.allocUnsafeSlow(n);
    this.gather = { buf, refs: 0 };
    this.runStart = this.runEnd = 0;
    return 0;
  }

  private endRun(): void {
    if (this.runEnd > this.runStart) {
      const g = this.gather!;
      this.out.push(g.buf.subarray(this.runStart, this.runEnd));
      this.outBytes += this.runEnd - this.runStart;
      if (this.used[this.used.length - 1] !== g) this.used.push(g);
    }
    this.runStart = this.runEnd;
  }

  /** The current gather buffer is not written into any more. */
  private retire(): void {
    const g = this.gather;
    if (!g) return;
    this.gather = null;
    this.recycle(g);
  }

  /**
   * A buffer no longer written into, that no take holds (nor the pieces not yet taken), goes
   * back to the pool.
   */
  private recycle(g: Gather): void {
    if (g === this.gather || g.refs > 0 || this.used.includes(g)) return;
    if (g.buf.length === GATHER_BYTES && freeGathers.length < MAX_FREE_GATHERS) freeGathers.push(g.buf);
  }
}

export class FrameError extends Error {}

/** Collects chunks from a stream and yields complete frames, whatever the chunk boundaries. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  /** The slab each chunk lies in (held while the chunk is kept), or null. */
  private owners: Array<Slab | null> = [];
  /**
   * Bytes of the first chunk already taken. Lengths and headers are read at this offset, so
   * only a payload becomes a view of its own (a read holds many frames; a view per length and
   * header read cost an object each).
   */
  private offset = 0;
  /** Bytes not taken yet. */
  private buffered = 0;

  constructor(private readonly maxBytes = MAX_FRAME_BYTES) {}

  /** `slab`: the pooled slab the chunk lies in, held here until the chunk is used up. */
  push(chunk: Buffer, slab: Slab | null = null): Received[] {
    slab?.hold();
    this.chunks.push(chunk);
    this.owners.push(slab);
    this.buffered += chunk.length;
    const frames: Received[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const length = this.readLength(0);
      if (length > this.maxBytes) throw new FrameError(`frame of ${length} bytes exceeds the limit of ${this.maxBytes}`);
      if (this.buffered < 4 + length) break;
      // The header is read where it lies (joined only when it spans chunks); the payload
      // stays in the chunks it arrived in.
      const jsonBytes = length >= 4 ? this.readLength(4) : -1;
      if (jsonBytes < 0 || jsonBytes > length - 4) throw new FrameError('malformed frame: header length out of range');
      const at = this.contiguous(8 + jsonBytes);
      const headerText = this.chunks[0]!.toString('utf8', at + 8, at + 8 + jsonBytes);
      this.skip(8 + jsonBytes);
      const held: Slab[] = [];
      const payload = this.takeParts(length - 4 - jsonBytes, held);
      let parsed: unknown;
      try {
        parsed = JSON.parse(headerText);
      } catch (err) {
        throw new FrameError(`malformed frame: ${(err as Error).message}`);
      }
      if (!parsed || typeof parsed !== 'object' || typeof (parsed as { kind?: unknown }).kind !== 'string') {
        throw new FrameError('frame without a kind');
      }
      const frame = parsed as Received;
      if (payload.length > 0) frame.payload = payload;
      if (held.length > 0) {
        let released = false;
        frame.release = () => {
          if (released) return;
          released = true;
          for (const slab of held) slab.release();
        };
      }
      frames.push(frame);
    }
    return frames;
  }

  /** The 4-byte big-endian number `at` bytes into what is buffered (at + 4 at most what is buffered). */
  private readLength(at: number): number {
    const start = this.contiguous(at + 4);
    return this.chunks[0]!.readUInt32BE(start + at);
  }

  /**
   * Makes the first `n` buffered bytes lie in the first chunk (n at most what is buffered)
   * and returns where they start in it.
   */
  private contiguous(n: number): number {
    const first = this.chunks[0]!;
    if (first.length - this.offset >= n) return this.offset;
    // Only the n bytes are copied. The chunk they end in keeps the rest where it lies: a read
    // may be a megabyte of answers, and a copy of all of it for a header cut in two cost a
    // front more than the frames in it.
    const joined = Buffer.allocUnsafe(n);
    for (let filled = 0; filled < n; ) {
      const chunk = this.chunks[0]!;
      const count = Math.min(n - filled, chunk.length - this.offset);
      chunk.copy(joined, filled, this.offset, this.offset + count);
      filled += count;
      if (this.offset + count < chunk.length) {
        this.chunks[0] = chunk.subarray(this.offset + count);
        break;
      }
      this.chunks.shift();
      this.owners.shift()?.release(); // used up
      this.offset = 0;
    }
    // The copy is in no slab; a chunk cut above keeps its slab's hold.
    this.chunks.unshift(joined);
    this.owners.unshift(null);
    this.offset = 0;
    return 0;
  }

  /** Drops `n` buffered bytes. */
  private skip(n: number): void {
    this.takeParts(n, null);
  }

  /**
   * Takes `n` buffered bytes: with `held`, as views of the chunks they are in (nothing
   * copied), collecting a hold on the slab of each view; with null, the bytes are dropped.
   */
  private takeParts(n: number, held: Slab[] | null): Buffer[] {
    const out: Buffer[] = [];
    this.buffered -= n;
    while (n > 0) {
      const first = this.chunks[0]!;
      const owner = this.owners[0] ?? null;
      const left = first.length - this.offset;
      const count = Math.min(n, left);
      if (held && count > 0) {
        out.push(this.offset === 0 && count === first.length ? first : first.subarray(this.offset, this.offset + count));
        if (owner) {
          owner.hold();
          held.push(owner);
        }
      }
      n -= count;
      if (count === left) {
        this.chunks.shift();
        this.owners.shift();
        owner?.release();
        this.offset = 0;
      } else {
        this.offset += count;
      }
    }
    return out;
  }
}
