// PATCH /settings: personal settings, name, time zone, email visibility, password; and the
// events each change causes, to the right audience only.
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, newUser } from '../helpers/client.js';
import { eventsNow, eventsOfType, queueFor, register } from './events-support.js';

let owner: Client;
let bob: Client;
let carol: Client;
let guest: Client;
let stranger: Client;
let subdomain: string;

beforeAll(async () => {
  const realm = await newRealm('set');
  owner = realm.owner;
  subdomain = realm.subdomain;
  bob = await newUser(subdomain, 'Bob Builder');
  carol = await newUser(subdomain, 'Carol Clark');
  guest = await newUser(subdomain, 'Gus Guest', 600);
  stranger = (await newRealm('setx')).owner;
});

const modern = { client_capabilities: { user_settings_object: true } };

describe('personal settings', () => {
  it('change, show in the next register, and announce themselves to the user only', async () => {
    const mine = await queueFor(bob, modern);
    const legacy = await queueFor(bob);
    const others = await queueFor(carol);
    const r = await bob.patch('/settings', { twenty_four_hour_time: true, color_scheme: 2, web_home_view: 'recent_topics' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: 'success', msg: '' });

    const byProperty = (a: { property?: string; setting_name?: string }, b: typeof a) =>
      String(a.property ?? a.setting_name).localeCompare(String(b.property ?? b.setting_name));
    const events = (await eventsOfType(bob, mine, 'user_settings')).sort(byProperty);
    expect(events.map(({ id: _id, ...e }) => e)).toEqual([
      { type: 'user_settings', op: 'update', property: 'color_scheme', value: 2 },
      { type: 'user_settings', op: 'update', property: 'twenty_four_hour_time', value: true },
      { type: 'user_settings', op: 'update', property: 'web_home_view', value: 'recent_topics' },
    ]);
    expect(await eventsOfType(bob, mine, 'update_display_settings')).toEqual([]);
    const old = (await eventsOfType(bob, legacy, 'update_display_settings')).sort(byProperty);
    expect(old.map((e) => [e.setting_name, e.setting, e.user])).toEqual([
      ['color_scheme', 2, bob.email],
      ['twenty_four_hour_time', true, bob.email],
      ['web_home_view', 'recent_topics', bob.email],
    ]);
    expect(await eventsNow(carol, others)).toEqual([]);

    const state = await register(bob, { fetch_event_types: ['user_settings'] });
    expect(state.user_settings).toMatchObject({ twenty_four_hour_time: true, color_scheme: 2, web_home_view: 'recent_topics' });
  });

  it('announce notification settings in the legacy notification form', async () => {
    const legacy = await queueFor(bob);
    await bob.patch('/settings', { enable_sounds: false, notification_sound: 'ding', send_read_receipts: false });
    const events = await eventsNow(bob, legacy);
    const legacyNames = events.filter((e) => e.type === 'update_global_notifications').map((e) => [e.notification_name, e.setting]);
    expect(legacyNames.sort()).toEqual([
      ['enable_sounds', false],
      ['notification_sound', 'ding'],
    ]);
    // Settings newer than the user_settings event have no legacy form.
    expect(events.filter((e) => e.type === 'user_settings').map((e) => e.property).sort()).toEqual([
      'enable_sounds',
      'notification_sound',
      'send_read_receipts',
    ]);
  });

  it('name the language of default_language', async () => {
    const q = await queueFor(bob);
    await bob.patch('/settings', { default_language: 'de' });
    const [event] = await eventsOfType(bob, q, 'user_settings');
    expect(event).toMatchObject({ property: 'default_language', value: 'de', language_name: 'Deutsch' });
    const [legacy] = await eventsOfType(bob, q, 'update_display_settings');
    expect(legacy).toMatchObject({ setting_name: 'default_language', setting: 'de', language_name: 'Deutsch' });
  });

  it('send nothing for an unchanged value', async () => {
    await bob.patch('/settings', { fluid_layout_width: true });
    const q = await queueFor(bob);
    expect((await bob.patch('/settings', { fluid_layout_width: true })).status).toBe(200);
    expect(await eventsNow(bob, q)).toEqual([]);
  });

  it('refuse values of the wrong type or outside the allowed ones, changing nothing', async () => {
    const q = await queueFor(bob);
    const cases: [Record<string, unknown>, string][] = [
      [{ color_scheme: 7 }, 'Invalid color_scheme'],
      [{ enter_sends: 'maybe' }, 'enter_sends is not a boolean'],
      [{ web_home_view: 'nowhere' }, 'Invalid web_home_view'],
      [{ emojiset: 'comic' }, 'Invalid emojiset'],
      [{ default_language: 'xx' }, 'Invalid default_language'],
      [{ notification_sound: 'gong' }, "Invalid notification sound 'gong'"],
      [{ email_notifications_batching_period_seconds: 0 }, 'Invalid email batching period: 0 seconds'],
      [{ email_address_visibility: 9 }, 'Invalid email_address_visibility'],
      [{ timezone: 'Mars/Olympus_Mons' }, 'timezone is not a recognized time zone'],
      [{ user_list_style: 'one' }, 'user_list_style is not an integer'],
      [{ enter_sends: true, desktop_icon_count_display: 8 }, 'Invalid desktop_icon_count_display'],
    ];
    for (const [params, msg] of cases) {
      const r = await bob.patch('/settings', params);
      expect(r.status, JSON.stringify(params)).toBe(400);
      expect(r.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg });
    }
    expect(await eventsNow(bob, q)).toEqual([]);
    const state = await register(bob, { fetch_event_types: ['user_settings'] });
    expect(state.user_settings.enter_sends).toBe(false);
  });

  it('report unknown parameters as ignored', async () => {
    const r = await bob.patch('/settings', { not_a_setting: true });
    expect(r.status).toBe(200);
    expect(r.body.ignored_parameters_unsupported).toEqual(['not_a_setting']);
  });
});

