// A 100 MB upload keeps the server's memory flat: the front streams the file to storage as
// it arrives. Measured as the growth of the server's peak resident memory (VmHWM), not as a
// time; other requests keep being answered while the upload runs.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newRealm } from '../helpers/client.js';
import { binaryRequest, FileClient, startBackend, type Backend } from './files-helpers.js';

const MB = 1_000_000;
let backend: Backend;
let owner: FileClient;

beforeAll(async () => {
  backend = await startBackend('local');
  owner = new FileClient(backend.server.port, (await newRealm('filesmem')).owner);
});

afterAll(async () => {
  await backend?.stop();
});

/** Peak resident memory of the server process so far, in bytes. */
function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

it('a 100 MB upload keeps memory flat and the server answering', async () => {
  const pid = backend.server.proc.pid!;
  // Warm up the paths the upload takes, so that their one-time costs are in the baseline.
  expect((await owner.upload({ filename: 'warm.bin', data: Buffer.alloc(2 * MB, 1) })).status).toBe(200);
  for (let i = 0; i < 20; i++) await owner.api.get('/users/me');
  const before = peakRss(pid);

  const size = 100 * MB;
  const boundary = 'memoryTestBoundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="large.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = 256 * 1024;
  const body = Readable.from((function* () {
    yield head;
    for (let sent = 0; sent < size; sent += chunk) yield Buffer.alloc(Math.min(chunk, size - sent), sent % 251);
    yield tail;
  })());
  let answered = 0;
  let uploading = true;
  const upload = binaryRequest(owner.port, {
    method: 'POST', path: '/api/v1/user_uploads', host: owner.host, body,
    headers: {
      Authorization: 'Basic ' + Buffer.from(`${owner.user.email}:${owner.user.apiKey}`).toString('base64'),
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Content-Length': String(head.length + size + tail.length),
    },
  }).finally(() => (uploading = false));
  while (uploading) {
    const r = await owner.api.get('/users/me');
    expect(r.status).toBe(200);
    answered++;
  }
  const done = await upload;
  expect(done.status, done.body.toString()).toBe(200);
  expect(answered).toBeGreaterThan(0);
  const growth = peakRss(pid) - before;
  // Flat: a fixed overhead (the same for 300 MB), far from the file's 100 MB.
  expect(growth).toBeLessThan(50 * MB);
  const list = await owner.ok('GET', '/attachments');
  expect(list.attachments.find((a: { name: string }) => a.name === 'large.bin')?.size).toBe(size);
  process.stdout.write(`100 MB upload: peak RSS growth ${(growth / MB).toFixed(1)} MB, ${answered} other requests answered during it\n`);
});
