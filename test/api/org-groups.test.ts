import { beforeAll, describe, expect, it } from 'vitest';
import { newRealm, type Client } from '../helpers/client.js';
import { drain, expectError, expectSuccess, knownUser, openQueue, systemGroupIds } from './org-helpers.js';

let owner: Client;
let subdomain: string;
let alice: Client;
let bob: Client;
let guest: Client;
let sys: Record<string, number>;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('orggrp'));
  alice = await knownUser(subdomain, 'Alice Member');
  bob = await knownUser(subdomain, 'Bob Member');
  guest = await knownUser(subdomain, 'Gina Guest', 600);
  sys = await systemGroupIds(owner);
});

async function createGroup(as: Client, name: string, params: Record<string, unknown> = {}): Promise<number> {
  const r = await as.post('/user_groups/create', { name, description: `${name} team`, members: [], ...params });
  return expectSuccess(r).group_id as number;
}

describe('system groups', () => {
  it('are listed with role-based members and nested subgroups', async () => {
    const r = expectSuccess(await alice.get('/user_groups'));
    const byName = Object.fromEntries(r.user_groups.map((g: { name: string }) => [g.name, g]));
    expect(byName['role:owners'].members).toEqual([owner.userId]);
    expect(byName['role:members'].members).toEqual(expect.arrayContaining([alice.userId, bob.userId]));
    expect(byName['role:everyone'].members).toEqual([guest.userId]);
    expect(byName['role:administrators'].direct_subgroup_ids).toEqual([sys['role:owners']]);
    expect(byName['role:owners']).toMatchObject({ is_system_group: true, deactivated: false, can_manage_group: sys['role:nobody'] });
  });

  it('cannot be changed by anyone', async () => {
    expectError(await owner.post(`/user_groups/${sys['role:members']}/members`, { add: [owner.userId] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectError(await owner.patch(`/user_groups/${sys['role:members']}`, { name: 'x' }), 400, 'BAD_REQUEST', 'Insufficient permission');
  });

  it('resolve membership through the chain', async () => {
    const all = expectSuccess(await alice.get(`/user_groups/${sys['role:everyone']}/members`));
    expect(all.members).toEqual(expect.arrayContaining([owner.userId, alice.userId, guest.userId]));
    const direct = expectSuccess(await alice.get(`/user_groups/${sys['role:everyone']}/members`, { direct_member_only: true }));
    expect(direct.members).toEqual([guest.userId]);
    const check = expectSuccess(await alice.get(`/user_groups/${sys['role:administrators']}/members/${owner.userId}`));
    expect(check.is_user_group_member).toBe(true);
    const subs = expectSuccess(await alice.get(`/user_groups/${sys['role:members']}/subgroups`));
    expect(subs.subgroups).toEqual([sys['role:owners'], sys['role:administrators'], sys['role:moderators'], sys['role:fullmembers']].sort((a, b) => a - b));
  });
});

describe('creating a group', () => {
  it('returns its id, announces it and defaults its settings to the creator', async () => {
    const q = await openQueue(bob, { event_types: ['user_group'] });
    const id = await createGroup(alice, 'support', { members: [alice.userId, bob.userId] });
    const [event] = await drain(q);
    expect(event).toMatchObject({ type: 'user_group', op: 'add', group: { id, name: 'support', members: [alice.userId, bob.userId] } });
    expect(event!.group).toMatchObject({
      description: 'support team',
      creator_id: alice.userId,
      direct_subgroup_ids: [],
      is_system_group: false,
      deactivated: false,
      can_manage_group: { direct_members: [alice.userId], direct_subgroups: [] },
      can_add_members_group: { direct_members: [alice.userId], direct_subgroups: [] },
      can_join_group: sys['role:nobody'],
      can_leave_group: sys['role:everyone'],
      can_mention_group: sys['role:everyone'],
      can_remove_members_group: sys['role:nobody'],
    });
    expect(typeof event!.group.date_created).toBe('number');
  });

  it('refuses bad members, names and settings', async () => {
    expectError(await alice.post('/user_groups/create', { name: 'g1', description: '', members: [999999] }), 400, 'BAD_REQUEST', 'Invalid user ID: 999999');
    expectError(await alice.post('/user_groups/create', { name: 'role:x', description: '', members: [] }), 400, 'BAD_REQUEST', "User group name cannot start with 'role:'.");
    expectError(await alice.post('/user_groups/create', { name: ' ', description: '', members: [] }), 400, 'BAD_REQUEST');
    await createGroup(alice, 'dupe');
    expectError(await alice.post('/user_groups/create', { name: 'dupe', description: '', members: [] }), 400, 'BAD_REQUEST', "User group 'dupe' already exists.");
    for (const bad of ['role:everyone', 'role:internet']) {
      const r = await alice.post('/user_groups/create', { name: `m-${bad}`, description: '', members: [], can_manage_group: sys[bad] });
      expectError(r, 400, 'BAD_REQUEST', `'can_manage_group' setting cannot be set to '${bad}' group.`);
    }
    for (const bad of ['role:owners', 'role:internet']) {
      const r = await alice.post('/user_groups/create', { name: `n-${bad}`, description: '', members: [], can_mention_group: sys[bad] });
      expectError(r, 400, 'BAD_REQUEST', `'can_mention_group' setting cannot be set to '${bad}' group.`);
    }
    expectError(await alice.post('/user_groups/create', { name: 'g2', description: '', members: [], subgroups: [424242] }), 400, 'BAD_REQUEST');
  });

  it('is refused to guests and outside can_create_groups', async () => {
    expectError(await guest.post('/user_groups/create', { name: 'guests', description: '', members: [] }), 400, 'BAD_REQUEST', 'Not allowed for guest users');
    expectSuccess(await owner.patch('/realm', { can_create_groups: { new: sys['role:administrators'] } }));
    expectError(await bob.post('/user_groups/create', { name: 'nope', description: '', members: [] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectSuccess(await owner.patch('/realm', { can_create_groups: { new: sys['role:members'] } }));
    await createGroup(bob, 'bob-again');
  });

  it('does not resolve ids from another realm', async () => {
    const other = await newRealm('orggrpx');
    const foreignGroup = await createGroup(other.owner, 'foreign');
    expectError(await alice.post('/user_groups/create', { name: 'x1', description: '', members: [other.owner.userId] }), 400, 'BAD_REQUEST');
    expectError(await alice.post('/user_groups/create', { name: 'x2', description: '', members: [], subgroups: [foreignGroup] }), 400, 'BAD_REQUEST');
    expectError(await alice.patch(`/user_groups/${foreignGroup}`, { name: 'mine' }), 400, 'BAD_REQUEST', 'Invalid user group');
    expectError(await alice.get(`/user_groups/${foreignGroup}/members`), 400, 'BAD_REQUEST', 'Invalid user group');
    expectError(await owner.post(`/user_groups/${foreignGroup}/deactivate`), 400, 'BAD_REQUEST', 'Invalid user group');
  });
});

describe('editing a group', () => {
  it('lets managers rename it and change settings with {new, old}', async () => {
    const id = await createGroup(alice, 'editors');
    const q = await openQueue(bob, { event_types: ['user_group'] });
    expectSuccess(await alice.patch(`/user_groups/${id}`, { name: 'writers', description: 'they write' }));
    expect(await drain(q)).toEqual([expect.objectContaining({ op: 'update', group_id: id, data: { name: 'writers', description: 'they write' } })]);

    const stale = await alice.patch(`/user_groups/${id}`, { can_join_group: { new: sys['role:members'], old: sys['role:everyone'] } });
    expectError(stale, 400, 'EXPECTATION_MISMATCH');
    expectSuccess(await alice.patch(`/user_groups/${id}`, { can_join_group: { new: sys['role:members'], old: sys['role:nobody'] } }));
    expect(await drain(q)).toEqual([expect.objectContaining({ op: 'update', data: { can_join_group: sys['role:members'] } })]);
    expectSuccess(await alice.patch(`/user_groups/${id}`, { can_mention_group: { new: { direct_members: [bob.userId], direct_subgroups: [] } } }));
    expect((await drain(q))[0]!.data).toEqual({ can_mention_group: { direct_members: [bob.userId], direct_subgroups: [] } });
    expectError(await alice.patch(`/user_groups/${id}`, {}), 400, 'BAD_REQUEST', 'No new data supplied');
  });

  it('is refused to those who do not manage it', async () => {
    const id = await createGroup(alice, 'private-club');
    expectError(await bob.patch(`/user_groups/${id}`, { name: 'taken over' }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectError(await bob.post(`/user_groups/${id}/members`, { add: [bob.userId] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    // The owner is in can_manage_all_groups (role:owners by default).
    expectSuccess(await owner.patch(`/user_groups/${id}`, { description: 'owners can' }));
    expectError(await owner.patch('/user_groups/987654', { name: 'ghost' }), 400, 'BAD_REQUEST', 'Invalid user group');
  });
});

describe('membership', () => {
  it('adds and removes members and subgroups with events', async () => {
    const parent = await createGroup(alice, 'parent');
    const child = await createGroup(alice, 'child', { members: [bob.userId] });
    const q = await openQueue(owner, { event_types: ['user_group'] });
    expectSuccess(await alice.post(`/user_groups/${parent}/members`, { add: [owner.userId], add_subgroups: [child] }));
    expect(await drain(q)).toEqual([
      expect.objectContaining({ op: 'add_members', group_id: parent, user_ids: [owner.userId] }),
      expect.objectContaining({ op: 'add_subgroups', group_id: parent, direct_subgroup_ids: [child] }),
    ]);
    expect(expectSuccess(await bob.get(`/user_groups/${parent}/members`)).members).toEqual([owner.userId, bob.userId].sort((a, b) => a! - b!));
    expect(expectSuccess(await bob.get(`/user_groups/${parent}/members`, { direct_member_only: true })).members).toEqual([owner.userId]);
    expect(expectSuccess(await bob.get(`/user_groups/${parent}/members/${bob.userId}`)).is_user_group_member).toBe(true);
    expect(expectSuccess(await bob.get(`/user_groups/${parent}/members/${bob.userId}`, { direct_member_only: true })).is_user_group_member).toBe(false);

    expectError(await alice.post(`/user_groups/${parent}/members`, { add: [owner.userId] }), 400, 'BAD_REQUEST', `User ${owner.userId} is already a member of this group`);
    expectError(await alice.post(`/user_groups/${parent}/members`, { delete: [alice.userId] }), 400, 'BAD_REQUEST', `There is no member '${alice.userId}' in this user group`);
    expectError(await alice.post(`/user_groups/${parent}/members`, {}), 400, 'BAD_REQUEST');

    expectSuccess(await alice.post(`/user_groups/${parent}/subgroups`, { delete: [child] }));
    expectSuccess(await alice.post(`/user_groups/${parent}/members`, { delete: [owner.userId] }));
    expect(await drain(q)).toEqual([
      expect.objectContaining({ op: 'remove_subgroups', group_id: parent, direct_subgroup_ids: [child] }),
      expect.objectContaining({ op: 'remove_members', group_id: parent, user_ids: [owner.userId] }),
    ]);
  });

  it('refuses cycles', async () => {
    const a = await createGroup(alice, 'cycle-a');
    const b = await createGroup(alice, 'cycle-b');
    const c = await createGroup(alice, 'cycle-c');
    expectSuccess(await alice.post(`/user_groups/${a}/subgroups`, { add: [b] }));
    expectSuccess(await alice.post(`/user_groups/${b}/subgroups`, { add: [c] }));
    expectError(await alice.post(`/user_groups/${c}/subgroups`, { add: [a] }), 400, 'BAD_REQUEST', `User group ${c} is already a subgroup of one of the passed subgroups.`);
    expectError(await alice.post(`/user_groups/${a}/subgroups`, { add: [a] }), 400, 'BAD_REQUEST');
    expect(expectSuccess(await alice.get(`/user_groups/${a}/subgroups`)).subgroups).toEqual([b, c]);
    expect(expectSuccess(await alice.get(`/user_groups/${a}/subgroups`, { direct_subgroup_only: true })).subgroups).toEqual([b]);
  });

  it('lets users join and leave per can_join_group and can_leave_group', async () => {
    const id = await createGroup(alice, 'open-door');
    expectError(await bob.post(`/user_groups/${id}/members`, { add: [bob.userId] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectSuccess(await alice.patch(`/user_groups/${id}`, { can_join_group: { new: sys['role:members'] } }));
    expectSuccess(await bob.post(`/user_groups/${id}/members`, { add: [bob.userId] }));
    // Joining yourself does not let you add others.
    expectError(await bob.post(`/user_groups/${id}/members`, { add: [owner.userId] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectSuccess(await bob.post(`/user_groups/${id}/members`, { delete: [bob.userId] }));
    // Guests never hold can_join_group, even when the value would include them.
    expectSuccess(await alice.patch(`/user_groups/${id}`, { can_join_group: { new: { direct_members: [guest.userId], direct_subgroups: [] } } }));
    expectError(await guest.post(`/user_groups/${id}/members`, { add: [guest.userId] }), 400, 'BAD_REQUEST', 'Not allowed for guest users');
  });
});

describe('deactivation', () => {
  it('is refused while the group is in use, naming where', async () => {
    const used = await createGroup(alice, 'in-use');
    const holder = await createGroup(alice, 'holder', { can_mention_group: used });
    const parent = await createGroup(alice, 'super', { subgroups: [used] });
    expectSuccess(await owner.patch('/realm', { can_add_custom_emoji_group: { new: { direct_members: [], direct_subgroups: [used, sys['role:administrators']] } } }));
    const r = await alice.post(`/user_groups/${used}/deactivate`);
    expectError(r, 400, 'CANNOT_DEACTIVATE_GROUP_IN_USE');
    expect(r.body.objections).toEqual([
      { type: 'subgroup', supergroup_ids: [parent] },
      { type: 'user_group', group_id: holder, settings: ['can_mention_group'] },
      { type: 'realm', settings: ['can_add_custom_emoji_group'] },
    ]);
  });

  it('hides the group, announces it by client capability, and can be undone', async () => {
    const id = await createGroup(alice, 'temporary');
    const plain = await openQueue(bob, { event_types: ['user_group'] });
    const capable = await openQueue(bob, { event_types: ['user_group'], client_capabilities: { include_deactivated_groups: true } });
    expectError(await bob.post(`/user_groups/${id}/deactivate`), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectSuccess(await alice.post(`/user_groups/${id}/deactivate`));
    expect(await drain(plain)).toEqual([expect.objectContaining({ op: 'remove', group_id: id })]);
    expect(await drain(capable)).toEqual([expect.objectContaining({ op: 'update', group_id: id, data: { deactivated: true } })]);
    const listed = expectSuccess(await bob.get('/user_groups')).user_groups.map((g: { id: number }) => g.id);
    expect(listed).not.toContain(id);
    const all = expectSuccess(await bob.get('/user_groups', { include_deactivated_groups: true })).user_groups;
    expect(all.find((g: { id: number }) => g.id === id)).toMatchObject({ deactivated: true });
    expectError(await alice.post(`/user_groups/${id}/deactivate`), 400, 'BAD_REQUEST', 'User group is deactivated.');
    // A deactivated group cannot be used in settings.
    expectError(await alice.post('/user_groups/create', { name: 'uses-dead', description: '', members: [], can_mention_group: id }), 400, 'BAD_REQUEST', 'User group is deactivated.');

    expectSuccess(await alice.patch(`/user_groups/${id}`, { deactivated: false }));
    expect(await drain(plain)).toEqual([expect.objectContaining({ op: 'add', group: expect.objectContaining({ id, deactivated: false }) })]);
    expect(await drain(capable)).toEqual([expect.objectContaining({ op: 'update', group_id: id, data: { deactivated: false } })]);
  });

  it('register includes deactivated groups only for capable clients', async () => {
    const id = await createGroup(alice, 'gone');
    expectSuccess(await alice.post(`/user_groups/${id}/deactivate`));
    const plain = expectSuccess(await bob.post('/register', { fetch_event_types: ['realm_user_groups'] }));
    expect(plain.realm_user_groups.map((g: { id: number }) => g.id)).not.toContain(id);
    const capable = expectSuccess(await bob.post('/register', { fetch_event_types: ['realm_user_groups'], client_capabilities: { include_deactivated_groups: true } }));
    expect(capable.realm_user_groups.map((g: { id: number }) => g.id)).toContain(id);
  });
});
