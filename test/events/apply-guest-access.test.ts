// The apply-events property for a guest who may see only the users it shares a channel or
// direct messages with (can_access_all_users_group = role:members): users coming into and
// going out of its sight through subscriptions and direct messages, changes of users it sees
// and of users it does not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../helpers/client.js';
import { closeWatchers, MODERN_CAPABILITIES, MODERN_REGISTER, newOrganization, ok, openWatchers, systemGroups, verify, Watcher, type Outcome } from './support.js';

/** A client that lists every user (without `user_list_incomplete`): users out of sight are placeholders. */
const LISTING_EVERYONE = { ...MODERN_REGISTER, client_capabilities: { ...MODERN_CAPABILITIES, user_list_incomplete: false } };

let subdomain: string;
let owner: Client;
let bob: Client;
let carol: Client;
let guest: Client;
let dan: Client;
let gina: Client;
let guestWatcher: Watcher;
let listingWatcher: Watcher;
let all: Watcher[];
let doraId: number;

const subscribe = (c: Client, name: string, principals: (number | undefined)[]) =>
  c.post('/users/me/subscriptions', { subscriptions: [{ name }], principals });

beforeAll(async () => {
  ({ subdomain, owner, bob, carol, guest, dan, gina } = await newOrganization('apguest', ['bob', 'carol', 'guest', 'dan', 'gina']));
  const members = (await systemGroups(owner))['role:members'];
  ok(await owner.patch('/realm', { can_access_all_users_group: { new: members } }));
  ok(await subscribe(owner, 'shared', [owner.userId, bob.userId, guest.userId]));
  ok(await subscribe(owner, 'members only', [owner.userId, bob.userId, carol.userId]));
  all = await openWatchers({ guest, owner, bob });
  guestWatcher = all[0]!;
  listingWatcher = await Watcher.open(guest, 'guest listing everyone', LISTING_EVERYONE);
  all.push(listingWatcher);
});

afterAll(() => closeWatchers(all));

