// Drafts (synchronized while enable_drafts_synchronization is on), saved snippets and
// navigation views: each user's own, with Zulip's validation and errors, events to the owner
// only, and register sections that snapshot + events keep equal to a fresh register.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, events, expectError, register } from '../helpers/messages.js';
import { expectApplied, LATER_TYPES } from './later-helpers.js';

let owner: Client;
let member: Client;
let other: Client;
let channelId: number;
let privateId: number;

beforeAll(async () => {
  let subdomain: string;
  ({ owner, subdomain } = await newRealm('lsv'));
  member = await newUser(subdomain, 'Mia Member');
  other = await newUser(subdomain, 'Oscar Other');
  channelId = await createChannel(owner, 'design', {}, [member.userId!]);
  privateId = await createChannel(owner, 'secret', { invite_only: true });
});

const ok = (r: { status: number; body: Record<string, any> }) => { // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.result).toBe('success');
  return r.body;
};

const laterRegister = (c: Client) => register(c, { fetch_event_types: ['scheduled_messages', 'reminders', 'drafts', 'saved_snippets', 'navigation_views'] });

describe('drafts', () => {
  it('creates, lists, edits and deletes drafts, with events to their owner only', async () => {
    const before = await laterRegister(member);
    const watcher = await register(other, { fetch_event_types: [] });
    const created = ok(
      await member.post('/drafts', {
        drafts: [
          { type: 'stream', to: [channelId], topic: 'logo', content: 'first idea', timestamp: 1700000000 },
          { type: 'private', to: [other.userId], topic: 'ignored', content: 'hello Oscar', timestamp: 1700000100.5 },
          { type: '', to: [], topic: '', content: 'no recipient yet' },
        ],
      }),
    );
    const [streamDraft, dmDraft, bare] = created.ids as number[];
    const listed = ok(await member.get('/drafts'));
    expect(listed.count).toBe(3);
    expect(listed.drafts.slice(0, 2)).toEqual([
      { id: streamDraft, type: 'stream', to: [channelId], topic: 'logo', content: 'first idea', timestamp: 1700000000 },
      { id: dmDraft, type: 'private', to: [other.userId], topic: '', content: 'hello Oscar', timestamp: 1700000100 },
    ]);
    expect(listed.drafts[2]).toMatchObject({ id: bare, type: '', to: [], topic: '', content: 'no recipient yet' });
    expect(Math.abs((listed.drafts[2].timestamp as number) - Date.now() / 1000)).toBeLessThan(60);

    ok(await member.patch(`/drafts/${dmDraft}`, { draft: { type: 'private', to: [member.userId], topic: '', content: 'note to self', timestamp: 1700000200 } }));
    ok(await member.delete(`/drafts/${bare}`));
    const evs = await events(member, before.queueId);
    expect(evs.map((e) => `${e.type}/${e.op}`)).toEqual(['drafts/add', 'drafts/update', 'drafts/remove']);
    expect(evs[1]!.draft).toEqual({ id: dmDraft, type: 'private', to: [member.userId], topic: '', content: 'note to self', timestamp: 1700000200 });
    expectApplied(before.body, evs, (await laterRegister(member)).body);
    // Register lists the most recently edited first.
    expect(((await laterRegister(member)).body.drafts as Array<{ id: number }>).map((d) => d.id)).toEqual([dmDraft, streamDraft]);
    expect(await events(other, watcher.queueId)).toEqual([]);
    // Another user's draft does not exist for them.
    expectError(await other.patch(`/drafts/${streamDraft}`, { draft: { type: '', to: [], topic: '', content: 'x' } }), 404, 'BAD_REQUEST', 'Draft does not exist');
    expectError(await other.delete(`/drafts/${streamDraft}`), 404, 'BAD_REQUEST', 'Draft does not exist');
    expect(ok(await other.get('/drafts')).drafts).toEqual([]);
  });

  it("refuses bad drafts with Zulip's errors and stores nothing", async () => {
    const before = ok(await member.get('/drafts')).count as number;
    const good = { type: 'stream', to: [channelId], topic: 't', content: 'c' };
    const cases: Array<[unknown, string]> = [
      ['not json', 'drafts is not valid JSON'],
      [{ a: 1 }, 'drafts is not a list'],
      [[{ ...good, type: 'channel' }], 'Invalid drafts[0]["type"]'],
      [[good, { ...good, to: 'x' }], 'drafts[1]["to"] is not a list'],
      [[{ ...good, to: [1, 'x'] }], 'drafts[0]["to"][1] is not an integer'],
      [[{ ...good, content: '   ' }], 'drafts[0]["content"] cannot be blank'],
      [[{ ...good, extra: 1 }], 'Argument "extra" at drafts[0]["extra"] is unexpected'],
      [[{ ...good, timestamp: -5 }], 'Timestamp must not be negative.'],
      [[{ ...good, timestamp: 1e300 }], 'Invalid timestamp'],
      [[{ ...good, to: [channelId, channelId] }], 'Must specify exactly 1 channel ID for channel messages'],
      [[{ ...good, to: [privateId] }], 'Invalid channel ID'],
      [[{ ...good, to: [999999] }], 'Invalid channel ID'],
      [[{ ...good, topic: 'a\u0000b' }], 'Topic must not contain null bytes'],
      [[{ type: 'private', to: [999999], topic: '', content: 'c' }], 'Invalid user ID 999999'],
      [[good, { type: 'private', to: [owner.userId, 888888], topic: '', content: 'c' }], 'Invalid user ID 888888'],
    ];
    for (const [drafts, msg] of cases) {
      const value = typeof drafts === 'string' ? drafts : JSON.stringify(drafts);
      expectError(await member.post('/drafts', { drafts: value }), 400, 'BAD_REQUEST', msg);
    }
    expect(ok(await member.get('/drafts')).count).toBe(before);
    expectError(await member.post('/drafts', {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'drafts' argument");
  });

  it('honours enable_drafts_synchronization: off refuses every endpoint and deletes the stored drafts', async () => {
    const user = await newUser(member.subdomain, 'Dora Drafts');
    const ids = ok(await user.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'keep me?' }] })).ids as number[];
    ok(await user.patch('/settings', { enable_drafts_synchronization: false }));
    const off = 'User has disabled synchronizing drafts.';
    expectError(await user.get('/drafts'), 400, 'BAD_REQUEST', off);
    expectError(await user.post('/drafts', { drafts: [{ type: '', to: [], topic: '', content: 'x' }] }), 400, 'BAD_REQUEST', off);
    expectError(await user.patch(`/drafts/${ids[0]}`, { draft: { type: '', to: [], topic: '', content: 'x' } }), 400, 'BAD_REQUEST', off);
    expectError(await user.delete(`/drafts/${ids[0]}`), 400, 'BAD_REQUEST', off);
    expect((await laterRegister(user)).body.drafts).toEqual([]);
    ok(await user.patch('/settings', { enable_drafts_synchronization: true }));
    expect(ok(await user.get('/drafts'))).toMatchObject({ count: 0, drafts: [] });
  });
});

