// POST /register keeps realm_users and realm_non_active_users as UTF-8 bytes between calls,
// one copy per viewer email class and client_gravatar, with the caller's own entry put in its
// place. The lists must follow every change that shows in them, give each viewer the emails
// its role may see (and the caller its own), leave a guest limited by
// can_access_all_users_group with its own lists, and the body must be, byte for byte, what
// JSON.stringify of the whole answer gives.
import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, newUser, port } from '../helpers/client.js';
import { ok, type Json } from './channels-helpers.js';

let owner: Client;
let subdomain: string;
let moderator: Client;
let mia: Client; // a member whose address only administrators see
let max: Client; // another member

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('regbytes'));
  moderator = await newUser(subdomain, 'Moe Moderator', 300);
  mia = await newUser(subdomain, 'Mia Member');
  max = await newUser(subdomain, 'Max Member');
  for (const c of [moderator, mia, max]) ok(await c.get('/users/me'));
  ok(await mia.patch('/settings', { email_address_visibility: 3 }));
});

const register = async (viewer: Client, params: Json = {}): Promise<Json> =>
  ok(await viewer.post('/register', { fetch_event_types: ['realm_user'], ...params }));

/** Every listed user by id, with the list it is in. */
const listed = (state: Json): Map<number, Json> => {
  const out = new Map<number, Json>();
  for (const u of state.realm_users as Json[]) out.set(u.user_id, { ...u, is_active: true });
  for (const u of state.realm_non_active_users as Json[]) out.set(u.user_id, { ...u, is_active: false });
  return out;
};

/** The register lists of `viewer` are what GET /users/{id} gives that viewer for each user. */
async function expectListsMatchUsers(viewer: Client, clientGravatar = true): Promise<Map<number, Json>> {
  const users = listed(await register(viewer, { client_gravatar: clientGravatar }));
  for (const [id, entry] of users) {
    const single = ok(await viewer.get(`/users/${id}`, { client_gravatar: clientGravatar, include_custom_profile_fields: true })).user as Json;
    expect(entry, `user ${id} as seen by ${viewer.email}`).toEqual(single);
  }
  return users;
}

