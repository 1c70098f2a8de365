// The realm gate's moves, where an event could be lost without a trace:
// - a realm taken up by a worker (first request, or its new owner after a move) serves nothing
//   until its event queues are restored: an actor reached before that would publish a send's
//   events to queues not there yet (the client would miss the message with no gap in its
//   event ids);
// - a realm handed over writes its queues for the next owner only once the writes under way
//   (sends committing, jobs) are done, and takes no new ones; writes still under way when it
//   must go, or when its lease is lost, make the queue copies stale (their clients register
//   again instead of missing events).
// The gate is driven with its collaborators reduced to what these moves touch; the realm row
// is real.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { RealmGate, type GateDeps } from '../../cluster/realmGate.js';
import { Placement } from '../../cluster/placement.js';
import type { ApiRequest, HandlerOutcome } from '../../src/http/contract.js';
import type { RealmActor } from '../../src/realm/actor.js';
import type { RealmRecord } from '../../src/model/types.js';
import { closeTestDb, testDb } from '../helpers/db.js';
import { newRealm } from '../helpers/client.js';

let subdomain: string;

beforeAll(async () => {
  ({ subdomain } = await newRealm('ga'));
});

afterAll(async () => {
  await closeTestDb();
});

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

interface FakeActor {
  realm: RealmRecord;
  writing: boolean;
  retired: boolean;
  closed: boolean;
}

/** A gate on worker w1; `restoring` holds the queue restore until the test lets it finish. */
function gateOnW1(opts: { slowRestore?: boolean; drainMs?: number; handOverFails?: boolean; copiesStale?: boolean; restoreFails?: boolean } = {}) {
  const restoring = deferred();
  const restoreCalled = deferred();
  if (!opts.slowRestore) restoring.resolve();
  const handled: string[] = [];
  const actors: FakeActor[] = [];
  const active = new Map<number, RealmActor>();
  const log: string[] = [];
  const registry = {
    onPassivated: () => undefined,
    activeById: (id: number) => active.get(id),
    // As the real registry: the actor is found only once `prepare` is done.
    async activate(realm: RealmRecord, _sql: unknown, prepare?: (a: RealmActor) => Promise<void>) {
      const fake: FakeActor = { realm, writing: false, retired: false, closed: false };
      const actor = Object.assign(fake, {
        events: {},
        retire: () => {
          fake.retired = true;
          log.push('retire');
        },
        close: () => (fake.closed = true),
      }) as unknown as RealmActor;
      await prepare?.(actor);
      actors.push(fake);
      active.set(realm.id, actor);
      return actor;
    },
    remove(id: number) {
      const a = active.get(id);
      active.delete(id);
      return a;
    },
  };
  const view = { placement: new Placement(['w1']), refreshSoon: async () => undefined };
  const lease = { epoch: 1, queuesStale: opts.copiesStale ?? false };
  let leaseHeld = true;
  const deps = {
    selfId: 'w1',
    sql: testDb(),
    registry,
    inner: {
      async handle(req: ApiRequest): Promise<HandlerOutcome> {
        handled.push(req.id);
        return { kind: 'response', res: { status: 200, body: { result: 'success', msg: '' } } };
      },
      cancel: () => undefined,
    },
    leases: {
      acquire: async () => lease,
      valid: () => (leaseHeld ? lease : null),
      release: async () => void log.push('release'),
      clearQueuesStale: async () => void log.push('clearQueuesStale'),
      markQueuesStale: async () => {
        log.push('markQueuesStale');
        return true;
      },
      forget: () => undefined,
      sqlFor: () => testDb(),
    },
    view,
    queues: {
      async restore(_actor: RealmActor, _epoch: number, copiesStale = false) {
        log.push(`restore stale=${copiesStale}`);
        restoreCalled.resolve();
        await restoring.promise;
        if (opts.restoreFails) throw new Error('queues could not be taken up');
        return { restored: 0, dropped: 0, adopted: true };
      },
      staleAfterCrash: () => false,
      forget: (_id: number, stale = false) => void log.push(`forget stale=${stale}`),
      handOver: async (_a: RealmActor, _epoch: number, stale = false) => {
        log.push(`handOver stale=${stale}`);
        return !opts.handOverFails;
      },
    },
    timing: { LEASE_TTL_MS: 1000, DRAIN_MS: opts.drainMs ?? 5000, MEMBERSHIP_CHECK_MS: 60_000 },
    log: pino({ level: 'silent' }),
  } as unknown as GateDeps;
  const loseLease = () => (leaseHeld = false);
  return { gate: new RealmGate(deps), handled, restoring, restoreCalled, active, actors, view, log, loseLease };
}