describe('full_name', () => {
  it('changes the name and tells everyone in the realm who can see the user', async () => {
    const queues = await Promise.all([owner, carol, guest, stranger].map((c) => queueFor(c)));
    const r = await bob.patch('/settings', { full_name: '  Robert Builder ' });
    expect(r.status).toBe(200);
    const [ownerQ, carolQ, guestQ, strangerQ] = queues as [string, string, string, string];
    for (const [c, q] of [[owner, ownerQ], [carol, carolQ], [guest, guestQ]] as const) {
      expect(await eventsOfType(c, q, 'realm_user')).toEqual([
        { type: 'realm_user', op: 'update', person: { user_id: bob.userId, full_name: 'Robert Builder' }, id: 0 },
      ]);
    }
    expect(await eventsNow(stranger, strangerQ)).toEqual([]);
    expect((await owner.get(`/users/${bob.userId}`)).body.user.full_name).toBe('Robert Builder');
  });

  it('checks the name', async () => {
    for (const [name, msg] of [
      ['', 'Name too short!'],
      ['x'.repeat(101), 'Name too long!'],
      ['Bob *bold*', 'Invalid characters in name!'],
      ['Bob|12', 'Invalid format!'],
    ]) {
      const r = await bob.patch('/settings', { full_name: name });
      expect(r.status, name).toBe(400);
      expect(r.body.msg).toBe(msg);
    }
  });

  it('is silently kept when the organization disabled name changes (administrators excepted)', async () => {
    expect((await owner.patch('/realm', { name_changes_disabled: true })).status).toBe(200);
    try {
      expect((await carol.patch('/settings', { full_name: 'Caroline' })).status).toBe(200);
      expect((await carol.get('/users/me')).body.full_name).toBe('Carol Clark');
      expect((await owner.patch('/settings', { full_name: 'Olivia Boss' })).status).toBe(200);
      expect((await owner.get('/users/me')).body.full_name).toBe('Olivia Boss');
    } finally {
      await owner.patch('/realm', { name_changes_disabled: false });
    }
  });
});

describe('timezone', () => {
  it('announces itself to the user and the new zone to everyone', async () => {
    const mine = await queueFor(carol);
    const other = await queueFor(owner);
    expect((await carol.patch('/settings', { timezone: 'Europe/Berlin' })).status).toBe(200);
    const own = await eventsNow(carol, mine);
    expect(own.find((e) => e.type === 'user_settings')).toMatchObject({ property: 'timezone', value: 'Europe/Berlin' });
    expect(own.find((e) => e.type === 'update_display_settings')).toMatchObject({ setting_name: 'timezone', setting: 'Europe/Berlin' });
    const [update] = await eventsOfType(owner, other, 'realm_user');
    expect(update!.person).toEqual({ user_id: carol.userId, email: carol.email, timezone: 'Europe/Berlin' });
    expect((await owner.get(`/users/${carol.userId}`)).body.user.timezone).toBe('Europe/Berlin');
  });
});

