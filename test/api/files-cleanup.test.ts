// The upload cleanup job: uploads no message links are removed (row, bytes, and an event to
// the uploader) after the grace period; linked ones stay until their messages are deleted.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newRealm } from '../helpers/client.js';
import { until } from '../helpers/ownServer.js';
import { FileClient, startBackend, type Backend } from './files-helpers.js';

let backend: Backend;
let owner: FileClient;

beforeAll(async () => {
  backend = await startBackend('local', { UNCLAIMED_UPLOAD_GRACE_SECONDS: '1', UPLOAD_CLEANUP_INTERVAL_SECONDS: '0.5' });
  owner = new FileClient(backend.server.port, (await newRealm('filesclean')).owner);
  await owner.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'general' }] });
});

afterAll(async () => {
  await backend?.stop();
});

it('removes unclaimed uploads and the files of deleted messages, keeps linked ones', async () => {
  const queue = await owner.ok('POST', '/register', { event_types: ['attachment'] });
  const loose = await owner.upload({ filename: 'loose.txt', data: 'never sent', contentType: 'text/plain' });
  const kept = await owner.upload({ filename: 'kept.txt', data: 'sent', contentType: 'text/plain' });
  const gone = await owner.upload({ filename: 'gone.txt', data: 'sent then deleted', contentType: 'text/plain' });
  await owner.ok('POST', '/messages', { type: 'stream', to: 'general', topic: 't', content: `[kept](${kept.json.url})` });
  const m = await owner.ok('POST', '/messages', { type: 'stream', to: 'general', topic: 't', content: `[gone](${gone.json.url})` });
  await owner.ok('DELETE', `/messages/${m.id}`);

  const names = async () => (await owner.ok('GET', '/attachments')).attachments.map((a: { name: string }) => a.name).sort();
  await until(async () => (await names()).length === 1, 'the cleanup', 15_000);
  expect(await names()).toEqual(['kept.txt']);
  expect((await owner.fetch(loose.json.url)).status).toBe(404);
  expect((await owner.fetch(gone.json.url)).status).toBe(404);
  expect((await owner.fetch(kept.json.url)).status).toBe(200);
  const events = (await owner.api.get('/events', { queue_id: queue.queue_id, last_event_id: -1, dont_block: true })).body.events;
  expect(events.filter((e: { op: string }) => e.op === 'remove')).toHaveLength(2);
});