const request = (id: string, path = '/messages', method = 'POST'): ApiRequest => ({ id, method, path, params: {}, subdomain });
const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('taking up a realm', () => {
  it('holds requests that arrive while the queues are being restored until they are', async () => {
    const { gate, handled, restoring, restoreCalled, active } = gateOnW1({ slowRestore: true });
    const first = gate.handle(request('first', '/users/me', 'GET'));
    await restoreCalled.promise;
    expect(active.size).toBe(0); // loaded, not found before its queues are there
    const send = gate.handle(request('send'));
    await ticks(20);
    expect(handled).toEqual([]);
    restoring.resolve();
    const outcomes = await Promise.all([first, send]);
    expect(outcomes.map((o) => o.kind)).toEqual(['response', 'response']);
    expect(handled.sort()).toEqual(['first', 'send']);
  });

  it('does not serve a realm whose lease was lost while its queues were being restored', async () => {
    const { gate, handled, restoring, restoreCalled, active, actors, log, loseLease } = gateOnW1({ slowRestore: true });
    const realmId = (await testDb()`SELECT id FROM realms WHERE string_id = ${subdomain}`)[0]!.id as number;
    const first = gate.handle(request('first', '/users/me', 'GET'));
    await restoreCalled.promise;
    loseLease();
    gate.lost(realmId);
    restoring.resolve();
    expect(await first).toEqual({ kind: 'bounce', reason: expect.any(String) });
    expect(handled).toEqual([]);
    expect(active.size).toBe(0);
    expect(actors).toEqual([]); // never registered (the registry closes what it never registered)
    expect(log).toEqual(['restore stale=false', 'forget stale=false', 'forget stale=false']);
  });

  it('serves nothing, and copies nothing, when taking up the queues fails', async () => {
    const { gate, handled, active, log } = gateOnW1({ restoreFails: true });
    await expect(gate.handle(request('first', '/users/me', 'GET'))).rejects.toThrow('queues could not be taken up');
    expect(handled).toEqual([]);
    expect(active.size).toBe(0);
    expect(log).toEqual(['restore stale=false', 'forget stale=false', 'release']);
  });

  it('gives a job the realm only once its queues are restored', async () => {
    const { gate, restoring, restoreCalled, active } = gateOnW1({ slowRestore: true });
    const first = gate.handle(request('first', '/users/me', 'GET'));
    await restoreCalled.promise;
    const realmId = (await testDb()`SELECT id FROM realms WHERE string_id = ${subdomain}`)[0]!.id as number;
    let jobActor: RealmActor | null | undefined;
    const job = gate.activateForJob(realmId).then((a) => (jobActor = a));
    await ticks(20);
    expect(jobActor).toBeUndefined();
    restoring.resolve();
    await Promise.all([first, job]);
    expect(jobActor).toBe(active.get(realmId));
  });
});

describe('taking up a realm whose previous holder said its queue copies are stale', () => {
  it('restores them knowing so, then clears the word', async () => {
    const { gate, log } = gateOnW1({ copiesStale: true });
    await gate.handle(request('first', '/users/me', 'GET'));
    expect(log).toEqual(['restore stale=true', 'clearQueuesStale']);
  });
});

describe('handing a realm over', () => {
  it('writes its queues for the next owner once the writes under way are done, taking no new ones', async () => {
    const { gate, actors, view, log } = gateOnW1();
    await gate.handle(request('first', '/users/me', 'GET'));
    const actor = actors[0]!;
    actor.writing = true; // a send committing, say a job's
    view.placement = new Placement(['w2']);
    const moving = gate.rebalance();
    await sleep(100);
    expect(log).toEqual(['restore stale=false']);
    actor.writing = false;
    await moving;
    expect(log).toEqual(['restore stale=false', 'retire', 'handOver stale=false', 'release']);
    expect(actor.closed).toBe(true);
    expect(gate.moves).toMatchObject({ activated: 1, handedOff: 1, staleCopies: 0 });
  });

  it('sends the queues over as not movable when writes are still under way after DRAIN_MS', async () => {
    const { gate, actors, view, log } = gateOnW1({ drainMs: 150 });
    await gate.handle(request('first', '/users/me', 'GET'));
    actors[0]!.writing = true;
    view.placement = new Placement(['w2']);
    await gate.rebalance();
    expect(log).toEqual(['restore stale=false', 'retire', 'handOver stale=true', 'release']);
    expect(gate.moves).toMatchObject({ handedOff: 1, staleCopies: 1 });
  });

  it('leaves the cluster only after a realm being taken up meanwhile is handed over too', async () => {
    const { gate, restoring, restoreCalled, log } = gateOnW1({ slowRestore: true });
    const first = gate.handle(request('first', '/users/me', 'GET'));
    await restoreCalled.promise;
    let drained = false;
    const draining = gate.drain().then(() => (drained = true));
    await sleep(150);
    expect(drained).toBe(false);
    restoring.resolve();
    await Promise.all([first, draining]);
    expect(log).toEqual(['restore stale=false', 'retire', 'handOver stale=false', 'release']);
  });

  it('tells the next holder its queue copies are stale when Redis did not take them', async () => {
    const { gate, view, log } = gateOnW1({ handOverFails: true });
    await gate.handle(request('first', '/users/me', 'GET'));
    view.placement = new Placement(['w2']);
    await gate.rebalance();
    expect(log).toEqual(['restore stale=false', 'retire', 'handOver stale=false', 'markQueuesStale', 'release']);
    expect(gate.moves.staleCopies).toBe(1);
  });

  it('marks the queue copies stale when the lease is lost with a write under way, not otherwise', async () => {
    for (const writing of [true, false]) {
      const { gate, actors, log, active } = gateOnW1();
      await gate.handle(request('first', '/users/me', 'GET'));
      actors[0]!.writing = writing;
      gate.lost(actors[0]!.realm.id);
      expect(log).toEqual(['restore stale=false', 'retire', `forget stale=${writing}`]);
      expect(gate.moves).toMatchObject({ dropped: 1, staleCopies: writing ? 1 : 0 });
      expect(actors[0]!.closed).toBe(true);
      expect(active.size).toBe(0);
    }
  });
});
