// A realm actor that leaves its process (handed over, or its lease lost) takes no new state
// change: each is refused as "not here", which its caller takes to the realm's new owner (a
// request is bounced to the front, a job passed on). Changes already under way finish, and
// `writing` tells whether any is.
import { describe, expect, it } from 'vitest';
import { RealmActor } from '../../src/realm/actor.js';
import { RealmState } from '../../src/model/realmState.js';
import { RealmNotHereError, type Services } from '../../src/realm/services.js';
import type { RealmRecord } from '../../src/model/types.js';

const services = {
  config: { HEARTBEAT_SECONDS: 60, QUEUE_MAX_EVENTS: 100, QUEUE_MAX_BYTES: 1_000_000 },
  sql: null,
} as unknown as Services;

const actor = () => new RealmActor(services, new RealmState({ id: 1, stringId: 'r' } as RealmRecord), null as never);

describe('a retired realm actor', () => {
  it('refuses new state changes as not here and lets the one under way finish', async () => {
    const a = actor();
    let release!: () => void;
    const underWay = a.exclusive(() => new Promise<string>((r) => (release = () => r('done'))));
    expect(a.writing).toBe(true);
    a.retire();
    await expect(a.exclusive(async () => 'new')).rejects.toBeInstanceOf(RealmNotHereError);
    expect(a.writing).toBe(true);
    release();
    expect(await underWay).toBe('done');
    await new Promise((r) => setImmediate(r));
    expect(a.writing).toBe(false);
  });

  it('counts a job at work as writing, and refuses new jobs once retired', async () => {
    const a = actor();
    let finish!: () => void;
    const job = a.working(() => new Promise<void>((r) => (finish = r)));
    expect(a.writing).toBe(true);
    a.retire();
    await expect(a.working(async () => 'new')).rejects.toBeInstanceOf(RealmNotHereError);
    expect(a.writing).toBe(true);
    finish();
    await job;
    expect(a.writing).toBe(false);
  });

  it('serves state changes until then', async () => {
    const a = actor();
    expect(await a.exclusive(async () => 'ok')).toBe('ok');
    expect(a.writing).toBe(false);
  });
});
