// The apply-events property for users: creation, name and role changes by an administrator,
// deactivation and reactivation, a user's own settings (email visibility and time zone
// included), custom profile fields and their values, and alert words.
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Client } from '../helpers/client.js';
import { channelId, closeWatchers, newOrganization, ok, openWatchers, verify, type Watcher } from './support.js';

let subdomain: string;
let owner: Client;
let bob: Client;
let carol: Client;
let guest: Client;
let all: Watcher[];

beforeAll(async () => {
  ({ subdomain, owner, bob, carol, guest } = await newOrganization('apusr', ['bob', 'carol', 'guest']));
  // Shared channels: subscriber lists, and what the guest may know of others.
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }], principals: [owner.userId, bob.userId, carol.userId, guest.userId] }));
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'members' }], principals: [owner.userId, bob.userId, carol.userId] }));
  all = await openWatchers({ owner, bob, guest });
});

afterAll(() => closeWatchers(all));

describe('accounts', () => {
  it('an administrator creates a user', async () => {
    await verify(all, async () => ok(await owner.post('/users', { email: `dora@${subdomain}.test`, password: 'dora-password-1', full_name: 'Dora New' })));
  });

  it('a user joins through an invitation, into channels and a group', async () => {
    const lobby = await channelId(owner, 'lobby');
    const group = ok(await owner.post('/user_groups/create', { name: 'newcomers', description: '', members: [bob.userId] })).group_id;
    const invite = ok(await owner.post('/invites/multiuse', { stream_ids: [lobby], group_ids: [group], invite_as: 400 }));
    const key = new URL(invite.invite_link).pathname.split('/').filter(Boolean).pop();
    await verify(all, async () =>
      ok(await owner.anonymous().post('/register_with_invite', { key, email: `erin@${subdomain}.test`, password: 'erin-password-1', full_name: 'Erin Invited' })),
    );
  });

  it('an administrator renames a user', async () => {
    await verify(all, async () => ok(await owner.patch(`/users/${carol.userId}`, { full_name: 'Carol Renamed' })));
  });

  it('role changes of a bystander and of the watcher itself', async () => {
    await verify(all, async () => ok(await owner.patch(`/users/${carol.userId}`, { role: 300 })));
    await verify(all, async () => ok(await owner.patch(`/users/${bob.userId}`, { role: 300 })));
    await verify(all, async () => ok(await owner.patch(`/users/${bob.userId}`, { role: 200 })));
    await verify(all, async () => ok(await owner.patch(`/users/${bob.userId}`, { role: 400 })));
    await verify(all, async () => ok(await owner.patch(`/users/${carol.userId}`, { role: 400 })));
  });

  it('a guest becomes a member and a guest again', async () => {
    await verify(all, async () => ok(await owner.patch(`/users/${guest.userId}`, { role: 400 })));
    await verify(all, async () => ok(await owner.patch(`/users/${guest.userId}`, { role: 600 })));
  });

  it('deactivating and reactivating a user in channels, groups and settings', async () => {
    // Carol is a member of a group and named in anonymous group settings of the realm, of a
    // group and of a channel: all of them drop her and take her back.
    const fans = ok(await owner.post('/user_groups/create', { name: 'carol fans', description: '', members: [carol.userId, bob.userId] })).group_id;
    const named = { direct_members: [carol.userId], direct_subgroups: [fans] };
    ok(await owner.patch('/realm', { can_create_groups: { new: named } }));
    ok(await owner.patch(`/user_groups/${fans}`, { can_manage_group: { new: named } }));
    const lobby = await channelId(owner, 'lobby');
    ok(await owner.patch(`/streams/${lobby}`, { can_administer_channel_group: { new: named } }));
    await verify(all, async () => ok(await owner.delete(`/users/${carol.userId}`)));
    await verify(all, async () => ok(await owner.post(`/users/${carol.userId}/reactivate`)));
  });
});

describe('own settings', () => {
  it('full name and time zone', async () => {
    await verify(all, async () => ok(await bob.patch('/settings', { full_name: 'Bob Renamed' })));
    await verify(all, async () => ok(await bob.patch('/settings', { timezone: 'Europe/Paris' })));
  });

  it('email address visibility, down and back up', async () => {
    await verify(all, async () => ok(await bob.patch('/settings', { email_address_visibility: 3 })));
    await verify(all, async () => ok(await bob.patch('/settings', { email_address_visibility: 4 })));
    await verify(all, async () => ok(await bob.patch('/settings', { email_address_visibility: 1 })));
  });

  it('display and notification settings', async () => {
    await verify(all, async () => ok(await bob.patch('/settings', { twenty_four_hour_time: true, enter_sends: true })));
    await verify(all, async () => ok(await bob.patch('/settings', { default_language: 'de' })));
    await verify(all, async () => ok(await bob.patch('/settings', { enable_stream_desktop_notifications: true, notification_sound: 'ding' })));
    await verify(all, async () => ok(await bob.patch('/settings', { web_home_view: 'recent_topics', color_scheme: 2 })));
  });

  it('alert words', async () => {
    await verify(all, async () => ok(await bob.post('/users/me/alert_words', { alert_words: ['deploy', 'outage'] })));
    await verify(all, async () => ok(await bob.delete('/users/me/alert_words', { alert_words: ['deploy'] })));
  });
});

describe('custom profile fields', () => {
  let field: number;
  let choice: number;

  it('creating fields', async () => {
    field = (await verify(all, async () => ok(await owner.post('/realm/profile_fields', { name: 'Team', hint: 'Your team', field_type: 1 })))).result.id;
    choice = (await verify(all, async () =>
      ok(await owner.post('/realm/profile_fields', { name: 'Office', field_type: 3, field_data: { a: { text: 'North', order: '1' }, b: { text: 'South', order: '2' } } })),
    )).result.id;
  });

  it('values set by users and by an administrator', async () => {
    await verify(all, async () => ok(await bob.patch('/users/me/profile_data', { data: [{ id: field, value: 'Platform' }, { id: choice, value: 'a' }] })));
    await verify(all, async () => ok(await owner.patch(`/users/${guest.userId}`, { profile_data: [{ id: field, value: 'Visitors' }] })));
    await verify(all, async () => ok(await bob.delete('/users/me/profile_data', { data: [field] })));
  });

  it('editing, reordering and deleting fields', async () => {
    await verify(all, async () => ok(await owner.patch(`/realm/profile_fields/${field}`, { name: 'Squad', hint: 'Which squad' })));
    await verify(all, async () => ok(await owner.patch('/realm/profile_fields', { order: [choice, field] })));
    await verify(all, async () => ok(await owner.delete(`/realm/profile_fields/${choice}`)));
  });
});
