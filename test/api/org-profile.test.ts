import { beforeAll, describe, expect, it } from 'vitest';
import { newRealm, type Client } from '../helpers/client.js';
import { drain, expectError, expectSuccess, knownUser, openQueue } from './org-helpers.js';

let owner: Client;
let subdomain: string;
let admin: Client;
let member: Client;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('orgprof'));
  admin = await knownUser(subdomain, 'Ada Admin', 200);
  member = await knownUser(subdomain, 'Moe Member');
});

async function createField(params: Record<string, unknown>): Promise<number> {
  return expectSuccess(await admin.post('/realm/profile_fields', params)).id as number;
}

const CHOICES = { '0': { text: 'Red', order: '1' }, '1': { text: 'Blue', order: '2' } };

describe('creating fields', () => {
  it('supports all eight types and announces the field list', async () => {
    const q = await openQueue(member, { event_types: ['custom_profile_fields'] });
    const ids = {
      short: await createField({ name: 'Role', hint: 'What you do', field_type: 1 }),
      long: await createField({ name: 'Bio', field_type: 2 }),
      select: await createField({ name: 'Colour', field_type: 3, field_data: CHOICES }),
      date: await createField({ name: 'Birthday', field_type: 4 }),
      url: await createField({ name: 'Website', field_type: 5 }),
      user: await createField({ name: 'Manager', field_type: 6 }),
      github: await createField({ field_type: 7, field_data: { subtype: 'github' } }),
      pronouns: await createField({ name: 'Pronouns', field_type: 8 }),
    };
    const events = await drain(q);
    expect(events).toHaveLength(8);
    expect(events[7]).toMatchObject({ type: 'custom_profile_fields' });
    expect(events[7]!.fields).toHaveLength(8);
    const list = expectSuccess(await member.get('/realm/profile_fields')).custom_fields as Record<string, unknown>[];
    expect(list.map((f) => f.id)).toEqual(Object.values(ids));
    expect(list[0]).toEqual({ id: ids.short, name: 'Role', type: 1, hint: 'What you do', field_data: '', order: 0, required: false, editable_by_user: true });
    expect(JSON.parse(list[2]!.field_data as string)).toEqual(CHOICES);
    expect(list[6]).toMatchObject({ name: 'GitHub', type: 7 });
    const reg = expectSuccess(await member.post('/register', { fetch_event_types: ['custom_profile_fields'] }));
    expect(reg.custom_profile_fields).toHaveLength(8);
    expect(reg.custom_profile_field_types.PRONOUNS).toEqual({ id: 8, name: 'Pronouns' });
  });

  it('is for administrators, with valid definitions', async () => {
    expectError(await member.post('/realm/profile_fields', { name: 'Mine', field_type: 1 }), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectError(await admin.post('/realm/profile_fields', { name: 'Bad type', field_type: 9 }), 400, 'BAD_REQUEST', 'Invalid field type.');
    expectError(await admin.post('/realm/profile_fields', { name: '', field_type: 1 }), 400, 'BAD_REQUEST', 'Label cannot be blank.');
    expectError(await admin.post('/realm/profile_fields', { name: 'role', field_type: 1 }), 400, 'BAD_REQUEST', 'A field with that label already exists.');
    expectError(await admin.post('/realm/profile_fields', { name: 'Empty', field_type: 3, field_data: {} }), 400, 'BAD_REQUEST', 'Field must have at least one choice.');
    expectError(await admin.post('/realm/profile_fields', { name: 'Broken', field_type: 3, field_data: { a: { text: 'x' } } }), 400, 'BAD_REQUEST');
    expectError(await admin.post('/realm/profile_fields', { name: 'Acct', field_type: 7, field_data: { subtype: 'myspace' } }), 400, 'BAD_REQUEST', 'Invalid external account type');
    expectError(await admin.post('/realm/profile_fields', { name: 'Acct', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://x.test/user' } }), 400, 'BAD_REQUEST', 'Malformed URL pattern.');
    await createField({ name: 'Mastodon', field_type: 7, field_data: { subtype: 'custom', url_pattern: 'https://social.test/@%(username)s' } });
  });

  it('shows at most two fields in the profile summary, never long text or person pickers', async () => {
    expectError(await admin.post('/realm/profile_fields', { name: 'Essay', field_type: 2, display_in_profile_summary: true }), 400, 'BAD_REQUEST', 'Field type not supported for display in profile summary.');
    expectError(await admin.post('/realm/profile_fields', { name: 'Buddy', field_type: 6, display_in_profile_summary: true }), 400, 'BAD_REQUEST');
    const a = await createField({ name: 'Team', field_type: 1, display_in_profile_summary: true });
    await createField({ name: 'Office', field_type: 1, display_in_profile_summary: true });
    expectError(await admin.post('/realm/profile_fields', { name: 'Floor', field_type: 1, display_in_profile_summary: true }), 400, 'BAD_REQUEST', 'Only 2 custom profile fields can be displayed in the profile summary.');
    const listed = (expectSuccess(await member.get('/realm/profile_fields')).custom_fields as Record<string, unknown>[]).find((f) => f.id === a);
    expect(listed!.display_in_profile_summary).toBe(true);
    expectSuccess(await admin.patch(`/realm/profile_fields/${a}`, { display_in_profile_summary: false }));
    await createField({ name: 'Floor', field_type: 1, display_in_profile_summary: true });
  });
});

describe('editing fields', () => {
  it('renames, reorders and deletes, in this realm only', async () => {
    const id = await createField({ name: 'Temp', field_type: 1 });
    expectSuccess(await admin.patch(`/realm/profile_fields/${id}`, { name: 'Temporary', hint: 'soon gone' }));
    let list = expectSuccess(await member.get('/realm/profile_fields')).custom_fields as { id: number; name: string }[];
    expect(list.find((f) => f.id === id)!.name).toBe('Temporary');
    const reversed = list.map((f) => f.id).reverse();
    expectError(await admin.patch('/realm/profile_fields', { order: reversed.slice(1) }), 400, 'BAD_REQUEST', 'Invalid order mapping.');
    expectSuccess(await admin.patch('/realm/profile_fields', { order: reversed }));
    list = expectSuccess(await member.get('/realm/profile_fields')).custom_fields;
    expect(list.map((f) => f.id)).toEqual(reversed);

    const other = await newRealm('orgprofx');
    const foreign = expectSuccess(await other.owner.post('/realm/profile_fields', { name: 'Foreign', field_type: 1 })).id;
    expectError(await owner.delete(`/realm/profile_fields/${foreign}`), 400, 'BAD_REQUEST', `Field id ${foreign} not found.`);
    expectError(await owner.patch(`/realm/profile_fields/${foreign}`, { name: 'Mine' }), 400, 'BAD_REQUEST');
    expect(expectSuccess(await other.owner.get('/realm/profile_fields')).custom_fields).toHaveLength(1);

    expectError(await member.delete(`/realm/profile_fields/${id}`), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectSuccess(await admin.delete(`/realm/profile_fields/${id}`));
    list = expectSuccess(await member.get('/realm/profile_fields')).custom_fields;
    expect(list.map((f) => f.id)).not.toContain(id);
  });
});

describe("users' values", () => {
  const byName = async (name: string) =>
    ((expectSuccess(await member.get('/realm/profile_fields')).custom_fields as { id: number; name: string }[]).find((f) => f.name === name)!).id;

  it('are set by users, validated by type, and announced', async () => {
    const [role, colour, birthday, website, manager, bio] = await Promise.all(['Role', 'Colour', 'Birthday', 'Website', 'Manager', 'Bio'].map(byName));
    const q = await openQueue(owner, { event_types: ['realm_user'] });
    expectSuccess(await member.patch('/users/me/profile_data', {
      data: [
        { id: role, value: 'Engineer' },
        { id: colour, value: '1' },
        { id: birthday, value: '1990-02-28' },
        { id: website, value: 'https://example.com/me' },
        { id: manager, value: [admin.userId] },
        { id: bio, value: 'I like **bold** things' },
      ],
    }));
    const events = await drain(q);
    expect(events).toHaveLength(6);
    expect(events[0]).toMatchObject({ type: 'realm_user', op: 'update', person: { user_id: member.userId, custom_profile_field: { id: role, value: 'Engineer' } } });
    expect(events[4]!.person.custom_profile_field).toMatchObject({ id: manager, value: JSON.stringify([admin.userId]) });
    expect(events[5]!.person.custom_profile_field.rendered_value).toContain('<p>');

    expectError(await member.patch('/users/me/profile_data', { data: [{ id: colour, value: '7' }] }), 400, 'BAD_REQUEST', "'7' is not a valid choice for 'Colour'.");
    expectError(await member.patch('/users/me/profile_data', { data: [{ id: birthday, value: '1990-02-30' }] }), 400, 'BAD_REQUEST', 'Birthday is not a date');
    expectError(await member.patch('/users/me/profile_data', { data: [{ id: website, value: 'not a url' }] }), 400, 'BAD_REQUEST', 'Website is not a URL');
    expectError(await member.patch('/users/me/profile_data', { data: [{ id: manager, value: [987654] }] }), 400, 'BAD_REQUEST');
    expectError(await member.patch('/users/me/profile_data', { data: [{ id: role, value: 'x'.repeat(51) }] }), 400, 'BAD_REQUEST');
    expectError(await member.patch('/users/me/profile_data', { data: [{ id: 987654, value: 'x' }] }), 400, 'BAD_REQUEST', 'Field id 987654 not found.');

    // An empty value removes it.
    expectSuccess(await member.patch('/users/me/profile_data', { data: [{ id: role, value: '' }] }));
    expect(await drain(q)).toEqual([expect.objectContaining({ person: { user_id: member.userId, custom_profile_field: { id: role, value: null } } })]);
  });

  it('of fields users may not edit are set by administrators', async () => {
    const locked = await createField({ name: 'Employee ID', field_type: 1, editable_by_user: false });
    expectError(await member.patch('/users/me/profile_data', { data: [{ id: locked, value: 'E-1' }] }), 400, 'BAD_REQUEST', 'You are not allowed to change this field. Contact an administrator to update it.');
    const q = await openQueue(member, { event_types: ['realm_user'] });
    expectSuccess(await admin.patch(`/users/${member.userId}`, { profile_data: [{ id: locked, value: 'E-1' }] }));
    expect(await drain(q)).toEqual([expect.objectContaining({ person: { user_id: member.userId, custom_profile_field: { id: locked, value: 'E-1', rendered_value: '<p>E-1</p>' } } })]);
    expectError(await member.patch(`/users/${admin.userId}`, { profile_data: [{ id: locked, value: 'E-2' }] }), 400, 'UNAUTHORIZED_PRINCIPAL');
  });
});
