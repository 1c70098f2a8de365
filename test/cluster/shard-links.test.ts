// A worker's batches to a queue shard on another worker (cluster/transport/shardLinks.ts):
// a batch that is late is waited for as long as the worker it went to still holds the shard's
// lease (its keeper renews it only while that worker's event loop turns), and refused once
// another worker, or none, holds it. The other worker is a stand-in speaking the transport's
// frames over a real socket, answering batches after a delay.
import net from 'node:net';
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { ShardLinks } from '../../cluster/transport/shardLinks.js';
import { FramedSocket } from '../../cluster/transport/framedSocket.js';
import type { Received, FrontFrame } from '../../cluster/transport/frames.js';
import type { MemberInfo } from '../../cluster/membership.js';
import type { ShardBatch } from '../../cluster/shardOps.js';

const log = pino({ level: 'silent' });
const servers: net.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A worker `id` whose shard answers every batch after `delayMs`. */
async function slowWorker(id: string, delayMs: number): Promise<MemberInfo> {
  const server = net.createServer((socket) => {
    const fs = new FramedSocket(socket);
    fs.on('frame', (frame: Received<FrontFrame>) => {
      if (frame.kind === 'hello') fs.send({ kind: 'hello', worker: id });
      if (frame.kind === 'shard') setTimeout(() => fs.send({ kind: 'shardReply', id: frame.id, reply: { ok: true, gone: ['q-late'] } }), delayMs);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { id, host: '127.0.0.1', port, pid: 0, hostname: 'test', startedAt: new Date().toISOString() };
}

/** Membership as the links read it: every shard placed on `member`. */
class View extends EventEmitter {
  constructor(private readonly m: MemberInfo) {
    super();
  }
  owner = () => this.m;
  member = (id: string) => (id === this.m.id ? this.m : undefined);
  refreshSoon = () => Promise.resolve();
}

const batch: ShardBatch = { unit: 'acme~1', from: 'hub-1', seq: 1, ops: [{ op: 'sync' }] };
const noShardHere = { apply: () => Promise.reject(new Error('no shard is held here')) };

describe('batches to a queue shard on another worker', () => {
  it('are waited for past the timeout while that worker holds the shard', async () => {
    const member = await slowWorker('w-slow', 900);
    const asked: string[] = [];
    const links = new ShardLinks('w-self', new View(member), noShardHere, log, async (unit) => (asked.push(unit), 'w-slow'), 200);
    try {
      expect(await links.send(batch)).toEqual({ ok: true, gone: ['q-late'] });
      // The lease was looked at each time the wait ran out, and only then.
      expect(asked.length).toBeGreaterThanOrEqual(2);
      expect(new Set(asked)).toEqual(new Set(['acme~1']));
    } finally {
      links.close();
    }
  });

  it('are refused once another worker holds the shard, or nobody does, or the lease cannot be read', async () => {
    const member = await slowWorker('w-slow', 900);
    for (const holder of [async () => 'w-other', async () => null, () => Promise.reject(new Error('Redis is down'))]) {
      const links = new ShardLinks('w-self', new View(member), noShardHere, log, holder, 200);
      try {
        expect(await links.send(batch)).toEqual({ ok: false, reason: 'queue shard did not answer in time' });
      } finally {
        links.close();
      }
    }
  });
});
