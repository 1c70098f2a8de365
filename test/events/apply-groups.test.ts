// The apply-events property for user groups: creation, name and description, permission
// settings, members, subgroups, deactivation, and membership that grants channel access.
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Client } from '../helpers/client.js';
import { closeWatchers, newOrganization, ok, openWatchers, systemGroups, verify, type Watcher } from './support.js';

let owner: Client;
let bob: Client;
let carol: Client;
let guest: Client;
let all: Watcher[];
let sys: Record<string, number>;

const create = async (c: Client, params: Record<string, unknown>) => ok(await c.post('/user_groups/create', { description: '', members: [], ...params })).group_id as number;

beforeAll(async () => {
  ({ owner, bob, carol, guest } = await newOrganization('apgrp', ['bob', 'carol', 'guest']));
  sys = await systemGroups(owner);
  all = await openWatchers({ owner, bob, guest });
});

afterAll(() => closeWatchers(all));

describe('groups', () => {
  let team: number;
  let leads: number;

  it('creating groups, with members and with a subgroup', async () => {
    team = (await verify(all, () => create(owner, { name: 'team', members: [bob.userId, carol.userId] }))).result;
    leads = (await verify(all, () => create(bob, { name: 'leads', description: 'The **leads**', members: [owner.userId], subgroups: [team] }))).result;
  });

  it('renaming and describing', async () => {
    await verify(all, async () => ok(await owner.patch(`/user_groups/${team}`, { name: 'core team', description: 'Everyone in the core' })));
  });

  it('permission settings, system and anonymous', async () => {
    await verify(all, async () => ok(await owner.patch(`/user_groups/${team}`, { can_join_group: { new: sys['role:members'] } })));
    await verify(all, async () =>
      ok(await owner.patch(`/user_groups/${team}`, { can_manage_group: { new: { direct_members: [carol.userId], direct_subgroups: [leads] } } })),
    );
    await verify(all, async () => ok(await owner.patch(`/user_groups/${team}`, { can_mention_group: { new: sys['role:members'] } })));
  });

  it('members: added, removed, joining oneself', async () => {
    await verify(all, async () => ok(await owner.post(`/user_groups/${team}/members`, { add: [owner.userId], delete: [carol.userId] })));
    await verify(all, async () => ok(await carol.post(`/user_groups/${team}/members`, { add: [carol.userId] })));
    await verify(all, async () => ok(await owner.post(`/user_groups/${team}/members`, { delete: [bob.userId] })));
  });

  it('subgroups: added and removed', async () => {
    const extra = await create(owner, { name: 'extra', members: [guest.userId] });
    await verify(all, async () => ok(await owner.post(`/user_groups/${leads}/subgroups`, { add: [extra], delete: [team] })));
    await verify(all, async () => ok(await owner.post(`/user_groups/${leads}/members`, { add_subgroups: [team], delete_subgroups: [extra] })));
  });

  it('deactivating and reactivating a group', async () => {
    const gone = await create(owner, { name: 'short lived', members: [bob.userId] });
    await verify(all, async () => ok(await owner.post(`/user_groups/${gone}/deactivate`)));
    await verify(all, async () => ok(await owner.patch(`/user_groups/${gone}`, { deactivated: false })));
  });

  it('a group that administers a private channel: joining it shows the channel', async () => {
    const admins = await create(owner, { name: 'channel admins', members: [owner.userId] });
    ok(await owner.post('/users/me/subscriptions', {
      subscriptions: [{ name: 'vault' }],
      invite_only: true,
      can_administer_channel_group: { direct_members: [], direct_subgroups: [admins] },
    }));
    await verify(all, async () => ok(await owner.post(`/user_groups/${admins}/members`, { add: [bob.userId] })));
    await verify(all, async () => ok(await owner.post(`/user_groups/${admins}/members`, { delete: [bob.userId] })));
    await verify(all, async () => ok(await owner.post(`/user_groups/${team}/subgroups`, { add: [admins] })));
    await verify(all, async () => ok(await owner.post(`/user_groups/${admins}/members`, { add: [carol.userId] })));
  });
});
