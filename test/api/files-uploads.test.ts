// Uploads, downloads and attachments, the same suite on both storage backends (a local
// directory and a real S3-protocol server): who may read a file (the uploader, readers of a
// message linking it, spectators of web-public channels), forged and traversal paths,
// cross-realm refusal, size and quota limits, aborted uploads, temporary URLs, headers and
// ranges, attachment events and GET/DELETE /attachments.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, type Client } from '../helpers/client.js';
import { until } from '../helpers/ownServer.js';
import { FileClient, multipart, stagedFiles, storedFiles, startBackend, type Backend } from './files-helpers.js';

const MIB = 1024 * 1024;

describe.each(['local', 's3'] as const)('files on the %s backend', (backendName) => {
  let backend: Backend;
  let owner: FileClient;
  let bob: FileClient;
  let carol: FileClient;
  let realmId: number;
  let subdomain: string;
  const as = (c: Client) => new FileClient(backend.server.port, c);

  beforeAll(async () => {
    backend = await startBackend(backendName, { MAX_FILE_UPLOAD_SIZE_MIB: '1', REALM_UPLOAD_QUOTA_MIB: '3' });
    const realm = await newRealm('files');
    subdomain = realm.subdomain;
    realmId = realm.ownerInfo.realm_id;
    owner = as(realm.owner);
    bob = as(await newUser(subdomain, 'Bob Member'));
    carol = as(await newUser(subdomain, 'Carol Member'));
    await owner.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'general' }], principals: [owner.userId, bob.userId, carol.userId] });
    await owner.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'secret' }], principals: [owner.userId, carol.userId], invite_only: true });
  });

  afterAll(async () => {
    await backend?.stop();
  });

  const send = (c: FileClient, channel: string, content: string) =>
    c.ok('POST', '/messages', { type: 'stream', to: channel, topic: 'files', content });

  it('uploads a file under a sanitised name; the uploader downloads the same bytes, inline for a safe type', async () => {
    const r = await owner.upload({ filename: 'my report (final).txt', data: 'quarterly numbers\n', contentType: 'text/plain' });
    expect(r.status, r.body.toString()).toBe(200);
    expect(r.json.filename).toBe('my-report-final.txt');
    expect(r.json.url).toBe(r.json.uri);
    expect(r.json.url).toMatch(new RegExp(`^/user_uploads/${realmId}/[0-9a-f]{1,2}/[A-Za-z0-9_-]{24}/my-report-final\\.txt$`));
    const got = await owner.fetch(r.json.url);
    expect(got.status).toBe(200);
    expect(got.body.toString()).toBe('quarterly numbers\n');
    expect(got.headers['content-type']).toBe('text/plain');
    expect(got.headers['content-disposition']).toBe('inline');
    expect(got.headers['x-content-type-options']).toBe('nosniff');
    expect(got.headers['cache-control']).toContain('private');
    const list = await owner.ok('GET', '/attachments');
    const mine = list.attachments.find((a: { path_id: string }) => `/user_uploads/${a.path_id}` === r.json.url);
    expect(mine).toMatchObject({ name: 'my-report-final.txt', size: 18, messages: [] });
    expect(list.upload_space_used).toBeGreaterThanOrEqual(18);
  });

  it('serves other types as downloads, never as a page of the site, and answers ranges', async () => {
    const r = await owner.upload({ filename: 'page.html', data: '<script>alert(1)</script>', contentType: 'text/html' });
    const got = await owner.fetch(r.json.url);
    expect(got.headers['content-type']).toBe('text/html');
    expect(got.headers['content-disposition']).toMatch(/^attachment; filename="page.html"/);
    expect(got.headers['content-security-policy']).toContain('sandbox');
    const forced = await owner.fetch(r.json.url.replace('/user_uploads/', '/user_uploads/download/'));
    expect(forced.status).toBe(200);
    expect(forced.headers['content-disposition']).toMatch(/^attachment/);

    const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
    const bin = await owner.upload({ filename: 'clip.mp4', data: bytes, contentType: 'video/mp4' });
    const part = await owner.fetch(bin.json.url, { headers: { Range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 100-199/1000');
    expect(part.body.equals(bytes.subarray(100, 200))).toBe(true);
    const tail = await owner.fetch(bin.json.url, { headers: { Range: 'bytes=-10' } });
    expect(tail.body.equals(bytes.subarray(990))).toBe(true);
    const beyond = await owner.fetch(bin.json.url, { headers: { Range: 'bytes=5000-' } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe('bytes */1000');
  });

  it('others read a file only through a message they can read', async () => {
    const r = await owner.upload({ filename: 'plan.pdf', data: '%PDF-1.4 plan', contentType: 'application/pdf' });
    const denied = await bob.fetch(r.json.url);
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({ result: 'error', msg: 'You are not authorized to view this file.' });

    // Linked in a private channel bob is not in: carol may read it, bob still may not.
    const secret = await send(owner, 'secret', `The plan: [plan.pdf](${r.json.url})`);
    expect((await carol.fetch(r.json.url)).status).toBe(200);
    expect((await bob.fetch(r.json.url)).status).toBe(403);

    // Linked in a channel bob reads: now he may.
    const open = await send(owner, 'general', `[plan.pdf](${r.json.url})`);
    const got = await bob.fetch(r.json.url);
    expect(got.status).toBe(200);
    expect(got.body.toString()).toBe('%PDF-1.4 plan');
    expect(got.headers['content-disposition']).toBe('inline');

    const list = await owner.ok('GET', '/attachments');
    const a = list.attachments.find((x: { path_id: string }) => `/user_uploads/${x.path_id}` === r.json.url);
    expect(a.messages.map((m: { id: number }) => m.id)).toEqual([secret.id, open.id]);
    expect(typeof a.messages[0].date_sent).toBe('number');
  });

  it('a message linking someone else\'s file it cannot read claims nothing', async () => {
    const r = await owner.upload({ filename: 'private.txt', data: 'owner only', contentType: 'text/plain' });
    await send(bob, 'general', `look: [x](${r.json.url})`);
    expect((await carol.fetch(r.json.url)).status).toBe(403);
    const a = (await owner.ok('GET', '/attachments')).attachments.find((x: { path_id: string }) => `/user_uploads/${x.path_id}` === r.json.url);
    expect(a.messages).toEqual([]);
  });

  it('an edit that drops the link detaches the upload', async () => {
    const r = await owner.upload({ filename: 'draft.txt', data: 'v1', contentType: 'text/plain' });
    const m = await send(owner, 'general', `[draft](${r.json.url})`);
    expect((await bob.fetch(r.json.url)).status).toBe(200);
    const edit = await owner.ok('PATCH', `/messages/${m.id}`, { content: 'never mind' });
    expect(edit.detached_uploads).toHaveLength(1);
    expect(edit.detached_uploads[0]).toMatchObject({ path_id: r.json.url.slice('/user_uploads/'.length), messages: [] });
    expect((await bob.fetch(r.json.url)).status).toBe(403);
  });

  it('refuses forged, traversal and cross-realm paths', async () => {
    const r = await owner.upload({ filename: 'a.txt', data: 'a', contentType: 'text/plain' });
    const rest = r.json.url.slice(`/user_uploads/${realmId}/`.length);
    for (const url of [
      `/user_uploads/${realmId}/00/AAAAAAAAAAAAAAAAAAAAAAAA/a.txt`,
      `/user_uploads/${realmId}/${rest}x`,
      `/user_uploads/${realmId + 1000}/${rest}`,
      `/user_uploads/${realmId}/../../../../etc/passwd`,
      `/user_uploads/${realmId}/%2e%2e/%2e%2e/%2e%2e/etc/passwd`,
      `/user_uploads/${realmId}/..%2F..%2F..%2Fetc%2Fpasswd`,
      `/user_uploads/tmp/${rest}`,
      '/user_avatars/..%2F..%2F..%2Fetc%2Fpasswd',
      '/user_avatars/../uploads/x',
    ]) {
      const got = await owner.fetch(url);
      expect(got.status, url).toBe(404);
    }
    // Another organization: its users do not see this one's files, whichever host they ask.
    const other = await newRealm('filesx');
    const stranger = as(other.owner);
    expect((await stranger.fetch(r.json.url)).status).toBe(404);
    const wrongHost = await stranger.fetch(r.json.url, { headers: { Host: owner.host } });
    expect(wrongHost.status).toBe(401);
    expect((await stranger.api.get(`/user_uploads/${realmId}/${rest}`)).status).toBe(404);
  });

  it('a caller without credentials gets 401 where spectators see nothing', async () => {
    const r = await owner.upload({ filename: 'b.txt', data: 'b', contentType: 'text/plain' });
    await send(owner, 'general', `[b](${r.json.url})`);
    const got = await owner.fetch(r.json.url, { anonymous: true });
    expect(got.status).toBe(401);
    expect(got.json.code).toBe('UNAUTHORIZED');
  });

  it('spectators read files of web-public channels only', async () => {
    const realm = await newRealm('filesweb');
    const o = as(realm.owner);
    await o.ok('PATCH', '/realm', { enable_spectator_access: true });
    await o.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'public news' }], is_web_public: true });
    await o.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'members' }] });
    const pub = await o.upload({ filename: 'news.txt', data: 'for everyone', contentType: 'text/plain' });
    const internal = await o.upload({ filename: 'memo.txt', data: 'members only', contentType: 'text/plain' });
    await send(o, 'public news', `[news](${pub.json.url})`);
    await send(o, 'members', `[memo](${internal.json.url})`);
    const seen = await o.fetch(pub.json.url, { anonymous: true });
    expect(seen.status).toBe(200);
    expect(seen.body.toString()).toBe('for everyone');
    expect((await o.fetch(internal.json.url, { anonymous: true })).status).toBe(403);
  });

  it('temporary URLs open the file without credentials, for the file they name only', async () => {
    const r = await owner.upload({ filename: 'photo.png', data: 'not really a png', contentType: 'image/png' });
    const rest = r.json.url.slice('/user_uploads/'.length);
    const t = await owner.ok('GET', `/user_uploads/${rest}`);
    expect(t.url).toMatch(/^\/user_uploads\/temporary\/[A-Za-z0-9_-]+\/photo\.png$/);
    const got = await owner.fetch(t.url, { anonymous: true });
    expect(got.status).toBe(200);
    expect(got.body.toString()).toBe('not really a png');
    expect((await owner.fetch(t.url.replace(/photo\.png$/, 'other.png'), { anonymous: true })).status).toBe(404);
    expect((await owner.fetch(t.url.replace(/temporary\/[^/]+/, 'temporary/forgedtoken'), { anonymous: true })).status).toBe(404);
    // Bob may not read it, so he gets no URL either.
    expect((await bob.api.get(`/user_uploads/${rest}`)).status).toBe(403);
  });

  it('refuses requests without exactly one file', async () => {
    const none = await owner.upload([{ name: 'note', data: 'no file here' }]);
    expect(none.status).toBe(400);
    expect(none.json).toMatchObject({ code: 'BAD_REQUEST', msg: 'You must specify a file to upload' });
    const two = await owner.upload([
      { name: 'f1', filename: 'a.txt', contentType: 'text/plain', data: 'a' },
      { name: 'f2', filename: 'b.txt', contentType: 'text/plain', data: 'b' },
    ]);
    expect(two.status).toBe(400);
    expect(two.json.msg).toBe('You may only upload one file at a time');
  });

  it('enforces the size limit and the organization quota with Zulip\'s errors, leaving nothing behind', async () => {
    const before = storedFiles(backend.dir).length;
    const big = await owner.upload({ filename: 'big.bin', data: Buffer.alloc(MIB + 1) });
    expect(big.status).toBe(400);
    expect(big.json).toMatchObject({ code: 'BAD_REQUEST', msg: "File is larger than this server's configured maximum upload size (1 MiB)." });

    const realm = await newRealm('filesq');
    const q = as(realm.owner);
    for (let i = 0; i < 3; i++) expect((await q.upload({ filename: `part${i}.bin`, data: Buffer.alloc(MIB - 1000) })).status).toBe(200);
    const over = await q.upload({ filename: 'one-too-many.bin', data: Buffer.alloc(4000) });
    expect(over.status).toBe(400);
    expect(over.json).toMatchObject({ code: 'REALM_UPLOAD_QUOTA', msg: "Upload would exceed your organization's upload quota." });
    expect((await q.ok('GET', '/attachments')).attachments).toHaveLength(3);
    const perObject = backend.name === 's3' ? 3 : 1; // s3rver keeps an object as three files
    await until(() => stagedFiles(backend.dir).length === 0 && storedFiles(backend.dir).length === before + 3 * perObject, 'refused uploads to be removed');
  });

  it('an upload aborted halfway leaves no file and no attachment', async () => {
    const before = storedFiles(backend.dir).length;
    const { body, contentType } = multipart([{ name: 'file', filename: 'partial.bin', contentType: 'application/octet-stream', data: Buffer.alloc(600 * 1024, 7) }]);
    await new Promise<void>((resolve) => {
      const socket = net.connect(backend.server.port, '127.0.0.1', () => {
        socket.write(
          `POST /api/v1/user_uploads HTTP/1.1\r\nHost: ${owner.host}\r\n` +
            `Authorization: Basic ${Buffer.from(`${owner.user.email}:${owner.user.apiKey}`).toString('base64')}\r\n` +
            `Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        socket.write(body.subarray(0, 300 * 1024), () => setTimeout(() => socket.destroy(), 200));
      });
      socket.on('close', () => resolve());
      socket.on('error', () => resolve());
    });
    await until(() => stagedFiles(backend.dir).length === 0 && storedFiles(backend.dir).length === before, 'the partial upload to be removed');
    const names = (await owner.ok('GET', '/attachments')).attachments.map((a: { name: string }) => a.name);
    expect(names).not.toContain('partial.bin');
  });

  it('the uploader hears of uploads, claims and deletions; only they may delete', async () => {
    const queue = await owner.ok('POST', '/register', { event_types: ['attachment'] });
    const r = await owner.upload({ filename: 'events.txt', data: 'e', contentType: 'text/plain' });
    const m = await send(owner, 'general', `[e](${r.json.url})`);
    const list = await owner.ok('GET', '/attachments');
    const a = list.attachments.find((x: { path_id: string }) => `/user_uploads/${x.path_id}` === r.json.url);

    const denied = await bob.api.delete(`/attachments/${a.id}`);
    expect(denied.status).toBe(400);
    expect(denied.body).toMatchObject({ code: 'BAD_REQUEST', msg: 'Invalid attachment' });
    expect((await owner.api.delete('/attachments/999999999')).body.msg).toBe('Invalid attachment');

    await owner.ok('DELETE', `/attachments/${a.id}`);
    expect((await owner.fetch(r.json.url)).status).toBe(404);
    expect((await bob.fetch(r.json.url)).status).toBe(404);

    const events: Record<string, unknown>[] = [];
    await until(async () => {
      const got = await owner.api.get('/events', { queue_id: queue.queue_id, last_event_id: events.length ? (events.at(-1)!.id as number) : -1, dont_block: true });
      events.push(...got.body.events.filter((e: { type: string }) => e.type === 'attachment'));
      return events.length >= 3;
    }, 'attachment events');
    expect(events.map((e) => e.op)).toEqual(['add', 'update', 'remove']);
    expect(events[0]!.attachment).toMatchObject({ id: a.id, name: 'events.txt', messages: [] });
    expect(events[1]!.attachment).toMatchObject({ id: a.id, messages: [{ id: m.id }] });
    expect(events[2]!.attachment).toEqual({ id: a.id });
    expect(typeof events[2]!.upload_space_used).toBe('number');
  });
});
