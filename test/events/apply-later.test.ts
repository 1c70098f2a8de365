// The apply-events property for what a user keeps for later: scheduled messages, reminders,
// drafts, saved snippets and navigation views (each seen only by its owner).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '../helpers/client.js';
import { channelId, closeWatchers, newOrganization, ok, openWatchers, verify, type Watcher } from './support.js';

let owner: Client;
let bob: Client;
let all: Watcher[];
let lobby: number;

const inAnHour = (extra = 0) => Math.floor(Date.now() / 1000) + 3600 + extra;

beforeAll(async () => {
  ({ owner, bob } = await newOrganization('aplater', ['bob']));
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'lobby' }], principals: [owner.userId, bob.userId] }));
  lobby = await channelId(owner, 'lobby');
  all = await openWatchers({ bob, owner });
});

afterAll(() => closeWatchers(all));

describe('kept for later', () => {
  it('scheduling, editing and cancelling messages; only their owner hears of them', async () => {
    const later = (await verify(all, async () =>
      ok(await bob.post('/scheduled_messages', { type: 'stream', to: lobby, topic: 'soon', content: 'later on', scheduled_delivery_timestamp: inAnHour(60) })),
    )).result.scheduled_message_id;
    const { outcomes } = await verify(all, async () =>
      ok(await bob.post('/scheduled_messages', { type: 'direct', to: [owner.userId], content: 'a bit later', scheduled_delivery_timestamp: inAnHour() })),
    );
    expect(outcomes.get(all[1]!)!.events).toEqual([]);
    await verify(all, async () => ok(await bob.patch(`/scheduled_messages/${later}`, { content: 'later, edited', scheduled_delivery_timestamp: inAnHour(-60) })));
    await verify(all, async () => ok(await bob.delete(`/scheduled_messages/${later}`)));
  });

  it('a reminder set and removed', async () => {
    const message = ok(await owner.post('/messages', { type: 'stream', to: 'lobby', topic: 'remind', content: 'remind me' })).id;
    const id = (await verify(all, async () => ok(await bob.post('/reminders', { message_id: message, scheduled_delivery_timestamp: inAnHour() })))).result.reminder_id;
    await verify(all, async () => ok(await bob.delete(`/reminders/${id}`)));
  });

  it('drafts created, edited and deleted', async () => {
    const draft = (ts: number, content: string) => ({ type: 'stream', to: [lobby], topic: 'ideas', content, timestamp: ts });
    const now = Math.floor(Date.now() / 1000);
    const ids = (await verify(all, async () => ok(await bob.post('/drafts', { drafts: [draft(now - 10, 'first idea'), draft(now, 'second idea')] })))).result.ids;
    await verify(all, async () => ok(await bob.patch(`/drafts/${ids[0]}`, { draft: draft(now + 5, 'first idea, better') })));
    await verify(all, async () => ok(await bob.delete(`/drafts/${ids[1]}`)));
  });

  it('saved snippets created, edited and deleted', async () => {
    const id = (await verify(all, async () => ok(await bob.post('/saved_snippets', { title: 'Greeting', content: 'Hello there!' })))).result.saved_snippet_id;
    await verify(all, async () => ok(await bob.patch(`/saved_snippets/${id}`, { title: 'Greeting', content: 'Hi there!' })));
    await verify(all, async () => ok(await bob.delete(`/saved_snippets/${id}`)));
  });

  it('navigation views created, edited and deleted', async () => {
    await verify(all, async () => ok(await bob.post('/navigation_views', { fragment: 'narrow/channel/1-lobby', is_pinned: true, name: 'Lobby' })));
    await verify(all, async () => ok(await bob.patch('/navigation_views/narrow/channel/1-lobby', { is_pinned: false })));
    await verify(all, async () => ok(await bob.delete('/navigation_views/narrow/channel/1-lobby')));
  });
});
