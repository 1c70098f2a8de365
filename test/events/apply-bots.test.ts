// The apply-events property for bots: creation, edits, a new owner, deactivation and
// reactivation, a new API key, for the owner, an administrator, a bystander and a guest.
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Client } from '../helpers/client.js';
import { closeWatchers, newOrganization, ok, openWatchers, verify, type Watcher } from './support.js';

let owner: Client;
let bob: Client;
let carol: Client;
let guest: Client;
let all: Watcher[];

beforeAll(async () => {
  ({ owner, bob, carol, guest } = await newOrganization('apbot', ['bob', 'carol', 'guest']));
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'builds' }], principals: [owner.userId, bob.userId, guest.userId] }));
  all = await openWatchers({ owner, bob, carol, guest });
});

afterAll(() => closeWatchers(all));

describe('bots', () => {
  let botId: number;

  it('a member creates bots', async () => {
    botId = (await verify(all, async () => ok(await bob.post('/bots', { full_name: 'Build Bot', short_name: 'build' })))).result.user_id;
    await verify(all, async () =>
      ok(await bob.post('/bots', { full_name: 'Hook Bot', short_name: 'hook', bot_type: 2, default_sending_stream: 'builds', default_events_register_stream: 'builds' })),
    );
  });

  it('the owner edits the bot', async () => {
    await verify(all, async () => ok(await bob.patch(`/bots/${botId}`, { full_name: 'Builder Bot' })));
    await verify(all, async () => ok(await bob.patch(`/bots/${botId}`, { default_sending_stream: 'builds', default_all_public_streams: true })));
    await verify(all, async () => ok(await bob.patch(`/bots/${botId}`, { default_sending_stream: '' })));
  });

  it('subscribing a bot to a channel', async () => {
    await verify(all, async () => ok(await bob.post('/users/me/subscriptions', { subscriptions: [{ name: 'builds' }], principals: [botId] })));
  });

  it('an administrator changes the role and the owner', async () => {
    await verify(all, async () => ok(await owner.patch(`/bots/${botId}`, { role: 300 })));
    await verify(all, async () => ok(await owner.patch(`/bots/${botId}`, { bot_owner_id: carol.userId })));
    await verify(all, async () => ok(await carol.patch(`/bots/${botId}`, { bot_owner_id: bob.userId })));
  });

  it('a new API key', async () => {
    await verify(all, async () => ok(await bob.post(`/bots/${botId}/api_key/regenerate`)));
  });

  it('deactivating and reactivating the bot', async () => {
    await verify(all, async () => ok(await bob.delete(`/bots/${botId}`)));
    await verify(all, async () => ok(await owner.post(`/users/${botId}/reactivate`)));
  });
});
