// FramedSocket over a real TCP connection whose reader stops reading: frames wait while the
// kernel buffer is full, the owner is told (`congested`), and once the reader reads again
// every frame arrives, whole and in order, and the owner hears `drained`.
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FramedSocket } from '../../cluster/transport/framedSocket.js';
import type { Frame, Received } from '../../cluster/transport/frames.js';

const sockets: net.Socket[] = [];
let server: net.Server | null = null;

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

/** A connected pair on loopback: the writer's side and the reader's raw socket. */
async function pair(): Promise<{ writer: net.Socket; reader: net.Socket }> {
  const accepted = new Promise<net.Socket>((resolve) => {
    server = net.createServer((s) => resolve(s));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  const port = (server!.address() as net.AddressInfo).port;
  const writer = net.createConnection({ host: '127.0.0.1', port });
  await new Promise<void>((resolve) => writer.once('connect', () => resolve()));
  const reader = await accepted;
  sockets.push(writer, reader);
  return { writer, reader };
}

const answer = (id: number): Frame => ({ kind: 'response', id, res: { status: 200, body: {}, route: '/events' } });

describe('FramedSocket under back-pressure', () => {
  it('holds frames while the peer does not read, then delivers them all in order and says drained', async () => {
    const { writer, reader } = await pair();
    reader.pause();
    const sending = new FramedSocket(writer);
    let congested = 0;
    let drained = 0;
    let last = '';
    sending.on('congested', () => {
      congested++;
      last = 'congested';
    });
    sending.on('drained', () => {
      drained++;
      last = 'drained';
    });

    const body = 'x'.repeat(64 * 1024);
    let sent = 0;
    // Until the kernel buffers on both ends are full and frames wait in memory.
    while (!sending.congested && sent < 2000) {
      sending.send(answer(sent), body + sent);
      sent++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(sending.congested).toBe(true);
    expect(congested).toBeGreaterThanOrEqual(1);
    // More frames while congested wait behind the others.
    for (let i = 0; i < 20; i++) sending.send(answer(sent++), body + (sent - 1));

    const receiving = new FramedSocket(reader);
    const got: Received[] = [];
    const all = new Promise<void>((resolve) =>
      receiving.on('frame', (f: Received) => {
        got.push(f);
        if (got.length === sent) resolve();
      }),
    );
    reader.resume();
    await all;
    expect(got.map((f) => f.kind === 'response' && f.id)).toEqual(Array.from({ length: sent }, (_, i) => i));
    expect(got.every((f, i) => Buffer.concat(f.payload!).toString('utf8') === body + i)).toBe(true);
    // The owner is told it may produce again (the writer may hear of it just after the
    // reader got the bytes).
    await vi.waitFor(() => expect(last).toBe('drained'));
    expect(drained).toBeGreaterThanOrEqual(1);
    expect(sending.congested).toBe(false);
  });

  it('delivers what waits when closed while congested, and drops frames sent after closing', async () => {
    const { writer, reader } = await pair();
    reader.pause();
    const sending = new FramedSocket(writer);
    const body = 'y'.repeat(64 * 1024);
    let sent = 0;
    while (!sending.congested && sent < 2000) {
      sending.send(answer(sent), body + sent);
      sent++;
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (let i = 0; i < 10; i++) sending.send(answer(sent++), body + (sent - 1));
    sending.send({ kind: 'bye' });
    sending.close();
    sending.send(answer(sent), 'after close');
    let writerError: Error | null = null;
    writer.on('error', (err) => (writerError = err));

    const receiving = new FramedSocket(reader);
    const got: Received[] = [];
    const ended = new Promise<void>((resolve) => reader.once('end', () => resolve()));
    receiving.on('frame', (f: Received) => got.push(f));
    reader.resume();
    await ended;
    expect(got).toHaveLength(sent + 1);
    expect(got.slice(0, sent).map((f) => f.kind === 'response' && f.id)).toEqual(Array.from({ length: sent }, (_, i) => i));
    expect(got[sent]!.kind).toBe('bye');
    expect(writerError).toBeNull();
  });

  it('reads a wave of frames over several turns of the event loop, and nothing while its owner holds reading', async () => {
    const { writer, reader } = await pair();
    const receiving = new FramedSocket(reader);
    receiving.holdReading(true);
    const perTurn: number[] = [];
    let counting = false;
    const got: number[] = [];
    receiving.on('frame', (f: Received) => {
      if (f.kind === 'response') got.push(f.id);
      if (!counting) {
        counting = true;
        perTurn.push(0);
        setImmediate(() => (counting = false));
      }
      perTurn[perTurn.length - 1]!++;
    });
    const sending = new FramedSocket(writer);
    for (let i = 0; i < 5000; i++) sending.send(answer(i), 'x'.repeat(100));
    // The bytes arrive and wait in the kernel while reading is held.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(got).toHaveLength(0);
    receiving.holdReading(false);
    await vi.waitFor(() => expect(got).toHaveLength(5000));
    expect(got).toEqual(Array.from({ length: 5000 }, (_, i) => i));
    // About 256 frames a turn (a read's worth more at most), not the whole wave at once.
    expect(Math.max(...perTurn)).toBeLessThan(800);
    expect(perTurn.length).toBeGreaterThanOrEqual(5);
  });
});
