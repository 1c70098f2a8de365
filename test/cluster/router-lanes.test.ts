// The front's router keeps long-polls on a connection of their own to each worker. A worker
// stops reading a front's connection while its answers to that front back up (as under a
// large fan-out, where poll answers fill the buffers): a send must not wait behind that. The
// worker here is a real TCP server speaking the frame protocol, which stops reading a
// connection as soon as a long-poll arrives on it and answers every other request.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterRouter } from '../../cluster/frontRouter.js';
import type { MembershipView, MemberInfo } from '../../cluster/membership.js';
import { FramedSocket } from '../../cluster/transport/framedSocket.js';
import type { FrontFrame } from '../../cluster/transport/frames.js';
import type { ApiRequest, ApiResponse } from '../../src/http/contract.js';
import { log } from '../../src/log.js';

let server: net.Server | null = null;
const sockets = new Set<net.Socket>();
let router: ClusterRouter | null = null;

afterEach(async () => {
  await router?.close();
  router = null;
  for (const s of sockets) s.destroy();
  sockets.clear();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

/** The worker: what it was asked, on which connection (numbered in the order they came). */
async function worker(): Promise<{ member: MemberInfo; seen: { conn: number; path: string }[] }> {
  const seen: { conn: number; path: string }[] = [];
  let connections = 0;
  server = net.createServer((socket) => {
    sockets.add(socket);
    const conn = ++connections;
    const fs = new FramedSocket(socket);
    fs.on('frame', (frame: FrontFrame) => {
      if (frame.kind === 'hello') fs.send({ kind: 'hello', worker: 'w1' });
      if (frame.kind !== 'request') return;
      seen.push({ conn, path: frame.req.path });
      if (frame.req.path === '/events') socket.pause(); // backed up: nothing more is read here
      else fs.send({ kind: 'response', id: frame.id, res: { status: 200, body: { result: 'success', msg: '' }, route: frame.req.path } });
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  const port = (server!.address() as net.AddressInfo).port;
  return { member: { id: 'w1', host: '127.0.0.1', port, pid: 1, hostname: 'test', startedAt: new Date().toISOString() }, seen };
}

/** Membership with this one worker, owning every realm. */
function view(member: MemberInfo): MembershipView {
  return {
    live: () => [member],
    member: (id: string) => (id === member.id ? member : undefined),
    owner: () => member,
    on: () => undefined,
    refreshSoon: async () => undefined,
    suspect: () => undefined,
  } as unknown as MembershipView;
}

let ids = 0;
const request = (method: string, path: string, params: Record<string, string> = {}): ApiRequest => ({
  id: `lanes-${++ids}`,
  method,
  path,
  params,
  subdomain: 'lanes',
  authorization: 'Basic eDp5',
});

/** The router's answer to a request, as a promise. */
const dispatched = (r: ClusterRouter, req: ApiRequest): Promise<ApiResponse> =>
  new Promise((resolve, reject) => r.dispatch(req, { answered: resolve, failed: reject }));

describe('the front router', () => {
  it('answers a send while the worker has stopped reading the connection its long-polls took', async () => {
    const { member, seen } = await worker();
    router = new ClusterRouter(
      view(member),
      { frontId: 'front-test', MAX_IN_FLIGHT: 64, REROUTE_BUDGET_MS: 1000, REQUEST_TIMEOUT_MS: 3000, QUEUE_SHARDS: 1, heartbeatSeconds: 45 },
      log,
    );
    const poll = dispatched(router, request('GET', '/events', { queue_id: 'q1', last_event_id: '-1' }));
    await expect.poll(() => seen.length).toBe(1);

    const started = Date.now();
    const sent = await dispatched(router, request('POST', '/messages', { type: 'channel', to: 'general', topic: 't', content: 'hi' }));
    expect(sent.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
    // A second poll takes the polls' connection, where it waits; other requests still pass.
    const poll2 = dispatched(router, request('GET', '/events', { queue_id: 'q2', last_event_id: '-1' }));
    expect((await dispatched(router, request('GET', '/users/me'))).status).toBe(200);

    expect(seen.map((s) => s.path)).toEqual(['/events', '/messages', '/users/me']);
    expect(seen[1]!.conn).not.toBe(seen[0]!.conn);
    expect(seen[2]!.conn).toBe(seen[1]!.conn);
    router.releasePolls();
    await router.close();
    router = null;
    await Promise.all([poll, poll2]);
  });

  it('answers 503 for a worker it cannot reach, within its budget, once, and keeps nothing of the request', async () => {
    // A port nothing listens on: the first attempt fails on connecting, the next ones at once
    // (the connection backs off), each outcome coming before the call is even returned.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const member: MemberInfo = { id: 'w1', host: '127.0.0.1', port, pid: 1, hostname: 'test', startedAt: new Date().toISOString() };
    router = new ClusterRouter(
      view(member),
      { frontId: 'front-test', MAX_IN_FLIGHT: 64, REROUTE_BUDGET_MS: 400, REQUEST_TIMEOUT_MS: 3000, QUEUE_SHARDS: 1, heartbeatSeconds: 45 },
      log,
    );
    const answers: ApiResponse[] = [];
    const done = new Promise<void>((resolve, reject) =>
      router!.dispatch(request('POST', '/messages', { type: 'channel', to: 'general', topic: 't', content: 'hi' }), {
        answered: (res) => {
          answers.push(res);
          resolve();
        },
        failed: reject,
      }),
    );
    const started = Date.now();
    await done;
    expect(answers).toHaveLength(1);
    expect(answers[0]!.status).toBe(503);
    expect((answers[0]!.body as { code?: string }).code).toBe('SERVER_NOT_READY');
    expect(Date.now() - started).toBeLessThan(3000);
    // Nothing is left to cancel: a call recorded after its outcome came would stay for good.
    expect((router as unknown as { calls: Map<string, unknown> }).calls.size).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(answers).toHaveLength(1);
  });
});
