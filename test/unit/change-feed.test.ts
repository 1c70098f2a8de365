// Users written by the admin CLI reach the realm actors active in a worker through the change
// feed. A realm being taken up while such a user is written (its actor loaded from the
// database before the user existed, its event queues still being restored, so the actor is
// not yet found in the registry) learns of the user once it serves, not never.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { ChangeFeed } from '../../src/worker/changeFeed.js';
import { RealmRegistry } from '../../src/realm/registry.js';
import type { Services } from '../../src/realm/services.js';
import type { RealmActor } from '../../src/realm/actor.js';
import { findRealmBySubdomain } from '../../src/db/realms.js';
import { loadConfig } from '../../src/config.js';
import { closeTestDb, testDb } from '../helpers/db.js';
import { newRealm, newUser } from '../helpers/client.js';

let subdomain: string;

beforeAll(async () => {
  ({ subdomain } = await newRealm('cf'));
});

afterAll(async () => {
  await closeTestDb();
});

describe('the change feed and a realm being taken up', () => {
  it('hands a user written meanwhile to the actor once it serves', async () => {
    const services = { config: loadConfig({}), sql: testDb(), log: pino({ level: 'silent' }) } as unknown as Services;
    const registry = new RealmRegistry(services, { activation: 'managed' });
    const feed = new ChangeFeed(registry, 60_000);
    await feed.start();
    const realm = (await findRealmBySubdomain(testDb(), subdomain))!;

    let restored!: () => void;
    let loaded!: () => void;
    const isLoaded = new Promise<void>((r) => (loaded = r));
    const activation = registry.activate(realm, undefined, () => {
      loaded();
      return new Promise<void>((r) => (restored = r));
    });
    await isLoaded;
    const user = await newUser(subdomain, 'Late Comer');
    await feed.catchUp(); // the actor is not found yet
    restored();
    const actor: RealmActor = await activation;
    expect(actor.user(user.userId!)).toBeUndefined();
    await feed.catchUp();
    expect(actor.user(user.userId!)?.fullName).toBe('Late Comer');
    feed.stop();
    registry.close();
  });
});
