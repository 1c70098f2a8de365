import { describe, expect, it } from 'vitest';
import { FrameDecoder, FrameError, encodeFrame, type Frame } from '../../cluster/transport/frames.js';

const request = (id: number, text: string): Frame => ({
  kind: 'request',
  id,
  req: { id: `r${id}`, method: 'POST', path: '/messages', params: { content: text }, subdomain: 'acme' },
});

describe('length-prefixed frames', () => {
  it('decodes frames whatever the chunk boundaries', () => {
    const frames = [request(1, 'héllo ✔'), { kind: 'cancel', id: 1 } as Frame, request(2, 'x'.repeat(70_000))];
    const bytes = Buffer.concat(frames.map((f) => encodeFrame(f)));
    for (const size of [1, 3, 7, 4096, bytes.length]) {
      const decoder = new FrameDecoder();
      const out: Frame[] = [];
      for (let i = 0; i < bytes.length; i += size) out.push(...decoder.push(bytes.subarray(i, i + size)));
      expect(out).toEqual(frames);
    }
  });

  it('carry a payload of text as is after the header, whatever the chunk boundaries', () => {
    const body = JSON.stringify({ result: 'success', msg: '', events: [{ id: 1, type: 'message', message: { content: 'héllo ✔ "quoted" \\ \n' } }] });
    const response: Frame = { kind: 'response', id: 7, res: { status: 200, body: {}, route: '/events' } };
    const bytes = Buffer.concat([encodeFrame(response, body), encodeFrame({ kind: 'bounce', id: 8, reason: 'moved' }), encodeFrame(response, '')]);
    for (const size of [1, 5, 64, bytes.length]) {
      const decoder = new FrameDecoder();
      const out = [];
      for (let i = 0; i < bytes.length; i += size) out.push(...decoder.push(bytes.subarray(i, i + size)));
      expect(out).toEqual([{ ...response, payload: body }, { kind: 'bounce', id: 8, reason: 'moved' }, response]);
    }
    // The payload is not JSON-escaped on the wire: its bytes follow the header verbatim.
    const wire = encodeFrame(response, body);
    expect(wire.subarray(wire.length - Buffer.byteLength(body)).toString('utf8')).toBe(body);
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
