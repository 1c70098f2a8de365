// Length-prefixed frames: a 4-byte big-endian length of the rest, a 4-byte big-endian length
// of the JSON header, the header (UTF-8 JSON), then an optional payload of bytes (UTF-8 text)
// that is carried as is. A response's body travels as the payload: the worker turns it into
// JSON once (or has its bytes ready: register's user lists), and the front writes those bytes
// to the client without decoding, parsing or encoding them again (as JSON inside JSON it would
// be escaped, parsed and stringified once more). A payload is sent as the pieces it is in and
// received as the pieces it came in, never joined into one buffer or string.
import type { ApiRequest, ApiResponse } from '../../src/http/contract.js';
import type { ShardBatch, ShardReply } from '../shardOps.js';
import type { Slab } from './slabs.js';

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

/** Request bodies are capped by MAX_BODY_BYTES (25 MiB by default); JSON escaping can double them. */
export const MAX_FRAME_BYTES = 128 * 1024 * 1024;

/** A frame with its payload given as byte pieces: the header, then the pieces themselves (not copied). */
export function encodeFrameParts(frame: Frame, payload: readonly Uint8Array[]): Uint8Array[] {
  const json = JSON.stringify(frame);
  const jsonBytes = Buffer.byteLength(json, 'utf8');
  let payloadBytes = 0;
  for (const part of payload) payloadBytes += part.byteLength;
  const head = Buffer.allocUnsafe(8 + jsonBytes);
  head.writeUInt32BE(4 + jsonBytes + payloadBytes, 0);
  head.writeUInt32BE(jsonBytes, 4);
  head.write(json, 8, 'utf8');
  const out: Uint8Array[] = [head];
  for (const part of payload) if (part.byteLength > 0) out.push(part);
  return out;
}

export function encodeFrame(frame: Frame, payload?: string): Buffer {
  const json = JSON.stringify(frame);
  const jsonBytes = Buffer.byteLength(json, 'utf8');
  const payloadBytes = payload === undefined ? 0 : Buffer.byteLength(payload, 'utf8');
  const out = Buffer.allocUnsafe(8 + jsonBytes + payloadBytes);
  out.writeUInt32BE(4 + jsonBytes + payloadBytes, 0);
  out.writeUInt32BE(jsonBytes, 4);
  out.write(json, 8, 'utf8');
  if (payloadBytes > 0) out.write(payload!, 8 + jsonBytes, 'utf8');
  return out;
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
    // Only as many chunks as the n bytes span are joined.
    let count = 0;
    let bytes = -this.offset;
    while (bytes < n) bytes += this.chunks[count++]!.length;
    const joined = Buffer.concat(this.chunks.slice(0, count), bytes + this.offset).subarray(this.offset);
    this.chunks.splice(0, count, joined);
    // The joined copy is in no slab: the chunks it replaces are used up.
    for (const slab of this.owners.splice(0, count, null)) slab?.release();
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
