// Linkifiers: adding, listing (current and legacy forms), editing, removing and reordering,
// with Zulip's validation messages, administrator-only changes and the events every client
// gets (realm_linkifiers with the linkifier_url_template capability, realm_filters without).
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { events, expectError, register } from '../helpers/messages.js';

let owner: Client;
let admin: Client;
let member: Client;
let subdomain: string;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('lkm'));
  admin = await newUser(subdomain, 'Ada Admin', 200);
  member = await newUser(subdomain, 'Mel Member');
});

const MODERN = { client_capabilities: { notification_settings_null: true, linkifier_url_template: true } };

async function add(client: Client, pattern: string, url_template: string): Promise<number> {
  const r = await client.post('/realm/filters', { pattern, url_template });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(typeof r.body.id).toBe('number');
  return r.body.id as number;
}

async function list(client: Client): Promise<Array<{ pattern: string; url_template: string; id: number }>> {
  const r = await client.get('/realm/linkifiers');
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.linkifiers;
}

async function clear(): Promise<void> {
  for (const l of await list(owner)) expect((await owner.delete(`/realm/filters/${l.id}`)).status).toBe(200);
}

describe('adding and listing', () => {
  it('an administrator adds a linkifier; everyone lists it, in both forms', async () => {
    await clear();
    const id = await add(admin, '#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}');
    const expected = [{ pattern: '#(?P<id>[0-9]+)', url_template: 'https://github.com/zulip/zulip/issues/{id}', id }];
    expect(await list(member)).toEqual(expected);
    const legacy = await member.get('/realm/filters');
    expect(legacy.status).toBe(200);
    expect(legacy.body.filters).toEqual([['#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}', id]]);
  });

  it('accepts the templates Zulip accepts', async () => {
    await clear();
    await add(owner, '(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)', 'https://github.com/{org}/{repo}/issue/{id}');
    await add(owner, 'ZUL-URL-(?P<id>\\d+)', 'https://example.com/%ba/{id}');
    await add(owner, 'JIRA-[0-9]+', 'https://jira.example.com/');
    await add(owner, '  padded-(?P<id>\\d+)  ', '  https://example.com/{id}  ');
    const all = await list(owner);
    expect(all.map((l) => l.pattern)).toContain('padded-(?P<id>\\d+)');
    expect(all.find((l) => l.pattern === 'padded-(?P<id>\\d+)')!.url_template).toBe('https://example.com/{id}');
  });

  it('refuses invalid linkifiers with Zulip\'s messages', async () => {
    const cases: Array<[string, string, string | RegExp]> = [
      ['', 'https://realm.com/my_realm_filter/{id}', 'This field cannot be blank.'],
      ['(foo', 'https://realm.com/', /^Bad regular expression: /],
      ['ZUL-(?P<id>\\d+)', '$fgfg', "Group 'id' in linkifier pattern is not present in URL template."],
      ['ZUL-(?P<id>\\d+)', 'https://realm.com/my_realm_filter/{hello}', "Group 'hello' in URL template is not present in linkifier pattern."],
      ['ZUL-(?P<id>\\d+)-(?P<hello>\\d+)', 'https://realm.com/{hello}', "Group 'id' in linkifier pattern is not present in URL template."],
      ['#(?P<id>[123])', '{id', 'Invalid URL template.'],
      ['#(?P<id>[123])', 'https://example.com/{bar++}', 'Invalid URL template.'],
    ];
    for (const [pattern, url_template, msg] of cases) {
      expectError(await owner.post('/realm/filters', { pattern, url_template }), 400, 'BAD_REQUEST', msg);
    }
    const r = await owner.post('/realm/filters', { pattern: '', url_template: 'https://x.example/' });
    expect(r.body.errors).toEqual({ pattern: ['This field cannot be blank.'] });
    expectError(await owner.post('/realm/filters', { pattern: '#(?P<id>[0-9]+)' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'url_template' argument");
  });

  it('refuses a second linkifier with the same pattern', async () => {
    await clear();
    await add(owner, 'dup-(?P<id>\\d+)', 'https://a.example/{id}');
    expectError(
      await owner.post('/realm/filters', { pattern: 'dup-(?P<id>\\d+)', url_template: 'https://b.example/{id}' }),
      400,
      'BAD_REQUEST',
      'Realm filter with this Realm and Pattern already exists.',
    );
  });
});

describe('permissions', () => {
  it('members cannot add, edit, remove or reorder linkifiers', async () => {
    await clear();
    const id = await add(owner, 'T-(?P<id>\\d+)', 'https://t.example/{id}');
    const denied = (r: Awaited<ReturnType<Client['post']>>) =>
      expectError(r, 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    denied(await member.post('/realm/filters', { pattern: 'M-(?P<id>\\d+)', url_template: 'https://m.example/{id}' }));
    denied(await member.patch(`/realm/filters/${id}`, { pattern: 'M-(?P<id>\\d+)', url_template: 'https://m.example/{id}' }));
    denied(await member.delete(`/realm/filters/${id}`));
    denied(await member.patch('/realm/linkifiers', { ordered_linkifier_ids: [id] }));
    expect(await list(owner)).toEqual([{ pattern: 'T-(?P<id>\\d+)', url_template: 'https://t.example/{id}', id }]);
  });

  it('a linkifier of another realm does not exist here', async () => {
    const other = await newRealm('lkmx');
    const foreign = await add(other.owner, 'X-(?P<id>\\d+)', 'https://x.example/{id}');
    expectError(await owner.delete(`/realm/filters/${foreign}`), 400, 'BAD_REQUEST', 'Linkifier not found.');
    expectError(
      await owner.patch(`/realm/filters/${foreign}`, { pattern: 'Y-(?P<id>\\d+)', url_template: 'https://y.example/{id}' }),
      400,
      'BAD_REQUEST',
      'Linkifier not found.',
    );
    expect((await list(other.owner)).map((l) => l.id)).toEqual([foreign]);
  });
});

describe('editing and removing', () => {
  it('edits a linkifier in place and validates the new values', async () => {
    await clear();
    const first = await add(owner, 'A-(?P<id>\\d+)', 'https://a.example/{id}');
    const second = await add(owner, 'B-(?P<id>\\d+)', 'https://b.example/{id}');
    const r = await owner.patch(`/realm/filters/${first}`, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://realm.com/issues/{id}' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await list(owner)).toEqual([
      { pattern: '#(?P<id>[0-9]+)', url_template: 'https://realm.com/issues/{id}', id: first },
      { pattern: 'B-(?P<id>\\d+)', url_template: 'https://b.example/{id}', id: second },
    ]);
    expectError(await owner.patch(`/realm/filters/${first}`, { pattern: '#(?P<id>[123])', url_template: '{id' }), 400, 'BAD_REQUEST', 'Invalid URL template.');
    expectError(
      await owner.patch(`/realm/filters/${first}`, { pattern: 'B-(?P<id>\\d+)', url_template: 'https://c.example/{id}' }),
      400,
      'BAD_REQUEST',
      'Realm filter with this Realm and Pattern already exists.',
    );
    expectError(
      await owner.patch(`/realm/filters/${second + 1000}`, { pattern: 'C-(?P<id>\\d+)', url_template: 'https://c.example/{id}' }),
      400,
      'BAD_REQUEST',
      'Linkifier not found.',
    );
  });

  it('removes a linkifier; removing it again is an error', async () => {
    await clear();
    const id = await add(owner, 'R-(?P<id>\\d+)', 'https://r.example/{id}');
    expect((await owner.delete(`/realm/filters/${id}`)).status).toBe(200);
    expect(await list(owner)).toEqual([]);
    expectError(await owner.delete(`/realm/filters/${id}`), 400, 'BAD_REQUEST', 'Linkifier not found.');
  });
});

describe('ordering', () => {
  it('keeps creation order, reorders with the full list, appends new ones last', async () => {
    await clear();
    expect((await owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [] })).status).toBe(200);
    const a = await add(owner, '1#(?P<id>[123])', 'https://filter.com/foo/{id}');
    const b = await add(owner, '2#(?P<id>[123])', 'https://filter.com/bar/{id}');
    const c = await add(owner, '3#(?P<id>[123])', 'https://filter.com/baz/{id}');
    expect((await list(owner)).map((l) => l.id)).toEqual([a, b, c]);

    expect((await owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [c, b, a] })).status).toBe(200);
    expect((await list(member)).map((l) => l.id)).toEqual([c, b, a]);
    expect((await member.get('/realm/filters')).body.filters.map((t: unknown[]) => t[2])).toEqual([c, b, a]);

    const d = await add(owner, '3#123', 'https://example.com');
    expect((await list(owner)).map((l) => l.id)).toEqual([c, b, a, d]);
    expect((await owner.delete(`/realm/filters/${b}`)).status).toBe(200);
    expect((await list(owner)).map((l) => l.id)).toEqual([c, a, d]);

    expectError(
      await owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [b, d, c, a] }),
      400,
      'BAD_REQUEST',
      'The ordered list must enumerate all existing linkifiers exactly once',
    );
    expectError(
      await owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [d, c, a, d] }),
      400,
      'BAD_REQUEST',
      'The ordered list must not contain duplicated linkifiers',
    );
    expectError(
      await owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [d, c] }),
      400,
      'BAD_REQUEST',
      'The ordered list must enumerate all existing linkifiers exactly once',
    );
    expect((await list(owner)).map((l) => l.id)).toEqual([c, a, d]);
  });
});

