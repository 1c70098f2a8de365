import { describe, expect, it } from 'vitest';
import { FrameDecoder, FrameError, encodeFrame, type Frame } from '../../cluster/transport/frames.js';

const request = (id: number, text: string): Frame => ({
  kind: 'request',
  id,
  req: { id: `r${id}`, method: 'POST', path: '/messages', params: { content: text }, subdomain: 'acme' },
});

describe('length-prefixed JSON frames', () => {
  it('decodes frames whatever the chunk boundaries', () => {
    const frames = [request(1, 'héllo ✔'), { kind: 'cancel', id: 1 } as Frame, request(2, 'x'.repeat(70_000))];
    const bytes = Buffer.concat(frames.map(encodeFrame));
    for (const size of [1, 3, 7, 4096, bytes.length]) {
      const decoder = new FrameDecoder();
      const out: Frame[] = [];
      for (let i = 0; i < bytes.length; i += size) out.push(...decoder.push(bytes.subarray(i, i + size)));
      expect(out).toEqual(frames);
    }
  });

  it('refuses oversized and malformed frames', () => {
    const big = Buffer.alloc(4);
    big.writeUInt32BE(1000);
    expect(() => new FrameDecoder(999).push(big)).toThrow(FrameError);
    const junk = Buffer.from('\u0000\u0000\u0000\u0003{x}');
    expect(() => new FrameDecoder().push(junk)).toThrow(/malformed/);
    const noKind = encodeFrame({ kind: 'cancel', id: 1 }).toString().replace('"kind"', '"kond"');
    expect(() => new FrameDecoder().push(Buffer.from(noKind))).toThrow(/kind/);
  });
});
