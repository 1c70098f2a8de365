// Uploads, downloads and attachments, the same suite on both storage backends (a local
// directory and a real S3-protocol server): who may read a file (the uploader, readers of a
// message linking it, spectators of web-public channels), forged and traversal paths,
// cross-realm refusal, size and quota limits, aborted uploads, temporary URLs, headers and
// ranges, attachment events and GET/DELETE /attachments.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, type Client } from '../helpers/client.js';
import { until } from '../helpers/ownServer.js';
import sharp from 'sharp';
import { expectBody, expectResponse } from '../helpers/responses/index.js';
import { binaryUpload, FileClient, multipart, pngClaiming, stagedFiles, storedFiles, startBackend, type Backend } from './files-helpers.js';

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

  it("follows a message's image preview link to the file, and to nowhere else", async () => {
    const r = await owner.upload({ filename: 'pic.png', data: 'png bytes', contentType: 'image/png' });
    const sent = await send(owner, 'general', `[pic](${r.json.url})`);
    const m = await bob.ok('GET', `/messages/${sent.id}`);
    const src = /<img[^>]* src="([^"]+)"/.exec(m.message.content as string)![1]!.replaceAll('&amp;', '&');
    const hop = await bob.fetch(src);
    expect(hop.status).toBe(302);
    expect(hop.headers.location).toBe(r.json.url);
    expect((await bob.fetch(hop.headers.location as string)).status).toBe(200);
    for (const url of ['https://elsewhere.example/x.png', '/user_uploads/../../etc/passwd', '//elsewhere.example/x.png']) {
      expect((await bob.fetch('/thumbnail?url=' + encodeURIComponent(url))).status).toBe(404);
    }
  });

  it('uploads a file under a sanitised name; the uploader downloads the same bytes, inline for a safe type', async () => {
    const r = await owner.upload({ filename: 'my report (final).txt', data: 'quarterly numbers\n', contentType: 'text/plain' });
    expect(r.status, r.body.toString()).toBe(200);
    expectBody('POST /user_uploads', r.json);
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
    const list = expectResponse('GET /attachments', await owner.api.get('/attachments'));
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
    const t = expectResponse('GET /user_uploads/{realm_id}/{filename}', await owner.api.get(`/user_uploads/${rest}`));
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
    const { body, contentType } = multipart([{ name: 'file', filename: 'partial.bin', contentType: 'application/octet-stream', data: Buffer.alloc(2 * MIB, 7) }]);
    await new Promise<void>((resolve) => {
      const socket = net.connect(backend.server.port, '127.0.0.1', () => {
        socket.write(
          `POST /api/v1/user_uploads HTTP/1.1\r\nHost: ${owner.host}\r\n` +
            `Authorization: Basic ${Buffer.from(`${owner.user.email}:${owner.user.apiKey}`).toString('base64')}\r\n` +
            `Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
        );
        // Past the size kept in memory: the front has spooled part of it to a file.
        socket.write(body.subarray(0, 1.5 * MIB), () => setTimeout(() => socket.destroy(), 200));
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

    expectResponse('DELETE /attachments/{id}', await owner.api.delete(`/attachments/${a.id}`));
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

  it('an uploaded avatar is resized, served publicly and announced; deleting it goes back to Gravatar', async () => {
    const queue = await bob.ok('POST', '/register', { event_types: ['realm_user'] });
    const image = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const set = await binaryUpload(owner, '/api/v1/users/me/avatar', [{ name: 'file', filename: 'me.png', contentType: 'image/png', data: image }]);
    expect(set.status, set.body.toString()).toBe(200);
    const url: string = expectBody('POST /users/me/avatar', set.json).avatar_url;
    expect(url).toMatch(new RegExp(`^/user_avatars/${realmId}/[0-9a-f]{40}\\.png\\?version=\\d+$`));
    const me = await owner.ok('GET', '/users/me', { client_gravatar: false });
    expect(me.avatar_url).toBe(url);
    const served = await owner.fetch(url, { anonymous: true });
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    const meta = await sharp(served.body).metadata();
    expect([meta.width, meta.height]).toEqual([100, 100]);
    const medium = await sharp((await owner.fetch(url.replace('.png?', '-medium.png?'), { anonymous: true })).body).metadata();
    expect([medium.width, medium.height]).toEqual([500, 500]);

    const events = (await bob.api.get('/events', { queue_id: queue.queue_id, last_event_id: -1 })).body.events;
    expect(events[0]).toMatchObject({ type: 'realm_user', op: 'update', person: { user_id: owner.userId, avatar_source: 'U', avatar_url: url } });

    const removed = expectResponse('DELETE /users/me/avatar', await owner.api.delete('/users/me/avatar'));
    expect(removed.avatar_url).toMatch(/^https:\/\/secure\.gravatar\.com\/avatar\//);
    expect((await owner.fetch(url, { anonymous: true })).status).toBe(404);
  });

  it('refuses avatars that are not images, decompression bombs and requests without one file', async () => {
    const notImage = await binaryUpload(owner, '/api/v1/users/me/avatar', [{ name: 'file', filename: 'x.png', contentType: 'image/png', data: 'plain text' }]);
    expect(notImage.status).toBe(400);
    expect(notImage.json).toMatchObject({ code: 'BAD_IMAGE', msg: 'Could not decode image; did you upload an image file?' });
    const bomb = await binaryUpload(owner, '/api/v1/users/me/avatar', [{ name: 'file', filename: 'bomb.png', contentType: 'image/png', data: pngClaiming(60000, 60000) }]);
    expect(bomb.status).toBe(400);
    expect(bomb.json.code).toBe('BAD_IMAGE');
    const none = await binaryUpload(owner, '/api/v1/users/me/avatar', [{ name: 'x', data: 'y' }]);
    expect(none.json.msg).toBe('You must upload exactly one avatar.');
    expect((await owner.ok('GET', '/users/me', { client_gravatar: false })).avatar_url).toMatch(/gravatar/);
  });

  it('an uploaded image gets a thumbnail from a job, served with the access rule of the image', async () => {
    const image = await sharp({ create: { width: 1200, height: 900, channels: 3, background: '#446688' } }).png().toBuffer();
    const r = await owner.upload({ filename: 'photo.png', data: image, contentType: 'image/png' });
    const thumb = r.json.url.replace('/user_uploads/', '/user_uploads/thumbnail/') + '/840x560.webp';
    const got = (await until(async () => {
      const t = await owner.fetch(thumb);
      return t.status === 200 ? t : null;
    }, 'the thumbnail'))!;
    expect(got.headers['content-type']).toBe('image/webp');
    const meta = await sharp(got.body).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 747, 560]);
    expect((await bob.fetch(thumb)).status).toBe(403);
    expect((await owner.fetch(thumb.replace('840x560.webp', '100x100.webp'))).status).toBe(404);
  });

  describe('custom emoji', () => {
    let image: Buffer;
    let emojiId: string;
    let sourceUrl: string;
    let messageId: number;

    beforeAll(async () => {
      image = await sharp({ create: { width: 200, height: 100, channels: 4, background: '#ff8800' } }).png().toBuffer();
    });

    const addEmoji = (c: FileClient, name: string, parts = [{ name: 'file', filename: 'e.png', contentType: 'image/png', data: image }]) =>
      binaryUpload(c, `/api/v1/realm/emoji/${encodeURIComponent(name)}`, parts);

    it('a member adds one: listed, in register, announced, and served as a small image', async () => {
      const queue = await bob.ok('POST', '/register', { event_types: ['realm_emoji'] });
      const added = await addEmoji(bob, 'party_parrot');
      expect(added.status, added.body.toString()).toBe(200);
      expectBody('POST /realm/emoji/{name}', added.json);
      const list = expectResponse('GET /realm/emoji', await owner.api.get('/realm/emoji')).emoji;
      const entry = Object.values(list).find((e) => (e as { name: string }).name === 'party_parrot') as Record<string, unknown>;
      expect(entry).toMatchObject({ name: 'party_parrot', deactivated: false, author_id: bob.userId, still_url: null });
      emojiId = entry.id as string;
      sourceUrl = entry.source_url as string;
      expect(list[emojiId]).toBe(entry);
      expect(sourceUrl).toBe(`/user_avatars/${realmId}/emoji/images/${emojiId}.png`);
      const served = await owner.fetch(sourceUrl, { anonymous: true });
      expect(served.status).toBe(200);
      const meta = await sharp(served.body).metadata();
      expect([meta.width, meta.height]).toEqual([64, 32]);
      const registered = await carol.ok('POST', '/register', { fetch_event_types: ['realm_emoji'] });
      expect(registered.realm_emoji[emojiId]).toEqual(entry);
      const events = (await bob.api.get('/events', { queue_id: queue.queue_id, last_event_id: -1 })).body.events;
      expect(events[0]).toMatchObject({ type: 'realm_emoji', op: 'update' });
      expect(events[0].realm_emoji[emojiId]).toEqual(entry);
    });

    it('refuses bad names, duplicates, overriding Unicode emoji, guests and requests without one image', async () => {
      const cases: Array<[string, string]> = [
        ['Bad!', 'Emoji names must contain only lowercase alphanumeric characters, hyphens, and underscores.'],
        ['trailing_', 'Emoji names must end with either a letter or digit.'],
        ['party_parrot', 'A custom emoji with this name already exists.'],
        ['smile', 'Only administrators can override default emoji.'],
      ];
      for (const [name, msg] of cases) {
        const r = await addEmoji(bob, name);
        expect(r.status, name).toBe(400);
        expect(r.json.msg, name).toBe(msg);
      }
      expect((await addEmoji(bob, 'nofile', [{ name: 'x', data: 'y' } as never])).json.msg).toBe('You must upload exactly one file.');
      const notImage = await addEmoji(bob, 'broken', [{ name: 'file', filename: 'x.png', contentType: 'image/png', data: Buffer.from('nope') }]);
      expect(notImage.json.code).toBe('BAD_IMAGE');
      const guest = as(await newUser(subdomain, `Gus Guest ${backendName}`, 600));
      expect((await addEmoji(guest, 'guestmoji')).json.msg).toBe('Insufficient permission');
      const names = Object.values((await owner.ok('GET', '/realm/emoji')).emoji).map((e) => (e as { name: string }).name);
      expect(names).toEqual(['party_parrot']);
    });

    it('is used in messages and reactions', async () => {
      const m = await send(owner, 'general', 'we shipped :party_parrot:');
      messageId = m.id;
      const got = await bob.ok('GET', `/messages/${m.id}`);
      expect(got.message.content).toContain(`src="${sourceUrl}"`);
      expect(got.message.content).toContain('class="emoji"');
      await bob.ok('POST', `/messages/${m.id}/reactions`, { emoji_name: 'party_parrot' });
      await carol.ok('POST', `/messages/${m.id}/reactions`, { emoji_name: 'party_parrot', emoji_code: emojiId, reaction_type: 'realm_emoji' });
      const reactions = (await owner.ok('GET', `/messages/${m.id}`)).message.reactions;
      expect(reactions).toHaveLength(2);
      for (const r of reactions) expect(r).toMatchObject({ emoji_name: 'party_parrot', emoji_code: emojiId, reaction_type: 'realm_emoji' });
      const wrongName = await owner.api.post(`/messages/${m.id}/reactions`, { emoji_name: 'other', emoji_code: emojiId, reaction_type: 'realm_emoji' });
      expect(wrongName.body.msg).toBe('Invalid custom emoji name.');
      const wrongCode = await owner.api.post(`/messages/${m.id}/reactions`, { emoji_name: 'party_parrot', emoji_code: '999999', reaction_type: 'realm_emoji' });
      expect(wrongCode.body.msg).toBe('Invalid custom emoji.');
    });

    it('only an administrator or its author deactivates it; it then stops working for new uses', async () => {
      const denied = await carol.api.delete('/realm/emoji/party_parrot');
      expect(denied.status).toBe(400);
      expect(denied.body.msg).toBe('Must be an organization administrator or emoji author');
      expectResponse('DELETE /realm/emoji/{name}', await owner.api.delete('/realm/emoji/party_parrot'));
      expect((await owner.ok('GET', '/realm/emoji')).emoji[emojiId]).toMatchObject({ deactivated: true });
      const again = await owner.api.delete('/realm/emoji/party_parrot');
      expect(again.status).toBe(404);
      expect(again.body.msg).toBe("Emoji 'party_parrot' does not exist");
      const react = await owner.api.post(`/messages/${messageId}/reactions`, { emoji_name: 'party_parrot', emoji_code: emojiId, reaction_type: 'realm_emoji' });
      expect(react.body.msg).toBe('This custom emoji has been deactivated.');
      // An existing reaction can still be taken back.
      await bob.ok('DELETE', `/messages/${messageId}/reactions`, { emoji_name: 'party_parrot', emoji_code: emojiId, reaction_type: 'realm_emoji' });
      const m = await send(owner, 'general', 'no more :party_parrot:');
      expect((await owner.ok('GET', `/messages/${m.id}`)).message.content).not.toContain('<img');
    });
  });
});
