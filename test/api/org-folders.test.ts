import { beforeAll, describe, expect, it } from 'vitest';
import { newRealm, type Client } from '../helpers/client.js';
import { drain, expectError, expectSuccess, knownUser, openQueue } from './org-helpers.js';
import { expectResponse } from '../helpers/responses/index.js';

let owner: Client;
let subdomain: string;
let admin: Client;
let member: Client;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('orgfold'));
  admin = await knownUser(subdomain, 'Ada Admin', 200);
  member = await knownUser(subdomain, 'Mel Member');
});

async function createFolder(name: string, description = ''): Promise<number> {
  return expectSuccess(await admin.post('/channel_folders/create', { name, description })).channel_folder_id as number;
}

describe('channel folders', () => {
  it('are created by administrators and announced to everyone', async () => {
    const q = await openQueue(member, { event_types: ['channel_folder'] });
    const id = await createFolder('Engineering', 'Where *code* lives');
    const [event] = await drain(q);
    expect(event).toMatchObject({
      type: 'channel_folder',
      op: 'add',
      channel_folder: { id, name: 'Engineering', description: 'Where *code* lives', creator_id: admin.userId, is_archived: false },
    });
    expect(event!.channel_folder.rendered_description).toContain('<p>');
    expect(typeof event!.channel_folder.date_created).toBe('number');
    const list = expectSuccess(await member.get('/channel_folders')).channel_folders;
    expect(list.map((f: { id: number }) => f.id)).toContain(id);
    const reg = expectSuccess(await member.post('/register', { fetch_event_types: ['channel_folders'] }));
    expect(reg.channel_folders.map((f: { id: number }) => f.id)).toContain(id);
  });

  it('refuses members and bad names', async () => {
    expectError(await member.post('/channel_folders/create', { name: 'Mine' }), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectError(await admin.post('/channel_folders/create', { name: '  ' }), 400, 'BAD_REQUEST', "Channel folder name can't be empty.");
    expectError(await admin.post('/channel_folders/create', { name: 'x'.repeat(61) }), 400, 'BAD_REQUEST');
    expectError(await admin.post('/channel_folders/create', { name: 'Long', description: 'd'.repeat(1025) }), 400, 'BAD_REQUEST');
    await createFolder('Unique');
    expectError(await admin.post('/channel_folders/create', { name: 'unique' }), 400, 'BAD_REQUEST', 'Channel folder name already in use');
  });

  it('are renamed, archived and unarchived by administrators only (spec 4.5, part 3)', async () => {
    const id = await createFolder('Sales');
    const q = await openQueue(member, { event_types: ['channel_folder'] });
    expectError(await member.patch(`/channel_folders/${id}`, { is_archived: true }), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectSuccess(await admin.patch(`/channel_folders/${id}`, { name: 'Revenue', description: 'money' }));
    expectSuccess(await admin.patch(`/channel_folders/${id}`, { is_archived: true }));
    const events = await drain(q);
    expect(events[0]).toMatchObject({ op: 'update', channel_folder_id: id, data: { name: 'Revenue', description: 'money' } });
    expect(events[1]).toEqual(expect.objectContaining({ op: 'update', channel_folder_id: id, data: { is_archived: true } }));
    expect(expectSuccess(await member.get('/channel_folders')).channel_folders.map((f: { id: number }) => f.id)).not.toContain(id);
    const all = expectSuccess(await member.get('/channel_folders', { include_archived: true })).channel_folders;
    expect(all.find((f: { id: number }) => f.id === id)).toMatchObject({ is_archived: true, name: 'Revenue' });
    expectSuccess(await admin.patch(`/channel_folders/${id}`, { is_archived: false }));
    expect(await drain(q)).toEqual([expect.objectContaining({ data: { is_archived: false } })]);
    expectError(await admin.patch('/channel_folders/987654', { name: 'ghost' }), 400, 'BAD_REQUEST', 'Invalid channel folder ID');
    expectError(await admin.patch(`/channel_folders/${id}`, { name: '' }), 400, 'BAD_REQUEST');
  });

  it('cannot be archived while channels are in them', async () => {
    const id = await createFolder('Busy');
    expectSuccess(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'busy-channel' }] }));
    const streams = expectSuccess(await owner.get('/streams')).streams as { name: string; stream_id: number }[];
    const channel = streams.find((s) => s.name === 'busy-channel')!.stream_id;
    expectSuccess(await owner.patch(`/streams/${channel}`, { folder_id: id }));
    expectError(await admin.patch(`/channel_folders/${id}`, { is_archived: true }), 400, 'BAD_REQUEST', 'You need to remove all the channels from this folder to archive it.');
    expectSuccess(await owner.patch(`/streams/${channel}`, { folder_id: null }));
    expectSuccess(await admin.patch(`/channel_folders/${id}`, { is_archived: true }));
  });

  it('are listed by id and cannot be reordered: PATCH /channel_folders and `order` came at feature level 414', async () => {
    const before = expectResponse('GET /channel_folders', await admin.get('/channel_folders', { include_archived: true })).channel_folders;
    const ids = before.map((f: { id: number }) => f.id);
    expect(ids).toEqual([...ids].sort((x: number, y: number) => x - y));
    for (const f of before) expect(f).not.toHaveProperty('order');
    const q = await openQueue(member, { event_types: ['channel_folder'] });
    // The path is served for GET only, so the router answers as for any other wrong method.
    const r = await admin.patch('/channel_folders', { order: [...ids].reverse() });
    expect(r.status).toBe(405);
    expect(r.body).toMatchObject({ result: 'error', msg: 'Method Not Allowed', allowed_methods: ['GET'] });
    expect(await drain(q)).toEqual([]);
    const after = expectSuccess(await admin.get('/channel_folders', { include_archived: true })).channel_folders;
    expect(after.map((f: { id: number }) => f.id)).toEqual(ids);
  });

  it('of another realm cannot be edited', async () => {
    const other = await newRealm('orgfoldx');
    const foreign = expectSuccess(await other.owner.post('/channel_folders/create', { name: 'Foreign' })).channel_folder_id;
    expectError(await owner.patch(`/channel_folders/${foreign}`, { name: 'Taken' }), 400, 'BAD_REQUEST', 'Invalid channel folder ID');
    expect(expectSuccess(await other.owner.get('/channel_folders')).channel_folders[0].name).toBe('Foreign');
  });
});