/** The raw bytes of a full register answer. */
function rawRegister(viewer: Client): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const body = 'client_gravatar=false';
    const req = http.request(
      {
        host: '127.0.0.1',
        port: port(),
        method: 'POST',
        path: '/api/v1/register',
        headers: {
          Host: `${subdomain}.localhost:${port()}`,
          Authorization: 'Basic ' + Buffer.from(`${viewer.email}:${viewer.apiKey}`).toString('base64'),
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          expect(res.statusCode).toBe(200);
          expect(Number(res.headers['content-length'])).toBe(bytes.length);
          resolve(bytes);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('register user lists kept as bytes', () => {
  it('give each viewer class the emails it may see, and each caller its own', async () => {
    // Max registers first: the member class's lists are made while he is the caller.
    let seen = await expectListsMatchUsers(max);
    expect(seen.get(mia.userId!)!.delivery_email).toBeNull();
    expect(seen.get(max.userId!)!.delivery_email).toBe(max.email);
    // Mia gets the same class's lists, with her own address in her entry.
    seen = await expectListsMatchUsers(mia);
    expect(seen.get(mia.userId!)!.delivery_email).toBe(mia.email);
    // …which did not leak into the lists kept for the class.
    seen = await expectListsMatchUsers(max);
    expect(seen.get(mia.userId!)!.delivery_email).toBeNull();
    // A moderator does not see it; the owner (an administrator) does.
    seen = await expectListsMatchUsers(moderator);
    expect(seen.get(mia.userId!)!.delivery_email).toBeNull();
    seen = await expectListsMatchUsers(owner);
    expect(seen.get(mia.userId!)!.delivery_email).toBe(mia.email);
    // client_gravatar makes its own variant.
    seen = await expectListsMatchUsers(owner, false);
    expect(seen.get(owner.userId!)!.avatar_url).toEqual(expect.stringContaining('gravatar'));
    seen = await expectListsMatchUsers(owner, true);
    expect(seen.get(owner.userId!)!.avatar_url).toBeNull();
  });

  it('follow name, role, email visibility and deactivation changes', async () => {
    const u = await newUser(subdomain, 'Cy Changing');
    ok(await u.get('/users/me'));
    // Lists kept for members and administrators before each change.
    await register(max);
    await register(owner);

    ok(await u.patch('/settings', { full_name: 'Cy Renamed' }));
    expect(listed(await register(max)).get(u.userId!)).toMatchObject({ full_name: 'Cy Renamed' });

    ok(await owner.patch(`/users/${u.userId}`, { role: 300 }));
    expect(listed(await register(max)).get(u.userId!)).toMatchObject({ role: 300, is_admin: false });
    await expectListsMatchUsers(max);

    expect(listed(await register(max)).get(u.userId!)!.delivery_email).toBe(u.email);
    ok(await u.patch('/settings', { email_address_visibility: 5 })); // moderators
    expect(listed(await register(max)).get(u.userId!)!.delivery_email).toBeNull();
    expect(listed(await register(moderator)).get(u.userId!)!.delivery_email).toBe(u.email);
    await expectListsMatchUsers(max);

    ok(await owner.delete(`/users/${u.userId}`));
    const state = await register(max);
    expect((state.realm_users as Json[]).map((p) => p.user_id)).not.toContain(u.userId);
    expect((state.realm_non_active_users as Json[]).map((p) => p.user_id)).toContain(u.userId);
    await expectListsMatchUsers(owner);
  });

  it('brought up to date after user changes are what lists made whole give, in order', async () => {
    const early = await newUser(subdomain, 'Ann Early');
    const late = await newUser(subdomain, 'Zed Late');
    const promoted = await newUser(subdomain, 'Pat Promoted');
    for (const c of [early, late, promoted]) ok(await c.get('/users/me'));
    // Lists kept for members and administrators, then several users change.
    await register(max);
    await register(owner, { client_gravatar: false });
    ok(await early.patch('/settings', { full_name: 'Ann Renamed' }));
    ok(await owner.delete(`/users/${late.userId}`));
    ok(await owner.post(`/users/${late.userId}/reactivate`));
    ok(await owner.delete(`/users/${early.userId}`));
    const fresh = await newUser(subdomain, 'Fay Fresh');
    ok(await fresh.get('/users/me'));
    ok(await owner.patch(`/users/${promoted.userId}`, { role: 300 }));
    const lists = (state: Json) => ({ active: state.realm_users as Json[], inactive: state.realm_non_active_users as Json[] });
    const patchedMember = lists(await register(max));
    const patchedAdmin = lists(await register(owner, { client_gravatar: false }));

    // A new custom profile field (no values yet) changes no entry but makes every list whole again.
    const wholeAgain = async () => {
      const field = ok(await owner.post('/realm/profile_fields', { name: 'Desk', field_type: 1 })).id as number;
      try {
        return { member: lists(await register(max)), admin: lists(await register(owner, { client_gravatar: false })) };
      } finally {
        ok(await owner.delete(`/realm/profile_fields/${field}`));
      }
    };
    expect({ member: patchedMember, admin: patchedAdmin }).toEqual(await wholeAgain());

    // One user amid others changes: the entries after it are kept too.
    await register(max);
    await register(owner, { client_gravatar: false });
    ok(await late.patch('/settings', { full_name: 'Zed Renamed' }));
    const patchedAgain = { member: lists(await register(max)), admin: lists(await register(owner, { client_gravatar: false })) };
    expect(patchedAgain.member.active.find((u) => u.user_id === late.userId)).toMatchObject({ full_name: 'Zed Renamed' });
    expect(patchedAgain).toEqual(await wholeAgain());
    const ids = (l: Json[]) => l.map((u) => u.user_id as number);
    for (const l of [patchedMember.active, patchedMember.inactive]) expect(ids(l)).toEqual([...ids(l)].sort((a, b) => a - b));
    expect(ids(patchedMember.active)).toEqual(expect.arrayContaining([late.userId, fresh.userId]));
    expect(ids(patchedMember.inactive)).toContain(early.userId);
    expect(ids(patchedMember.active)).not.toContain(early.userId);
    expect(patchedMember.inactive.find((u) => u.user_id === early.userId)).toMatchObject({ full_name: 'Ann Renamed' });
  });

  it('follow custom profile fields and values as they are added, changed and removed', async () => {
    await register(max);
    const field = ok(await owner.post('/realm/profile_fields', { name: 'Room', field_type: 1 })).id as number;
    expect(listed(await register(max)).get(mia.userId!)!.profile_data).toEqual({});

    ok(await mia.patch('/users/me/profile_data', { data: [{ id: field, value: 'R-1' }] }));
    expect((listed(await register(max)).get(mia.userId!)!.profile_data as Json)[field]).toMatchObject({ value: 'R-1' });
    ok(await mia.patch('/users/me/profile_data', { data: [{ id: field, value: 'R-2' }] }));
    expect((listed(await register(max)).get(mia.userId!)!.profile_data as Json)[field]).toMatchObject({ value: 'R-2' });
    await expectListsMatchUsers(max);

    // A second field: its value shows beside the first.
    const other = ok(await owner.post('/realm/profile_fields', { name: 'Team', field_type: 1 })).id as number;
    ok(await owner.patch(`/users/${mia.userId}`, { profile_data: [{ id: other, value: 'Blue' }] }));
    expect(Object.keys(listed(await register(max)).get(mia.userId!)!.profile_data as Json).sort()).toEqual([String(field), String(other)].sort());

    // Removing a field removes its values from every list.
    ok(await owner.delete(`/realm/profile_fields/${field}`));
    expect(Object.keys(listed(await register(max)).get(mia.userId!)!.profile_data as Json)).toEqual([String(other)]);
    await expectListsMatchUsers(owner);
  });

  it('are not shared with a guest who sees only some users', async () => {
    const realm = await newRealm('regbytesg');
    const bob = await newUser(realm.subdomain, 'Bob Seen');
    const carol = await newUser(realm.subdomain, 'Carol Unseen');
    const guest = await newUser(realm.subdomain, 'Gil Guest', 600);
    const other = await newUser(realm.subdomain, 'Gwen Guest', 600);
    for (const c of [bob, carol, guest, other]) ok(await c.get('/users/me'));
    // A guest who sees everyone: the guest class's lists are kept.
    let seen = await expectListsMatchUsers(other);
    expect(seen.has(carol.userId!)).toBe(true);
    await register(realm.owner);

    const members = (ok(await realm.owner.get('/user_groups')).user_groups as Json[]).find((g) => g.name === 'role:members')!.id as number;
    ok(await realm.owner.patch('/realm', { can_access_all_users_group: { new: members } }));
    ok(await realm.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'with guest' }], principals: [bob.userId, guest.userId] }));
    // A client that lists only users in sight: the others are left out.
    seen = listed(await register(guest, { client_capabilities: { user_list_incomplete: true } }));
    expect(seen.has(guest.userId!) && seen.has(bob.userId!)).toBe(true);
    expect(seen.has(carol.userId!) || seen.has(other.userId!)).toBe(false);
    expect(seen.get(bob.userId!)).toMatchObject({ full_name: 'Bob Seen' });
    expect(JSON.stringify([...seen.values()])).not.toContain('Carol');
    // One that lists everyone: the others are placeholders.
    seen = listed(await register(guest));
    expect(seen.get(carol.userId!)).toMatchObject({ full_name: 'Unknown user', is_active: true });
    expect(seen.get(other.userId!)).toMatchObject({ full_name: 'Unknown user', is_active: true });
    expect(seen.get(bob.userId!)).toMatchObject({ full_name: 'Bob Seen' });
    expect(JSON.stringify([...seen.values()])).not.toContain('Carol');
    // Members still see everyone.
    expect(listed(await register(bob)).has(carol.userId!)).toBe(true);
  });

  it('make a body that is byte for byte what JSON.stringify gives for the answer', async () => {
    // A name and a profile value outside ASCII, in a user not first or last in the lists.
    ok(await max.patch('/settings', { full_name: 'Max Müller ✔ 日本' }));
    for (const viewer of [owner, mia, max, moderator]) {
      // Twice: once making the lists, once from those kept.
      for (let i = 0; i < 2; i++) {
        const bytes = await rawRegister(viewer);
        const text = bytes.toString('utf8');
        expect(text.endsWith('}\n')).toBe(true);
        const parsed = JSON.parse(text) as Json;
        expect(Buffer.from(JSON.stringify(parsed) + '\n', 'utf8').equals(bytes)).toBe(true);
        expect((parsed.realm_users as Json[]).find((u) => u.user_id === max.userId)!.full_name).toBe('Max Müller ✔ 日本');
        expect((parsed.realm_users as Json[]).find((u) => u.user_id === viewer.userId)!.delivery_email).toBe(viewer.email);
      }
    }
  });
});
