// Length-prefixed JSON frames: a 4-byte big-endian length, then that many bytes of UTF-8 JSON.
import type { ApiRequest, ApiResponse } from '../../src/http/contract.js';

/** front → worker */
export type FrontFrame =
  | { kind: 'hello'; front: string }
  | { kind: 'request'; id: number; req: ApiRequest }
  | { kind: 'cancel'; id: number };

/** worker → front */
export type WorkerFrame =
  | { kind: 'hello'; worker: string }
  | { kind: 'response'; id: number; res: ApiResponse }
  /** The worker does not (or no longer) serve the request's realm: send it to the owner. */
  | { kind: 'bounce'; id: number; reason: string };

export type Frame = FrontFrame | WorkerFrame;

/** Request bodies are capped by MAX_BODY_BYTES (25 MiB by default); JSON escaping can double them. */
export const MAX_FRAME_BYTES = 128 * 1024 * 1024;

export function encodeFrame(frame: Frame): Buffer {
  const json = Buffer.from(JSON.stringify(frame), 'utf8');
  const out = Buffer.allocUnsafe(4 + json.length);
  out.writeUInt32BE(json.length, 0);
  json.copy(out, 4);
  return out;
}

export class FrameError extends Error {}

/** Collects chunks from a stream and yields complete frames, whatever the chunk boundaries. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxBytes = MAX_FRAME_BYTES) {}

  push(chunk: Buffer): Frame[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Frame[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const head = this.peek(4);
      const length = head.readUInt32BE(0);
      if (length > this.maxBytes) throw new FrameError(`frame of ${length} bytes exceeds the limit of ${this.maxBytes}`);
      if (this.buffered < 4 + length) break;
      const body = this.take(4 + length).subarray(4);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (err) {
        throw new FrameError(`malformed frame: ${(err as Error).message}`);
      }
      if (!parsed || typeof parsed !== 'object' || typeof (parsed as { kind?: unknown }).kind !== 'string') {
        throw new FrameError('frame without a kind');
      }
      frames.push(parsed as Frame);
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
