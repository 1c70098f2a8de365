// Length-prefixed frames: a 4-byte big-endian length of the rest, a 4-byte big-endian length
// of the JSON header, the header (UTF-8 JSON), then an optional payload of UTF-8 text that is
// carried as is. A response's body travels as the payload: the worker turns it into JSON
// text once, and the front writes that text to the client without parsing it or encoding it
// again (as JSON inside JSON it would be escaped, parsed and stringified once more).
import type { ApiRequest, ApiResponse } from '../../src/http/contract.js';
import type { ShardBatch, ShardReply } from '../shardOps.js';

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

/** A decoded frame and the payload text that came with it, if any. */
export type Received<F extends Frame = Frame> = F & { payload?: string };

/** Request bodies are capped by MAX_BODY_BYTES (25 MiB by default); JSON escaping can double them. */
export const MAX_FRAME_BYTES = 128 * 1024 * 1024;

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
  private buffered = 0;

  constructor(private readonly maxBytes = MAX_FRAME_BYTES) {}

  push(chunk: Buffer): Received[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Received[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const head = this.peek(4);
      const length = head.readUInt32BE(0);
      if (length > this.maxBytes) throw new FrameError(`frame of ${length} bytes exceeds the limit of ${this.maxBytes}`);
      if (this.buffered < 4 + length) break;
      const body = this.take(4 + length).subarray(4);
      const jsonBytes = body.length >= 4 ? body.readUInt32BE(0) : -1;
      if (jsonBytes < 0 || jsonBytes > body.length - 4) throw new FrameError('malformed frame: header length out of range');
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8', 4, 4 + jsonBytes));
      } catch (err) {
        throw new FrameError(`malformed frame: ${(err as Error).message}`);
      }
      if (!parsed || typeof parsed !== 'object' || typeof (parsed as { kind?: unknown }).kind !== 'string') {
        throw new FrameError('frame without a kind');
      }
      const frame = parsed as Received;
      if (body.length > 4 + jsonBytes) frame.payload = body.toString('utf8', 4 + jsonBytes);
      frames.push(frame);
    }
    return frames;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length >= n) return this.chunks[0]!;
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }

  private take(n: number): Buffer {
    const first = this.chunks[0]!;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      const joined = Buffer.concat(this.chunks);
      out = joined.subarray(0, n);
      this.chunks = joined.length > n ? [joined.subarray(n)] : [];
    }
    this.buffered -= n;
    return out;
  }
}
