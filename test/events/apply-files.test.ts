// The apply-events property for files: `attachment` events (upload, claim by a message,
// deletion; register carries no uploads, the events only feed the uploads list of the
// settings UI), `realm_emoji` events (custom emoji added and deactivated) and avatar
// changes (`realm_user` updates).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { port, type Client } from '../helpers/client.js';
import sharp from 'sharp';
import { binaryUpload, FileClient } from '../api/files-helpers.js';
import { closeWatchers, newOrganization, ok, openWatchers, verify, type Watcher } from './support.js';
import { expectBody, expectResponse } from '../helpers/responses/index.js';

let owner: Client;
let bob: Client;
let all: Watcher[];

beforeAll(async () => {
  ({ owner, bob } = await newOrganization('apfile', ['bob']));
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'files' }], principals: [owner.userId, bob.userId] }));
  all = await openWatchers({ owner, bob });
});

afterAll(() => closeWatchers(all));

describe('uploads', () => {
  it('upload, claim and deletion', async () => {
    const files = new FileClient(port(), owner);
    const up = await verify(all, () => files.upload({ filename: 'notes.txt', data: 'notes', contentType: 'text/plain' }), { stateChange: false });
    expect(up.result.status).toBe(200);
    const sent = await verify(all, async () => ok(await owner.post('/messages', { type: 'stream', to: 'files', topic: 't', content: `[notes](${up.result.json.url})` })));
    const types = [...sent.outcomes.get(all[0]!)!.events].map((e) => e.type);
    expect(types).toContain('attachment');
    const id = ok(await owner.get('/attachments')).attachments[0].id;
    const removed = await verify(all, async () => ok(await owner.delete(`/attachments/${id}`)), { stateChange: false });
    expect(removed.outcomes.get(all[0]!)!.events.map((e) => e.type)).toEqual(['attachment']);
    expect(removed.outcomes.get(all[1]!)!.events).toEqual([]);
  });

  it('custom emoji added and deactivated', async () => {
    const files = new FileClient(port(), bob);
    const image = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#00aa00' } }).png().toBuffer();
    const added = await verify(all, () => binaryUpload(files, '/api/v1/realm/emoji/green_square', [{ name: 'file', filename: 'g.png', contentType: 'image/png', data: image }]));
    expect(added.result.status).toBe(200);
    await verify(all, async () => ok(await owner.delete('/realm/emoji/green_square')));
  });

  it('an uploaded avatar and back to Gravatar', async () => {
    const files = new FileClient(port(), bob);
    const image = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#aa0000' } }).png().toBuffer();
    const set = await verify(all, () => binaryUpload(files, '/api/v1/users/me/avatar', [{ name: 'file', filename: 'a.png', contentType: 'image/png', data: image }]));
    expect(set.result.status).toBe(200);
    await verify(all, async () => ok(await bob.delete('/users/me/avatar')));
  });

  it("a bot's avatar, given at creation and changed by its owner; two files change nothing", async () => {
    const files = new FileClient(port(), bob);
    const part = async (background: string) => ({
      name: 'file', filename: 'bot.png', contentType: 'image/png',
      data: await sharp({ create: { width: 48, height: 48, channels: 3, background } }).png().toBuffer(),
    });
    const created = await verify(all, async () =>
      binaryUpload(files, '/api/v1/bots', [await part('#0000aa'), { name: 'full_name', data: 'Pixel Bot' }, { name: 'short_name', data: 'pixel' }]),
    );
    expect(created.result.status, created.result.body.toString()).toBe(200);
    const botId = created.result.json.user_id as number;
    expect(created.result.json.avatar_url).toMatch(/^\/user_avatars\//);
    const changed = await verify(all, async () => binaryUpload(files, `/api/v1/bots/${botId}`, [await part('#00aa00')], 'PATCH'));
    expect(changed.result.status, changed.result.body.toString()).toBe(200);
    expect(changed.result.json.avatar_url).toMatch(/^\/user_avatars\//);
    expect(changed.result.json.avatar_url).not.toBe(created.result.json.avatar_url);
    const bobSaw = changed.outcomes.get(all[1]!)!.events.map((e) => `${e.type} ${e.op}`);
    expect(bobSaw).toEqual(expect.arrayContaining(['realm_bot update', 'realm_user update']));
    const two = await verify(all, async () => binaryUpload(files, `/api/v1/bots/${botId}`, [await part('#aaaa00'), await part('#00aaaa')], 'PATCH'), { stateChange: false });
    expect([two.result.status, two.result.json.msg]).toEqual([400, 'You may only upload one file at a time']);
    expect(two.outcomes.get(all[1]!)!.events).toEqual([]);
  });

  it('the realm icon and logos: uploaded by an administrator, then back to the defaults', async () => {
    const image = await sharp({ create: { width: 400, height: 120, channels: 3, background: '#123456' } }).png().toBuffer();
    const part = [{ name: 'file', filename: 'i.png', contentType: 'image/png', data: image }];
    const admin = new FileClient(port(), owner);
    const denied = await binaryUpload(new FileClient(port(), bob), '/api/v1/realm/icon', part);
    expect(denied.json).toMatchObject({ code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization administrator' });
    // `night` is required for the logo, as in Zulip: without it nothing changes.
    const noNight = await binaryUpload(admin, '/api/v1/realm/logo', part);
    expect([noNight.status, noNight.json]).toEqual([400, expect.objectContaining({ code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'night' argument", var_name: 'night' })]);
    const icon = await verify(all, () => binaryUpload(admin, '/api/v1/realm/icon', part));
    expectBody('POST /realm/icon', icon.result.json);
    expect(icon.result.json.icon_url).toMatch(/^\/user_avatars\/\d+\/realm\/icon-[0-9a-f]+\.png\?version=1$/);
    const served = await admin.fetch(icon.result.json.icon_url, { anonymous: true });
    expect([(await sharp(served.body).metadata()).width, served.headers['content-type']]).toEqual([100, 'image/png']);
    const logo = await verify(all, () => binaryUpload(admin, '/api/v1/realm/logo', [...part, { name: 'night', data: 'true' }]));
    expectBody('POST /realm/logo', logo.result.json);
    const state = ok(await owner.post('/register', { fetch_event_types: ['realm'] }));
    expect(state).toMatchObject({ realm_icon_source: 'U', realm_night_logo_source: 'U', realm_logo_source: 'D' });
    expectResponse('DELETE /realm/icon', (await verify(all, async () => owner.delete('/realm/icon'))).result);
    const undecided = await owner.delete('/realm/logo');
    expect([undecided.status, undecided.body]).toEqual([400, expect.objectContaining({ code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'night' argument", var_name: 'night' })]);
    expect(ok(await owner.post('/register', { fetch_event_types: ['realm'] }))).toMatchObject({ realm_night_logo_source: 'U' });
    expectResponse('DELETE /realm/logo', (await verify(all, async () => owner.delete('/realm/logo', { night: true }))).result);
    expect((await admin.fetch(icon.result.json.icon_url, { anonymous: true })).status).toBe(404);
  });
});
