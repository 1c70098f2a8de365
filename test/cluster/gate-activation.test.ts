// A realm taken up by a worker (first request, or its new owner after a move) serves nothing
// until its event queues are restored: the actor is in the registry a moment before that, and
// a send let through then would publish its events to queues that are not there yet (the
// client would miss that message without any gap in its event ids). The gate is driven here
// with its collaborators reduced to what the activation touches; the realm row is real.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RealmGate, type GateDeps } from '../../cluster/realmGate.js';
import { Placement } from '../../cluster/placement.js';
import type { ApiRequest, HandlerOutcome } from '../../src/http/contract.js';
import type { RealmActor } from '../../src/realm/actor.js';
import type { RealmRecord } from '../../src/model/types.js';
import { closeTestDb, testDb } from '../helpers/db.js';
import { newRealm } from '../helpers/client.js';
import { pino } from 'pino';

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

/** A gate whose queue restore waits until the test lets it finish. */
function gateWithSlowRestore() {
  const restoring = deferred();
  const restoreCalled = deferred();
  const handled: string[] = [];
  const active = new Map<number, RealmActor>();
  const registry = {
    onPassivated: () => undefined,
    activeById: (id: number) => active.get(id),
    async activate(realm: RealmRecord) {
      const actor = { realm, mailboxDepth: 0, events: {}, close: () => undefined } as unknown as RealmActor;
      active.set(realm.id, actor);
      return actor;
    },
    remove(id: number) {
      const a = active.get(id);
      active.delete(id);
      return a;
    },
  };
  const lease = { epoch: 1 };
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
      valid: () => lease,
      release: async () => undefined,
      forget: () => undefined,
      sqlFor: () => testDb(),
    },
    view: { placement: new Placement(['w1']), refreshSoon: async () => undefined },
    queues: {
      async restore() {
        restoreCalled.resolve();
        await restoring.promise;
        return { restored: 0, dropped: 0 };
      },
      staleAfterCrash: () => false,
      forget: () => undefined,
    },
    timing: { LEASE_TTL_MS: 1000, DRAIN_MS: 1000, MEMBERSHIP_CHECK_MS: 60_000 },
    log: pino({ level: 'silent' }),
  } as unknown as GateDeps;
  return { gate: new RealmGate(deps), handled, restoring, restoreCalled, active };
}

const request = (id: string, path = '/messages', method = 'POST'): ApiRequest => ({ id, method, path, params: {}, subdomain });
const ticks = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('taking up a realm', () => {
  it('holds requests that arrive while the queues are being restored until they are', async () => {
    const { gate, handled, restoring, restoreCalled, active } = gateWithSlowRestore();
    const first = gate.handle(request('first', '/users/me', 'GET'));
    await restoreCalled.promise;
    expect(active.size).toBe(1); // the actor is registered, its queues not restored yet
    const send = gate.handle(request('send'));
    await ticks(20);
    expect(handled).toEqual([]);
    restoring.resolve();
    const outcomes = await Promise.all([first, send]);
    expect(outcomes.map((o) => o.kind)).toEqual(['response', 'response']);
    expect(handled.sort()).toEqual(['first', 'send']);
  });

  it('gives a job the realm only once its queues are restored', async () => {
    const { gate, restoring, restoreCalled, active } = gateWithSlowRestore();
    const first = gate.handle(request('first', '/users/me', 'GET'));
    await restoreCalled.promise;
    const realmId = [...active.keys()][0]!;
    let jobActor: RealmActor | null | undefined;
    const job = gate.activateForJob(realmId).then((a) => (jobActor = a));
    await ticks(20);
    expect(jobActor).toBeUndefined();
    restoring.resolve();
    await Promise.all([first, job]);
    expect(jobActor).toBe(active.get(realmId));
  });
});
