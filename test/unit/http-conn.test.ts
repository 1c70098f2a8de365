// The load agents' HTTP client (bench/lib/http-conn.ts) against a real TCP server that writes
// each response as the test says: in one write, or in parts with pauses between them. With
// `borrow`, a body that came in one read is a view of the read buffer that every connection
// shares; a response still incomplete after a read must keep its own copy of what came, or
// another connection's read overwrites it.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpConnection, type HttpResult } from '../../bench/lib/http-conn.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the server answers on a connection: parts of the response, written with pauses. */
let plan: (path: string) => Array<string | number>;
let server: net.Server;
let port = 0;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setNoDelay(true);
    let pending = '';
    socket.on('data', async (chunk) => {
      pending += chunk.toString('latin1');
      const end = pending.indexOf('\r\n\r\n');
      if (end < 0) return;
      const path = pending.split(' ')[1]!;
      pending = pending.slice(end + 4);
      for (const part of plan(path)) {
        if (typeof part === 'number') await sleep(part);
        else socket.write(part);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => {
  for (const socket of sockets) socket.destroy();
  return new Promise<void>((r) => server.close(() => r()));
});

const response = (body: string) => [`HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`, body];

/** The body as the callback saw it (copied while the callback runs) and as it is afterwards. */
function get(conn: HttpConnection, path: string, borrow: boolean): Promise<{ during: string; after: HttpResult }> {
  return new Promise((resolve, reject) => {
    conn.request(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`, (err, res) => (err || !res ? reject(err) : resolve({ during: res.body.toString('utf8'), after: res })), 5000, borrow);
  });
}

describe('HttpConnection', () => {
  it('gives a body that came in one read, borrowed or copied', async () => {
    const body = '{"events":[' + '"x",'.repeat(5000) + '"é"]}';
    plan = () => [response(body).join('')];
    const conn = new HttpConnection({ host: '127.0.0.1', port, tls: false });
    expect((await get(conn, '/a', true)).during).toBe(body);
    const copied = await get(conn, '/b', false);
    expect(copied.during).toBe(body);
    // A copied body stays as it was after later reads.
    await get(conn, '/c', true);
    expect(copied.after.body.toString('utf8')).toBe(body);
    conn.destroy();
  });

  it('keeps the first part of a borrowed response while another connection reads', async () => {
    const slowBody = 'slow-' + 'a'.repeat(3000) + '-end';
    const fastBody = 'fast-' + 'b'.repeat(6000);
    const [head, body] = response(slowBody);
    // The slow one: its header and half its body, then (after the fast one) the rest.
    plan = (path) => (path === '/slow' ? [head! + body!.slice(0, 1500), 300, body!.slice(1500)] : [response(fastBody).join('')]);
    const slow = new HttpConnection({ host: '127.0.0.1', port, tls: false });
    const fast = new HttpConnection({ host: '127.0.0.1', port, tls: false });
    const slowAnswer = get(slow, '/slow', true);
    await sleep(100);
    expect((await get(fast, '/fast', true)).during).toBe(fastBody);
    expect((await slowAnswer).during).toBe(slowBody);
    slow.destroy();
    fast.destroy();
  });

  it('reads a response whose header comes before its body', async () => {
    const body = 'c'.repeat(20_000);
    const [head] = response(body);
    plan = () => [head!, 50, body.slice(0, 7000), 50, body.slice(7000)];
    const conn = new HttpConnection({ host: '127.0.0.1', port, tls: false });
    expect((await get(conn, '/parts', true)).during).toBe(body);
    conn.destroy();
  });
});
