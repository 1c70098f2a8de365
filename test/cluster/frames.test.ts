import { describe, expect, it } from 'vitest';
import { FrameDecoder, FrameError, FrameEncoder, type Frame, type Received } from '../../cluster/transport/frames.js';
import { SlabPool, SlabReader } from '../../cluster/transport/slabs.js';

/** One frame as one buffer, as the encoder writes it. */
function encodeFrame(frame: Frame, payload?: string): Buffer {
  const encoder = new FrameEncoder();
  encoder.add(frame, payload);
  return Buffer.concat(encoder.take().pieces);
}

/** A decoded frame with its payload pieces joined into text, to compare. */
const asText = (f: Received) => (f.payload === undefined ? f : { ...f, payload: Buffer.concat(f.payload).toString('utf8') });

const request = (id: number, text: string): Frame => ({
  kind: 'request',
  id,
  req: { id: `r${id}`, method: 'POST', path: '/messages', params: { content: text }, subdomain: 'acme' },
});

describe('length-prefixed frames', () => {
  it('decodes frames whatever the chunk boundaries', () => {
    const frames = [request(1, 'héllo ✔'), { kind: 'cancel', id: 1 } as Frame, request(2, 'x'.repeat(70_000))];
    const bytes = Buffer.concat(frames.map((f) => encodeFrame(f)));
    for (const size of [1, 3, 7, 13, 100, 4096, bytes.length]) {
      const decoder = new FrameDecoder();
      const out: Frame[] = [];
      for (let i = 0; i < bytes.length; i += size) out.push(...decoder.push(bytes.subarray(i, i + size)));
      expect(out).toEqual(frames);
    }
  });

  it('copy only a header cut between two reads: the payloads after it stay in the memory they were read into', () => {
    const response = (id: number): Frame => ({ kind: 'response', id, res: { status: 200, body: {} } });
    const first = encodeFrame(response(1), 'a'.repeat(1000));
    const second = encodeFrame(response(2), 'b'.repeat(5000));
    const third = encodeFrame(response(3), 'c'.repeat(3000));
    // The first read ends inside the second frame's header; the second read holds the rest.
    const cut = first.length + 10;
    const wire = Buffer.concat([first, second, third]);
    const readA = Buffer.from(wire.subarray(0, cut));
    const readB = Buffer.from(wire.subarray(cut));
    const decoder = new FrameDecoder();
    const frames = [...decoder.push(readA), ...decoder.push(readB)];
    expect(frames.map((f) => Buffer.concat(f.payload!).toString('utf8'))).toEqual(['a'.repeat(1000), 'b'.repeat(5000), 'c'.repeat(3000)]);
    for (const f of frames.slice(1)) {
      expect(f.payload).toHaveLength(1);
      expect(f.payload![0]!.buffer).toBe(readB.buffer);
    }
  });

  it('carry a payload of text as is after the header, whatever the chunk boundaries', () => {
    const body = JSON.stringify({ result: 'success', msg: '', events: [{ id: 1, type: 'message', message: { content: 'héllo ✔ "quoted" \\ \n' } }] });
    const response: Frame = { kind: 'response', id: 7, res: { status: 200, body: {}, route: '/events' } };
    const bytes = Buffer.concat([encodeFrame(response, body), encodeFrame({ kind: 'bounce', id: 8, reason: 'moved' }), encodeFrame(response, '')]);
    for (const size of [1, 5, 64, bytes.length]) {
      const decoder = new FrameDecoder();
      const out = [];
      for (let i = 0; i < bytes.length; i += size) out.push(...decoder.push(bytes.subarray(i, i + size)).map(asText));
      expect(out).toEqual([{ ...response, payload: body }, { kind: 'bounce', id: 8, reason: 'moved' }, response]);
    }
    // The payload is not JSON-escaped on the wire: its bytes follow the header verbatim.
    const wire = encodeFrame(response, body);
    expect(wire.subarray(wire.length - Buffer.byteLength(body)).toString('utf8')).toBe(body);
  });

  it('carry a payload given in byte pieces as those bytes (small ones copied, large ones as they are), and hand it on in the pieces it arrived in', () => {
    const large = 'ü'.repeat(12_000); // 24,000 bytes: over the size that is copied
    const body = JSON.stringify({ result: 'success', msg: '', realm_users: [{ full_name: 'Zoë ✔' }], note: large });
    const bytes = Buffer.from(body);
    // Pieces cut anywhere, a multi-byte character included, an empty one and a large one.
    const at = bytes.length - 24_010;
    const cuts = [Buffer.from(bytes.subarray(0, 10)), Buffer.alloc(0), Buffer.from(bytes.subarray(10, 55)), Buffer.from(bytes.subarray(55, at)), Buffer.from(bytes.subarray(at))];
    const response: Frame = { kind: 'response', id: 9, res: { status: 200, body: {} } };
    const encoder = new FrameEncoder();
    encoder.add(response, cuts);
    encoder.add({ kind: 'cancel', id: 3 });
    expect(encoder.bytes).toBe(encodeFrame(response, body).length + encodeFrame({ kind: 'cancel', id: 3 }).length);
    const { pieces } = encoder.take();
    expect(encoder.bytes).toBe(0);
    // The header and the small pieces in one gathered run, the large piece itself (not a
    // copy), then the next frame in a run of its own.
    expect(pieces).toHaveLength(3);
    expect(pieces[1]).toBe(cuts[4]);
    const wire = Buffer.concat(pieces);
    expect(wire.equals(Buffer.concat([encodeFrame(response, body), encodeFrame({ kind: 'cancel', id: 3 })]))).toBe(true);
    for (const size of [1, 7, 64, 10_000, wire.length]) {
      const decoder = new FrameDecoder();
      const out: Received[] = [];
      for (let i = 0; i < wire.length; i += size) out.push(...decoder.push(wire.subarray(i, i + size)));
      expect(out.map(asText)).toEqual([{ ...response, payload: body }, { kind: 'cancel', id: 3 }]);
      // Views of the chunks received: only the header's chunks may have been joined.
      for (const piece of out[0]!.payload!.slice(1)) expect(piece.buffer).toBe(wire.buffer);
      if (size === wire.length) expect(out[0]!.payload).toHaveLength(1);
    }
  });

  it('gather the frames of a turn into shared buffers and start a new one where the last is full', () => {
    const encoder = new FrameEncoder();
    const frames: Frame[] = Array.from({ length: 2000 }, (_, id) => ({ kind: 'bounce', id, reason: `moved to worker ${id}` }));
    for (const f of frames) encoder.add(f, 'x'.repeat(f.kind === 'bounce' ? f.id % 50 : 0));
    const { pieces } = encoder.take();
    // About 150 KB of frames: a few 64 KiB gather buffers, not one buffer per frame.
    const total = pieces.reduce((n, p) => n + p.byteLength, 0);
    expect(total).toBeGreaterThan(128 * 1024);
    expect(pieces.length).toBe(3);
    const out = new FrameDecoder().push(Buffer.concat(pieces));
    expect(out.map(asText)).toEqual(frames.map((f) => ({ ...f, payload: f.kind === 'bounce' && f.id % 50 ? 'x'.repeat(f.id % 50) : undefined })));
  });

  it('write into a gather buffer again only once every take with bytes in it was released', () => {
    const encoder = new FrameEncoder();
    const frame = (id: number): Frame => ({ kind: 'bounce', id, reason: 'r'.repeat(1000) });
    const decode = (pieces: Uint8Array[]) => new FrameDecoder().push(Buffer.concat(pieces)).map((f) => (f.kind === 'bounce' ? f.id : -1));
    const buffers = (pieces: Uint8Array[]) => new Set(pieces.map((p) => p.buffer));
    for (let i = 0; i < 150; i++) encoder.add(frame(i)); // some 150 KB: three gather buffers
    const first = encoder.take();
    const firstBytes = Buffer.concat(first.pieces);
    for (let i = 150; i < 450; i++) encoder.add(frame(i));
    const second = encoder.take();
    // Nothing released: the first take's bytes are as they were, in buffers not reused.
    expect(Buffer.concat(first.pieces).equals(firstBytes)).toBe(true);
    expect(decode(second.pieces)).toEqual(Array.from({ length: 300 }, (_, i) => 150 + i));
    const before = new Set([...buffers(first.pieces), ...buffers(second.pieces)]);
    first.release();
    second.release();
    for (let i = 450; i < 600; i++) encoder.add(frame(i));
    const third = encoder.take();
    expect(decode(third.pieces)).toEqual(Array.from({ length: 150 }, (_, i) => 450 + i));
    // Released and full: the same memory serves again.
    expect([...buffers(third.pieces)].filter((b) => before.has(b)).length).toBeGreaterThan(1);
    // A take not released keeps its buffers out of use.
    const kept = Buffer.concat(third.pieces);
    for (let i = 600; i < 1200; i++) encoder.add(frame(i));
    encoder.take().release();
    expect(Buffer.concat(third.pieces).equals(kept)).toBe(true);
  });

  it('read into pooled slabs, hold them until each payload is released, then give them back', () => {
    // Slabs of 64 KiB + 100 bytes: each read gets the room left, a new slab below 64 KiB.
    const pool = new SlabPool(64 * 1024 + 100, 100);
    const decoder = new FrameDecoder();
    const frames: Received[] = [];
    const reader = new SlabReader(pool, (chunk, slab) => frames.push(...decoder.push(chunk, slab)));
    const big = 'é'.repeat(100_000); // 200,000 bytes: over several slabs
    const response = (id: number): Frame => ({ kind: 'response', id, res: { status: 200, body: {} } });
    const wire = Buffer.concat([encodeFrame(response(1), big), encodeFrame(response(2), '{"small":true}'), encodeFrame({ kind: 'bye' }), encodeFrame(response(3), big)]);
    // Reads of uneven sizes, as a socket gives them.
    for (let at = 0, step = 1; at < wire.length; step = (step * 7 + 13) % 30_000) {
      const room = reader.onread.buffer();
      const n = Math.min(room.length, step + 1, wire.length - at);
      wire.copy(room, 0, at, at + n);
      reader.onread.callback(n, room);
      at += n;
    }
    expect(frames.map((f) => (f.payload ? Buffer.concat(f.payload).toString('utf8') : f.kind))).toEqual([big, '{"small":true}', 'bye', big]);
    expect(frames[2]!.release).toBeUndefined();
    // Every slab is still held (by a payload, or by the reader), none is in the pool.
    expect(pool.made).toBeGreaterThan(3);
    expect(pool.freeCount).toBe(0);
    const [first, second, , third] = frames;
    first!.release!();
    first!.release!(); // a second release changes nothing
    second!.release!();
    reader.close();
    expect(pool.freeCount).toBeGreaterThan(0);
    // Another read takes the slabs given back (of other bytes), and decodes right…
    const made = pool.made;
    const free = pool.freeCount;
    const again = new SlabReader(pool, (chunk, slab) => frames.push(...decoder.push(chunk, slab)));
    const other = 'x'.repeat(150_000);
    const bytes = encodeFrame(response(4), other);
    for (let at = 0; at < bytes.length; ) {
      const room = again.onread.buffer();
      const n = Math.min(room.length, bytes.length - at);
      bytes.copy(room, 0, at, at + n);
      again.onread.callback(n, room);
      at += n;
    }
    expect(free).toBeGreaterThan(3);
    expect(pool.made).toBe(made);
    expect(Buffer.concat(frames[4]!.payload!).toString('utf8')).toBe(other);
    // …while the frame still held keeps its bytes.
    expect(Buffer.concat(third!.payload!).toString('utf8')).toBe(big);
    third!.release!();
    frames[4]!.release!();
    again.close();
    expect(pool.freeCount).toBe(pool.made);
  });

  it('refuses oversized and malformed frames', () => {
    const big = Buffer.alloc(4);
    big.writeUInt32BE(1000);
    expect(() => new FrameDecoder(999).push(big)).toThrow(FrameError);
    const junk = Buffer.from('\u0000\u0000\u0000\u0007\u0000\u0000\u0000\u0003{x}');
    expect(() => new FrameDecoder().push(junk)).toThrow(/malformed/);
    // A header longer than the frame.
    const overlong = Buffer.from('\u0000\u0000\u0000\u0007\u0000\u0000\u0000\u0009{x}');
    expect(() => new FrameDecoder().push(overlong)).toThrow(/header length/);
    const noKind = encodeFrame({ kind: 'cancel', id: 1 }).toString().replace('"kind"', '"kond"');
    expect(() => new FrameDecoder().push(Buffer.from(noKind))).toThrow(/kind/);
  });
});