describe('a guest with limited access to users', () => {
  it('hears of a new user it cannot see as "Unknown user", unless its client lists only users in sight', async () => {
    const { outcomes } = await verify(all, async () => ok(await owner.post('/users', { email: `dora@${subdomain}.test`, password: 'dora-password-1', full_name: 'Dora New' })));
    const adds = (w: Watcher) => outcomes.get(w)!.events.filter((e) => e.type === 'realm_user');
    doraId = adds(all.find((w) => w.client === owner)!)[0]!.person.user_id as number;
    // Zulip's event queues withhold the placeholder from clients with user_list_incomplete.
    expect(adds(guestWatcher)).toEqual([]);
    const placeholder = {
      email: `user${doraId}@${subdomain}.localhost`, user_id: doraId, avatar_version: 1, is_admin: false, is_owner: false,
      is_guest: false, is_bot: false, role: 400, full_name: 'Unknown user', timezone: '', is_active: true,
      date_joined: '1970-01-01T00:00:00+00:00', delivery_email: null, avatar_url: '/static/images/unknown-user-avatar.png', profile_data: {},
    };
    // Exactly the placeholder, with nothing else on the event (Zulip's inaccessible_user mark
    // never reaches a client).
    expect(adds(listingWatcher).map(({ id: _id, ...e }) => e)).toEqual([{ type: 'realm_user', op: 'add', person: placeholder }]);
    // Members get the real user.
    for (const w of all.filter((x) => x.client === owner || x.client === bob)) {
      expect(adds(w).map((e) => [e.op, e.person.user_id, e.person.full_name])).toEqual([['add', doraId, 'Dora New']]);
    }
    // verify compared the state after the event with a fresh register; it is what GET /users says too.
    expect(listingWatcher.cs.rawUsers!.get(doraId)).toEqual(placeholder);
    const listed = ok(await guest.get('/users')).members.find((u: { user_id: number }) => u.user_id === doraId);
    expect(listed).toEqual(placeholder);
  });

  it('hears of changes of users it sees, not of the others', async () => {
    const { outcomes } = await verify(all, async () => ok(await owner.patch(`/users/${carol.userId}`, { full_name: 'Carol Renamed' })));
    expect(outcomes.get(guestWatcher)!.events).toEqual([]);
    await verify(all, async () => ok(await owner.patch(`/users/${bob.userId}`, { full_name: 'Bob Renamed' })));
    // Presence events make the client refetch (see applyEvents.ts): check who hears of them.
    const unseen = await verify(all, async () => ok(await carol.post('/users/me/presence', { status: 'active' })), { stateChange: false });
    expect(unseen.outcomes.get(guestWatcher)!.events).toEqual([]);
    const seen = await verify(all, async () => ok(await bob.post('/users/me/presence', { status: 'active' })), { stateChange: false });
    expect(seen.outcomes.get(guestWatcher)!.events.map((e) => [e.type, e.user_id])).toEqual([['presence', bob.userId]]);
  });

  it('sees a user who joins its channel, and loses it when the user leaves', async () => {
    await verify(all, async () => ok(await subscribe(owner, 'shared', [carol.userId])));
    await verify(all, async () => ok(await carol.patch('/settings', { timezone: 'Asia/Tokyo' })));
    await verify(all, async () => ok(await carol.delete('/users/me/subscriptions', { subscriptions: ['shared'] })));
  });

  it('sees the users of a channel it joins, and loses them when it leaves', async () => {
    await verify(all, async () => ok(await subscribe(owner, 'members only', [guest.userId])));
    await verify(all, async () => ok(await owner.delete('/users/me/subscriptions', { subscriptions: ['members only'], principals: [guest.userId] })));
  });

  it('deactivation and reactivation of a user it sees through a channel', async () => {
    // Bob's own client ends with his account; a new one starts after the reactivation.
    const others = all.filter((w) => w.client !== bob);
    const userEvents = (outcomes: Map<Watcher, Outcome>, w: Watcher) =>
      outcomes.get(w)!.events.filter((e) => e.type === 'realm_user' || e.type === 'user_group').map((e) => [e.type, e.op, e.person?.user_id ?? e.user_ids]);
    const gone = await verify(others, async () => ok(await owner.delete(`/users/${bob.userId}`)));
    // A channel shows only active subscribers: Gus loses sight of Bob, and is told of the
    // groups Bob left (Zulip's send_events_for_user_deactivation); members get the update.
    const members = (await systemGroups(owner))['role:members'];
    for (const w of [guestWatcher, listingWatcher]) {
      const seen = userEvents(gone.outcomes, w);
      expect(seen).toContainEqual(['user_group', 'remove_members', [bob.userId]]);
      expect(seen.at(-1)).toEqual(['realm_user', 'remove', bob.userId]);
      expect(seen.filter(([type]) => type === 'realm_user')).toHaveLength(1);
    }
    expect(gone.outcomes.get(guestWatcher)!.events.find((e) => e.type === 'user_group' && e.group_id === members)).toBeDefined();
    expect(userEvents(gone.outcomes, others.find((w) => w.client === owner)!)).toEqual([['realm_user', 'update', bob.userId]]);
    const back = await verify(others, async () => ok(await owner.post(`/users/${bob.userId}/reactivate`)));
    // Back in sight: Bob in full first, then the update everyone who sees him gets.
    expect(userEvents(back.outcomes, guestWatcher).filter(([type]) => type === 'realm_user')).toEqual([
      ['realm_user', 'add', bob.userId],
      ['realm_user', 'update', bob.userId],
    ]);
    all = [...others, await Watcher.open(bob, 'bob')];
  });

  it('a channel created with the guest and a user it could not see', async () => {
    await verify(all, async () => ok(await subscribe(owner, 'new room', [owner.userId, carol.userId, guest.userId])));
  });

  it('sees a user who writes to it directly, and hears of that user from then on', async () => {
    const { outcomes } = await verify(all, async () => ok(await dan.post('/messages', { type: 'direct', to: `[${guest.userId}]`, content: 'hello' })));
    const seen = outcomes.get(guestWatcher)!.events.map((e) => [e.type, e.op ?? null, e.person?.user_id ?? null]);
    expect(seen).toEqual([['realm_user', 'add', dan.userId], ['message', null, null]]);
    await verify(all, async () => ok(await owner.patch(`/users/${dan.userId}`, { full_name: 'Dan Renamed' })));
    await verify(all, async () => ok(await guest.post('/messages', { type: 'direct', to: `[${dan.userId}]`, content: 'hello Dan' })));
    // A direct-message partner stays in sight when deactivated: the update, no remove.
    const gone = await verify(all, async () => ok(await owner.delete(`/users/${dan.userId}`)));
    const told = gone.outcomes.get(guestWatcher)!.events.filter((e) => e.type === 'realm_user' || e.type === 'user_group');
    expect(told.map((e) => [e.type, e.op, e.person?.user_id])).toEqual([['realm_user', 'update', dan.userId]]);
    await verify(all, async () => ok(await owner.post(`/users/${dan.userId}/reactivate`)));
  });

  it('a group direct message with another guest', async () => {
    const gWatcher = await Watcher.open(gina, 'gina');
    const added = (w: Watcher, outcomes: Map<Watcher, Outcome>) =>
      outcomes.get(w)!.events.filter((e) => e.type === 'realm_user' && e.op === 'add').map((e) => e.person.user_id as number).sort((a, b) => a - b);
    try {
      const { outcomes } = await verify([...all, gWatcher], async () =>
        ok(await bob.post('/messages', { type: 'direct', to: `[${guest.userId},${gina.userId},${carol.userId}]`, content: 'all of us' })),
      );
      // Gus saw Bob and Carol through channels already; Gina, in no channel, saw nobody.
      expect(added(guestWatcher, outcomes)).toEqual([gina.userId]);
      expect(added(gWatcher, outcomes)).toEqual([bob.userId!, carol.userId!, guest.userId!].sort((a, b) => a - b));
    } finally {
      await gWatcher.close();
    }
  });
});

describe('a guest in a realm where everyone may see everyone', () => {
  let watchers: Watcher[] = [];
  afterAll(() => closeWatchers(watchers));

  it('gets the real new user, and nobody gets a placeholder', async () => {
    const org = await newOrganization('apguestall', ['bob', 'guest']);
    const everyone = (await systemGroups(org.owner))['role:everyone'];
    ok(await org.owner.patch('/realm', { can_access_all_users_group: { new: everyone } }));
    watchers = await openWatchers({ guest: org.guest, bob: org.bob });
    watchers.push(await Watcher.open(org.guest, 'guest listing everyone', LISTING_EVERYONE));
    const { outcomes } = await verify(watchers, async () => ok(await org.owner.post('/users', { email: `ed@${org.subdomain}.test`, password: 'ed-password-1', full_name: 'Ed New' })));
    for (const w of watchers) {
      expect(outcomes.get(w)!.events.filter((e) => e.type === 'realm_user').map((e) => [e.op, e.person.full_name])).toEqual([['add', 'Ed New']]);
    }
  });
});
