import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm } from '../helpers/client.js';
import { drain, expectError, expectSuccess, knownUser, openQueue, systemGroupIds } from './org-helpers.js';

let owner: Client;
let subdomain: string;
let admin: Client;
let sys: Record<string, number>;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('orgusr'));
  admin = await knownUser(subdomain, 'Ada Admin', 200);
  sys = await systemGroupIds(owner);
});

describe('deactivating a user', () => {
  it('stops their key, queues and parked polls at once and tells everyone', async () => {
    const victim = await knownUser(subdomain, 'Val Victim');
    const watcher = await openQueue(admin, { event_types: ['realm_user'] });
    const q = await openQueue(victim);
    const started = Date.now();
    const poll = victim.get('/events', { queue_id: q.id, last_event_id: q.lastEventId });
    await new Promise((r) => setTimeout(r, 150));
    expectSuccess(await owner.delete(`/users/${victim.userId}`));
    const ended = await poll;
    // The parked poll ends now, not at the next heartbeat.
    expect(Date.now() - started).toBeLessThan(1500);
    expect(ended.status).toBe(200);
    expect(ended.body.events).toEqual([]);
    expectError(await victim.get('/users/me'), 401, 'UNAUTHORIZED');
    expectError(await victim.get('/events', { queue_id: q.id, last_event_id: -1, dont_block: true }), 401, 'UNAUTHORIZED');
    expect(await drain(watcher)).toEqual([
      expect.objectContaining({ type: 'realm_user', op: 'update', person: { user_id: victim.userId, is_active: false } }),
    ]);
    const listed = expectSuccess(await admin.get(`/users/${victim.userId}`));
    expect(listed.user.is_active).toBe(false);
    expectError(await owner.delete(`/users/${victim.userId}`), 400, 'BAD_REQUEST');
  });

  it('can be undone by an administrator', async () => {
    const u = await knownUser(subdomain, 'Rita Return');
    expectSuccess(await admin.delete(`/users/${u.userId}`));
    const watcher = await openQueue(owner, { event_types: ['realm_user'] });
    expectError(await u.post(`/users/${u.userId}/reactivate`), 401, 'UNAUTHORIZED');
    expectSuccess(await admin.post(`/users/${u.userId}/reactivate`));
    expect(await drain(watcher)).toEqual([expect.objectContaining({ person: { user_id: u.userId, is_active: true } })]);
    expectSuccess(await u.get('/users/me'));
    expectError(await admin.post(`/users/${u.userId}/reactivate`), 400, 'BAD_REQUEST');
  });

  it('is for administrators, owners only by owners, never the last owner', async () => {
    const m = await knownUser(subdomain, 'Meg Member');
    const other = await knownUser(subdomain, 'Ole Other');
    expectError(await m.delete(`/users/${other.userId}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    expectError(await admin.delete(`/users/${owner.userId}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
    // Zulip answers this one with a plain error (DELETE /users/me has its own code).
    expectError(await owner.delete(`/users/${owner.userId}`), 400, 'BAD_REQUEST', 'Cannot deactivate the only organization owner');
    expectError(await admin.delete('/users/99999999'), 400, 'BAD_REQUEST', 'No such user');
  });

  it('DELETE /users/me deactivates the caller, but not the only owner', async () => {
    const r = await owner.delete('/users/me');
    expectError(r, 400, 'CANNOT_DEACTIVATE_LAST_USER');
    expect(r.body.is_last_owner).toBe(true);
    const leaver = await knownUser(subdomain, 'Lee Leaver');
    expectSuccess(await leaver.delete('/users/me'));
    expectError(await leaver.get('/users/me'), 401, 'UNAUTHORIZED');
  });

  it('refuses the only user of a realm', async () => {
    const solo = await newRealm('orgsolo');
    const r = await solo.owner.delete('/users/me');
    expectError(r, 400, 'CANNOT_DEACTIVATE_LAST_USER');
    expect(r.body).toMatchObject({ is_last_owner: false, entity: 'user' });
  });
});

describe('changing roles and names', () => {
  it('lets administrators change roles, with events and system group moves', async () => {
    const u = await knownUser(subdomain, 'Pat Promoted');
    const watcher = await openQueue(owner, { event_types: ['realm_user', 'user_group'] });
    expectSuccess(await admin.patch(`/users/${u.userId}`, { role: 300 }));
    const events = await drain(watcher);
    expect(events).toContainEqual(expect.objectContaining({ type: 'realm_user', op: 'update', person: { user_id: u.userId, role: 300 } }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'user_group', op: 'add_members', group_id: sys['role:moderators'], user_ids: [u.userId] }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'user_group', op: 'remove_members', group_id: sys['role:members'], user_ids: [u.userId] }));
    expect(expectSuccess(await u.get('/users/me')).role).toBe(300);
    expectSuccess(await admin.patch(`/users/${u.userId}`, { full_name: 'Pat Renamed' }));
    expect(await drain(watcher)).toEqual([expect.objectContaining({ person: { user_id: u.userId, full_name: 'Pat Renamed' } })]);
    expectError(await admin.patch(`/users/${u.userId}`, { role: 250 }), 400, 'BAD_REQUEST', 'Invalid role');
  });

  it('never lets anyone raise their own role or touch owners without being one', async () => {
    const m = await knownUser(subdomain, 'Sam Selfish');
    expectError(await m.patch(`/users/${m.userId}`, { role: 200 }), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectError(await m.patch(`/users/${m.userId}`, { role: 100 }), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectError(await admin.patch(`/users/${admin.userId}`, { role: 100 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
    expectError(await admin.patch(`/users/${m.userId}`, { role: 100 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
    expectError(await admin.patch(`/users/${owner.userId}`, { role: 400 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
    expectError(await owner.patch(`/users/${owner.userId}`, { role: 200 }), 400, 'BAD_REQUEST', 'The owner permission cannot be removed from the only organization owner.');
    expect(expectSuccess(await m.get('/users/me')).role).toBe(400);
  });

  it('lets owners grant and revoke ownership', async () => {
    const a = await knownUser(subdomain, 'Otto Owner', 200);
    expectSuccess(await owner.patch(`/users/${a.userId}`, { role: 100 }));
    expect(expectSuccess(await a.get('/users/me')).is_owner).toBe(true);
    expectSuccess(await a.patch(`/users/${a.userId}`, { role: 200 }));
    expect(expectSuccess(await a.get('/users/me')).role).toBe(200);
  });

  it('does not reach users of another realm', async () => {
    const other = await newRealm('orgusrx');
    const foreign = await knownUser(other.subdomain, 'Fay Foreign');
    expectError(await owner.patch(`/users/${foreign.userId}`, { role: 200 }), 400, 'BAD_REQUEST', 'No such user');
    expectError(await owner.delete(`/users/${foreign.userId}`), 400, 'BAD_REQUEST', 'No such user');
    expectError(await owner.post(`/users/${foreign.userId}/reactivate`), 400, 'BAD_REQUEST', 'No such user');
    expectSuccess(await foreign.get('/users/me'));
  });
});

describe('regenerating the API key', () => {
  it('returns a new key and the old one stops working at once', async () => {
    const u = await knownUser(subdomain, 'Kim Keys');
    const r = expectSuccess(await u.post('/users/me/api_key/regenerate'));
    expect(r.api_key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(r.api_key).not.toBe(u.apiKey);
    expectError(await u.get('/users/me'), 401, 'UNAUTHORIZED');
    const fresh = new Client(subdomain, u.email, r.api_key, u.userId);
    expect(expectSuccess(await fresh.get('/users/me')).user_id).toBe(u.userId);
  });
});
