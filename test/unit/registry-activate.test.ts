// A realm taken up with a preparation step (a cluster restores its event queues then) is found
// in the registry only once that step is done; if the step fails, the realm is not registered
// and its actor is closed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { RealmRegistry } from '../../src/realm/registry.js';
import type { Services } from '../../src/realm/services.js';
import type { RealmActor } from '../../src/realm/actor.js';
import { findRealmBySubdomain } from '../../src/db/realms.js';
import { loadConfig } from '../../src/config.js';
import { closeTestDb, testDb } from '../helpers/db.js';
import { newRealm } from '../helpers/client.js';

let subdomain: string;

beforeAll(async () => {
  ({ subdomain } = await newRealm('ra'));
});

afterAll(async () => {
  await closeTestDb();
});

const registry = () =>
  new RealmRegistry({ config: loadConfig({}), sql: testDb(), log: pino({ level: 'silent' }) } as unknown as Services, { activation: 'managed' });

describe('activating a realm with a preparation step', () => {
  it('registers the actor only once the step is done', async () => {
    const r = registry();
    const realm = (await findRealmBySubdomain(testDb(), subdomain))!;
    let seenDuring: RealmActor | undefined = undefined;
    let preparedActor: RealmActor | null = null;
    const actor = await r.activate(realm, undefined, async (a) => {
      preparedActor = a;
      await new Promise((res) => setTimeout(res, 20));
      seenDuring = r.activeById(realm.id) ?? r.activeBySubdomain(subdomain);
    });
    expect(seenDuring).toBeUndefined();
    expect(actor).toBe(preparedActor);
    expect(r.activeById(realm.id)).toBe(actor);
    r.close();
  });

  it('neither registers nor keeps the actor when the step fails', async () => {
    const r = registry();
    const realm = (await findRealmBySubdomain(testDb(), subdomain))!;
    let closed = 0;
    await expect(
      r.activate(realm, undefined, async (a) => {
        const close = a.close.bind(a);
        a.close = () => {
          closed++;
          close();
        };
        throw new Error('queues could not be restored');
      }),
    ).rejects.toThrow('queues could not be restored');
    expect(r.activeById(realm.id)).toBeUndefined();
    expect(closed).toBe(1);
    r.close();
  });
});