describe('events and register', () => {
  it('clients with linkifier_url_template get realm_linkifiers; older clients get realm_filters []', async () => {
    await clear();
    const modern = await register(member, { fetch_event_types: [], ...MODERN });
    const legacy = await register(member, { fetch_event_types: [] });

    const id = await add(owner, 'EV-(?P<id>\\d+)', 'https://ev.example/{id}');
    const expected = [{ pattern: 'EV-(?P<id>\\d+)', url_template: 'https://ev.example/{id}', id }];
    expect(await events(member, modern.queueId, 'realm_linkifiers')).toEqual([
      expect.objectContaining({ type: 'realm_linkifiers', realm_linkifiers: expected }),
    ]);
    expect(await events(member, modern.queueId, 'realm_filters')).toEqual([]);
    expect(await events(member, legacy.queueId, 'realm_linkifiers')).toEqual([]);
    expect(await events(member, legacy.queueId, 'realm_filters')).toEqual([
      expect.objectContaining({ type: 'realm_filters', realm_filters: [] }),
    ]);

    // Edits, reorders and removals announce the whole new list.
    const second = await add(owner, 'EW-(?P<id>\\d+)', 'https://ew.example/{id}');
    expect((await owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [second, id] })).status).toBe(200);
    expect((await owner.delete(`/realm/filters/${id}`)).status).toBe(200);
    const lists = (await events(member, modern.queueId, 'realm_linkifiers')).map((e) => e.realm_linkifiers.map((l: { id: number }) => l.id));
    expect(lists).toEqual([[id], [id, second], [second, id], [second]]);
  });

  it('register returns the list only to clients with the capability', async () => {
    await clear();
    const id = await add(owner, 'RG-(?P<id>\\d+)', 'https://rg.example/{id}');
    const modern = await register(member, { fetch_event_types: ['realm_linkifiers', 'realm_filters'], ...MODERN });
    expect(modern.body.realm_linkifiers).toEqual([{ pattern: 'RG-(?P<id>\\d+)', url_template: 'https://rg.example/{id}', id }]);
    expect(modern.body.realm_filters).toEqual([]);
    const legacy = await register(member, { fetch_event_types: ['realm_linkifiers'] });
    expect(legacy.body.realm_linkifiers).toEqual([]);
  });

  it('a refused change sends no event', async () => {
    const { queueId } = await register(member, { fetch_event_types: [], ...MODERN });
    await owner.post('/realm/filters', { pattern: '(bad', url_template: 'https://x.example/' });
    await member.post('/realm/filters', { pattern: 'OK-(?P<id>\\d+)', url_template: 'https://ok.example/{id}' });
    expect(await events(member, queueId, 'realm_linkifiers')).toEqual([]);
  });
});
