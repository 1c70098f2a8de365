// POST /register writes realm_users from JSON text kept per user between calls: each entry
// must be the User object GET /users/{id} gives the same viewer (less is_active), follow
// changes, and differ by viewer and client_gravatar where the API says it does.
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, newUser } from '../helpers/client.js';
import { ok, type Json } from './channels-helpers.js';

let owner: Client;
let member: Client;
let other: Client;

beforeAll(async () => {
  let subdomain: string;
  ({ owner, subdomain } = await newRealm('regtext'));
  member = await newUser(subdomain, 'Tess Text');
  other = await newUser(subdomain, 'Otto Other');
});

const entry = async (viewer: Client, userId: number, clientGravatar: boolean): Promise<Json> => {
  const state = ok(await viewer.post('/register', { fetch_event_types: ['realm_user'], client_gravatar: clientGravatar }));
  return (state.realm_users as Json[]).find((u) => u.user_id === userId)!;
};

const fromUsers = async (viewer: Client, userId: number, clientGravatar: boolean): Promise<Json> => {
  const user = ok(await viewer.get(`/users/${userId}`, { client_gravatar: clientGravatar, include_custom_profile_fields: true })).user as Json;
  delete user.is_active;
  return user;
};

describe('realm_users in register', () => {
  it('matches GET /users/{id} for each viewer and client_gravatar, with hidden emails', async () => {
    // Only administrators see Tess's address.
    ok(await member.patch('/settings', { email_address_visibility: 3 }));
    for (const viewer of [owner, member, other]) {
      for (const gravatar of [true, false]) {
        expect(await entry(viewer, member.userId!, gravatar)).toEqual(await fromUsers(viewer, member.userId!, gravatar));
      }
    }
    expect((await entry(other, member.userId!, true)).delivery_email).toBeNull();
    expect((await entry(owner, member.userId!, true)).delivery_email).not.toBeNull();
    // `email` is a placeholder, so even the administrator gets the URL under client_gravatar.
    expect((await entry(owner, member.userId!, true)).avatar_url).toEqual(expect.stringContaining('gravatar'));
    expect((await entry(owner, owner.userId!, true)).avatar_url).toBeNull();
  });

  it('follows name and profile data changes', async () => {
    ok(await member.patch('/settings', { full_name: 'Tess Renamed' }));
    expect((await entry(other, member.userId!, true)).full_name).toBe('Tess Renamed');

    const field = ok(await owner.post('/realm/profile_fields', { name: 'Desk', field_type: 1 })).id as number;
    ok(await member.patch('/users/me/profile_data', { data: [{ id: field, value: 'B-12' }] }));
    expect(((await entry(other, member.userId!, true)).profile_data as Json)[field]).toMatchObject({ value: 'B-12' });
    ok(await member.patch('/users/me/profile_data', { data: [{ id: field, value: 'C-3' }] }));
    expect(((await entry(other, member.userId!, true)).profile_data as Json)[field]).toMatchObject({ value: 'C-3' });
    expect(await entry(other, member.userId!, true)).toEqual(await fromUsers(other, member.userId!, true));
  });
});
