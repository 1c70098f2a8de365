// Code playgrounds (the realm's "view in playground" links for code blocks): administrators
// add and remove them, with Zulip's validation; every client gets realm_playgrounds events
// and the list at register.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { events, expectError, register } from '../helpers/messages.js';

let owner: Client;
let member: Client;
let subdomain: string;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('lkp'));
  member = await newUser(subdomain, 'Mel Member');
});

const PYTHON = { name: 'Python playground', pygments_language: 'Python', url_template: 'https://python.example.com{code}' };

async function playgrounds(client: Client): Promise<Array<Record<string, unknown>>> {
  return (await register(client, { fetch_event_types: ['realm_playgrounds'] })).body.realm_playgrounds;
}

async function clear(): Promise<void> {
  for (const p of await playgrounds(owner)) expect((await owner.delete(`/realm/playgrounds/${String(p.id)}`)).status).toBe(200);
}

describe('code playgrounds', () => {
  it('an administrator adds playgrounds; everyone gets them and the events', async () => {
    await clear();
    const { queueId } = await register(member, { fetch_event_types: [] });
    const r = await owner.post('/realm/playgrounds', PYTHON);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.id as number;
    const second = await owner.post('/realm/playgrounds', { ...PYTHON, name: 'Python playground 2', url_template: 'https://py2.example/?c={code}' });
    expect(second.status, JSON.stringify(second.body)).toBe(200);

    const first = { id, name: 'Python playground', pygments_language: 'Python', url_template: 'https://python.example.com{code}' };
    const both = [first, { id: second.body.id, name: 'Python playground 2', pygments_language: 'Python', url_template: 'https://py2.example/?c={code}' }];
    expect(await playgrounds(member)).toEqual(both);
    const evs = await events(member, queueId, 'realm_playgrounds');
    expect(evs.map((e) => e.realm_playgrounds)).toEqual([[first], both]);

    expect((await owner.delete(`/realm/playgrounds/${second.body.id}`)).status).toBe(200);
    expect(await playgrounds(member)).toEqual([first]);
    expect((await events(member, queueId, 'realm_playgrounds')).at(-1)!.realm_playgrounds).toEqual([first]);
  });

  it("refuses invalid playgrounds with Zulip's messages", async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ pygments_language: 'a$b$c' }, 'Invalid characters in pygments language'],
      [{ pygments_language: 'x'.repeat(41) }, 'pygments_language is too long (limit: 40 characters)'],
      [{ url_template: 'https://template.com{?test,code}' }, '"code" should be the only variable present in the URL template'],
      [{ url_template: 'https://template.com?test={test' }, 'Invalid URL template.'],
      [{ url_template: 'https://template.com{?test}' }, 'Missing the required variable "code" in the URL template'],
      [{ name: '   ' }, 'This field cannot be blank.'],
      [{ pygments_language: '' }, 'This field cannot be blank.'],
    ];
    for (const [change, msg] of cases) {
      expectError(await owner.post('/realm/playgrounds', { ...PYTHON, name: `case ${msg}`, ...change }), 400, 'BAD_REQUEST', msg);
    }
    expectError(await owner.post('/realm/playgrounds', { name: 'x', pygments_language: 'Python' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'url_template' argument");
  });

  it('refuses a duplicate name for the same language', async () => {
    await clear();
    expect((await owner.post('/realm/playgrounds', PYTHON)).status).toBe(200);
    expectError(
      await owner.post('/realm/playgrounds', PYTHON),
      400,
      'BAD_REQUEST',
      'Realm playground with this Realm, Pygments language and Name already exists.',
    );
    expect((await owner.post('/realm/playgrounds', { ...PYTHON, pygments_language: 'Python3' })).status).toBe(200);
  });

  it('members cannot add or remove playgrounds', async () => {
    await clear();
    const r = await owner.post('/realm/playgrounds', PYTHON);
    expectError(await member.post('/realm/playgrounds', { ...PYTHON, name: 'mine' }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    expectError(await member.delete(`/realm/playgrounds/${r.body.id}`), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    expect((await playgrounds(owner)).map((p) => p.id)).toEqual([r.body.id]);
  });

  it('an unknown or foreign playground is invalid', async () => {
    const other = await newRealm('lkpx');
    const foreign = await other.owner.post('/realm/playgrounds', PYTHON);
    expect(foreign.status).toBe(200);
    expectError(await owner.delete(`/realm/playgrounds/${foreign.body.id}`), 400, 'BAD_REQUEST', 'Invalid playground');
    expect((await playgrounds(other.owner)).map((p) => p.id)).toEqual([foreign.body.id]);
  });
});