describe('saved snippets', () => {
  it('creates, edits and deletes snippets; the owner gets the events and register keeps up', async () => {
    const before = await laterRegister(member);
    const watcher = await register(owner, { fetch_event_types: [] });
    const id = ok(await member.post('/saved_snippets', { title: '  Greeting  ', content: ' Hello **there** ' })).saved_snippet_id as number;
    const second = ok(await member.post('/saved_snippets', { title: 'Bye', content: 'See you' })).saved_snippet_id as number;
    const listed = ok(await member.get('/saved_snippets')).saved_snippets as Array<Record<string, unknown>>;
    expect(listed.map((s) => ({ ...s, date_created: 0 }))).toEqual([
      { id, title: 'Greeting', content: 'Hello **there**', date_created: 0 },
      { id: second, title: 'Bye', content: 'See you', date_created: 0 },
    ]);
    expect(Math.abs((listed[0]!.date_created as number) - Date.now() / 1000)).toBeLessThan(60);

    ok(await member.patch(`/saved_snippets/${id}`, { content: 'Hi' }));
    ok(await member.patch(`/saved_snippets/${id}`, {})); // nothing to change: no event
    ok(await member.delete(`/saved_snippets/${second}`));
    const evs = await events(member, before.queueId);
    expect(evs.map((e) => `${e.type}/${e.op}`)).toEqual(['saved_snippets/add', 'saved_snippets/add', 'saved_snippets/update', 'saved_snippets/remove']);
    expect(evs[2]!.saved_snippet).toMatchObject({ id, title: 'Greeting', content: 'Hi' });
    expectApplied(before.body, evs, (await laterRegister(member)).body);
    expect(await events(owner, watcher.queueId)).toEqual([]);
  });

  it("refuses bad snippets and other users' snippets", async () => {
    const id = ok(await member.post('/saved_snippets', { title: 'Mine', content: 'mine' })).saved_snippet_id as number;
    expectError(await member.post('/saved_snippets', { title: '   ', content: 'x' }), 400, 'BAD_REQUEST', 'title cannot be blank');
    expectError(await member.post('/saved_snippets', { title: 'x'.repeat(61), content: 'x' }), 400, 'BAD_REQUEST', 'title is too long (limit: 60 characters)');
    expectError(await member.post('/saved_snippets', { title: 't', content: '' }), 400, 'BAD_REQUEST', 'content cannot be blank');
    expectError(await member.post('/saved_snippets', { title: 't', content: 'x'.repeat(10001) }), 400, 'BAD_REQUEST', 'content is too long (limit: 10000 characters)');
    expectError(await member.post('/saved_snippets', { title: 't' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'content' argument");
    expectError(await member.patch(`/saved_snippets/${id}`, { title: '' }), 400, 'BAD_REQUEST', 'title cannot be blank');
    expectError(await other.patch(`/saved_snippets/${id}`, { title: 'theirs' }), 404, 'BAD_REQUEST', 'Saved snippet does not exist.');
    expectError(await other.delete(`/saved_snippets/${id}`), 404, 'BAD_REQUEST', 'Saved snippet does not exist.');
    expectError(await member.delete('/saved_snippets/99999999'), 404, 'BAD_REQUEST', 'Saved snippet does not exist.');
    const mine = (ok(await member.get('/saved_snippets')).saved_snippets as Array<{ id: number; title: string }>).find((s) => s.id === id);
    expect(mine?.title).toBe('Mine');
  });
});

describe('navigation views', () => {
  it('adds built-in and custom views, edits and removes them by fragment', async () => {
    const before = await laterRegister(member);
    ok(await member.post('/navigation_views', { fragment: 'inbox', is_pinned: false }));
    ok(await member.post('/navigation_views', { fragment: 'narrow/is/starred', is_pinned: true }));
    ok(await member.post('/navigation_views', { fragment: 'narrow/channel/5-design', is_pinned: true, name: 'Design' }));
    expect(ok(await member.get('/navigation_views')).navigation_views).toEqual([
      { fragment: 'inbox', is_pinned: false, name: null },
      { fragment: 'narrow/is/starred', is_pinned: true, name: null },
      { fragment: 'narrow/channel/5-design', is_pinned: true, name: 'Design' },
    ]);
    // The fragment in the path: percent-encoded, or with its slashes as they are.
    ok(await member.patch(`/navigation_views/${encodeURIComponent('narrow/is/starred')}`, { is_pinned: false }));
    ok(await member.patch('/navigation_views/narrow/channel/5-design', { name: 'Design team', is_pinned: false }));
    ok(await member.delete('/navigation_views/inbox'));
    const evs = await events(member, before.queueId);
    expect(evs.map((e) => `${e.type}/${e.op}`)).toEqual([
      'navigation_view/add', 'navigation_view/add', 'navigation_view/add', 'navigation_view/update', 'navigation_view/update', 'navigation_view/remove',
    ]);
    expect(evs[3]).toMatchObject({ fragment: 'narrow/is/starred', data: { is_pinned: false } });
    expect(evs[4]).toMatchObject({ fragment: 'narrow/channel/5-design', data: { name: 'Design team', is_pinned: false } });
    expect(evs[5]).toMatchObject({ fragment: 'inbox' });
    expectApplied(before.body, evs, (await laterRegister(member)).body);
    expect(ok(await other.get('/navigation_views')).navigation_views).toEqual([]);
  });

  it("refuses what Zulip refuses, changing nothing", async () => {
    const user = await newUser(member.subdomain, 'Nina Nav');
    ok(await user.post('/navigation_views', { fragment: 'recent', is_pinned: true }));
    ok(await user.post('/navigation_views', { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' }));
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ fragment: 'inbox', is_pinned: true, name: 'My inbox' }, 'Built-in views cannot have a custom name.'],
      [{ fragment: 'narrow/is/followed', is_pinned: true }, 'Custom views must have a valid name.'],
      [{ fragment: 'recent', is_pinned: false }, 'Navigation view already exists.'],
      [{ fragment: 'narrow/is/unread', is_pinned: true, name: 'Alerts' }, 'Navigation view already exists.'],
      [{ fragment: '  ', is_pinned: true }, 'fragment cannot be blank'],
      [{ fragment: 'narrow/x', is_pinned: true, name: ' ' }, 'name cannot be blank'],
      [{ fragment: 'narrow/x', is_pinned: 'maybe', name: 'X' }, 'is_pinned is not a boolean'],
    ];
    for (const [params, msg] of cases) expectError(await user.post('/navigation_views', params), 400, 'BAD_REQUEST', msg);
    expectError(await user.post('/navigation_views', { fragment: 'feed' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'is_pinned' argument");
    expectError(await user.patch('/navigation_views/recent', { name: 'Recent stuff' }), 400, 'BAD_REQUEST', 'Built-in views cannot have a custom name.');
    expectError(await user.patch('/navigation_views/narrow/is/alerted', { name: 'Alerts' }), 400, 'BAD_REQUEST', 'Navigation view already exists.');
    expectError(await user.patch('/navigation_views/drafts', { is_pinned: true }), 404, 'BAD_REQUEST', 'Navigation view does not exist.');
    expectError(await user.delete('/navigation_views/drafts'), 404, 'BAD_REQUEST', 'Navigation view does not exist.');
    expectError(await member.delete('/navigation_views/recent'), 404, 'BAD_REQUEST', 'Navigation view does not exist.');
    expect(ok(await user.get('/navigation_views')).navigation_views).toEqual([
      { fragment: 'recent', is_pinned: true, name: null },
      { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' },
    ]);
  });
});

describe('the later and saved event types', () => {
  it('reach only queues that asked for them', async () => {
    const q = await register(member, { event_types: ['saved_snippets'], fetch_event_types: [] });
    ok(await member.post('/navigation_views', { fragment: 'narrow/is/dm', is_pinned: true, name: 'DMs only' }));
    ok(await member.post('/saved_snippets', { title: 'filtered', content: 'in' }));
    expect((await events(member, q.queueId)).map((e) => e.type)).toEqual(['saved_snippets']);
    expect(LATER_TYPES).toContain('navigation_view');
  });
});
