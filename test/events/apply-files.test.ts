// The apply-events property for uploads: `attachment` events (upload, claim by a message,
// deletion) leave every client's state equal to a fresh register (register carries no
// uploads: the events only feed the uploads list of the settings UI).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, port, type Client } from '../helpers/client.js';
import { FileClient } from '../api/files-helpers.js';
import { Watcher, ok, verify } from './support.js';

let owner: Client;
let bob: Client;
let all: Watcher[];

beforeAll(async () => {
  const realm = await newRealm('apfile');
  owner = realm.owner;
  bob = await newUser(realm.subdomain, 'Bob Member');
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'files' }], principals: [owner.userId, bob.userId] }));
  all = [await Watcher.open(owner, 'owner'), await Watcher.open(bob, 'bob')];
});

afterAll(async () => {
  for (const w of all) await w.close();
});

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
});