describe('email_address_visibility', () => {
  it('hides the real address from those who lose access and changes the API email', async () => {
    const [ownerQ, bobQ, guestQ] = await Promise.all([owner, bob, guest].map((c) => queueFor(c)));
    expect((await carol.patch('/settings', { email_address_visibility: 3 })).status).toBe(200);
    const placeholder = new RegExp(`^user${carol.userId}@`);

    const ownerEvents = (await eventsOfType(owner, ownerQ!, 'realm_user')).map((e) => e.person);
    // An administrator keeps access: no delivery_email change, but the API email changed.
    expect(ownerEvents.find((p) => 'delivery_email' in p)).toBeUndefined();
    expect(ownerEvents.find((p) => 'new_email' in p)).toMatchObject({ user_id: carol.userId, new_email: expect.stringMatching(placeholder) });
    expect(ownerEvents.find((p) => 'avatar_url' in p)).toMatchObject({ user_id: carol.userId, avatar_version: expect.any(Number) });

    for (const [c, q] of [[bob, bobQ!], [guest, guestQ!]] as const) {
      const persons = (await eventsOfType(c, q, 'realm_user')).map((e) => e.person);
      expect(persons).toContainEqual({ user_id: carol.userId, delivery_email: null });
      expect(persons).toContainEqual({ user_id: carol.userId, new_email: expect.stringMatching(placeholder) });
    }
    expect((await bob.get(`/users/${carol.userId}`)).body.user).toMatchObject({ delivery_email: null, email: expect.stringMatching(placeholder) });
    expect((await owner.get(`/users/${carol.userId}`)).body.user.delivery_email).toBe(carol.email);

    // Back to everyone: those who lost access get the address again.
    const bobQ2 = await queueFor(bob);
    await carol.patch('/settings', { email_address_visibility: 1 });
    const persons = (await eventsOfType(bob, bobQ2, 'realm_user')).map((e) => e.person);
    expect(persons).toContainEqual({ user_id: carol.userId, delivery_email: carol.email });
    expect(persons).toContainEqual({ user_id: carol.userId, new_email: carol.email });
  });
});

describe('password', () => {
  it('needs the old password and a strong enough new one', async () => {
    const wrong = await carol.patch('/settings', { old_password: 'nope-nope', new_password: 'another-password-2' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.msg).toBe('Wrong password!');
    const weak = await carol.patch('/settings', { old_password: 'user-password-1', new_password: 'abc' });
    expect(weak.body.msg).toBe('New password is too weak!');
    const ok = await carol.patch('/settings', { old_password: 'user-password-1', new_password: 'another-password-2' });
    expect(ok.status).toBe(200);
    const login = await carol.anonymous().post('/fetch_api_key', { username: carol.email, password: 'another-password-2' });
    expect(login.status).toBe(200);
    expect(login.body.api_key).toBe(carol.apiKey);
    const old = await carol.anonymous().post('/fetch_api_key', { username: carol.email, password: 'user-password-1' });
    expect(old.status).toBe(401);
  });
});

describe('a realm where guests see only the users they share a channel with', () => {
  it('keeps changes of other users from guests who cannot see them', async () => {
    const groups = (await owner.get('/user_groups')).body.user_groups as { id: number; name: string }[];
    const members = groups.find((g) => g.name === 'role:members')!.id;
    const set = await owner.patch('/realm', { can_access_all_users_group: { new: members } });
    expect(set.status).toBe(200);
    try {
      const guestQ = await queueFor(guest);
      const ownerQ = await queueFor(owner);
      await bob.patch('/settings', { full_name: 'Bobby Builder' });
      expect(await eventsOfType(guest, guestQ, 'realm_user')).toEqual([]);
      expect((await eventsOfType(owner, ownerQ, 'realm_user')).map((e) => e.person)).toEqual([{ user_id: bob.userId, full_name: 'Bobby Builder' }]);
      // A client that lists only the users in sight (user_list_incomplete) sees itself alone.
      const inSight = await register(guest, { fetch_event_types: ['realm_user'], client_capabilities: { user_list_incomplete: true } });
      expect(inSight.realm_users.map((u: { user_id: number }) => u.user_id)).toEqual([guest.userId]);
      // One that lists everyone gets the others as Zulip's "Unknown user", the new name nowhere.
      const all = (await register(guest, { fetch_event_types: ['realm_user'] })).realm_users as { user_id: number; full_name: string }[];
      expect(all.map((u) => u.user_id)).toContain(bob.userId);
      const others = all.filter((u) => u.user_id !== guest.userId);
      expect(others.length).toBeGreaterThan(0);
      expect(others.every((u) => u.full_name === 'Unknown user')).toBe(true);
    } finally {
      await owner.patch('/realm', { can_access_all_users_group: { new: groups.find((g) => g.name === 'role:everyone')!.id } });
    }
  });
});
