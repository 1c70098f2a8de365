// The caller's alert words: GET/POST/DELETE /users/me/alert_words and the alert_words event.
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, newUser } from '../helpers/client.js';
import { eventsNow, eventsOfType, ownServer, PortClient, queueFor, register } from './events-support.js';

let owner: Client;
let bob: Client;

beforeAll(async () => {
  const realm = await newRealm('alw');
  owner = realm.owner;
  bob = await newUser(realm.subdomain, 'Bob Builder');
});

describe('alert words', () => {
  it('start empty, grow without duplicates (any case) and announce the full list to the user only', async () => {
    expect((await bob.get('/users/me/alert_words')).body).toEqual({ result: 'success', msg: '', alert_words: [] });
    const mine = await queueFor(bob);
    const other = await queueFor(owner);
    const added = await bob.post('/users/me/alert_words', { alert_words: [' Deploy ', 'outage', '', 'OUTAGE'] });
    expect(added.status).toBe(200);
    expect(added.body.alert_words).toEqual(['Deploy', 'outage']);
    const again = await bob.post('/users/me/alert_words', { alert_words: ['deploy', 'pager'] });
    expect(again.body.alert_words).toEqual(['Deploy', 'outage', 'pager']);
    expect((await eventsOfType(bob, mine, 'alert_words')).map((e) => e.alert_words)).toEqual([
      ['Deploy', 'outage'],
      ['Deploy', 'outage', 'pager'],
    ]);
    expect(await eventsNow(owner, other)).toEqual([]);
    expect((await bob.get('/users/me/alert_words')).body.alert_words).toEqual(['Deploy', 'outage', 'pager']);
    expect((await owner.get('/users/me/alert_words')).body.alert_words).toEqual([]);
    expect((await register(bob, { fetch_event_types: ['alert_words'] })).alert_words).toEqual(['Deploy', 'outage', 'pager']);
  });

  it('are removed without regard to case; unknown words are ignored', async () => {
    const q = await queueFor(bob);
    const r = await bob.delete('/users/me/alert_words', { alert_words: ['DEPLOY', 'never-added'] });
    expect(r.status).toBe(200);
    expect(r.body.alert_words).toEqual(['outage', 'pager']);
    expect((await eventsOfType(bob, q, 'alert_words')).map((e) => e.alert_words)).toEqual([['outage', 'pager']]);
    const nothing = await bob.delete('/users/me/alert_words', { alert_words: ['never-added'] });
    expect(nothing.body.alert_words).toEqual(['outage', 'pager']);
  });

  it('refuse malformed input', async () => {
    const missing = await bob.post('/users/me/alert_words', {});
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'alert_words' argument" });
    const notList = await bob.post('/users/me/alert_words', { alert_words: '"word"' });
    expect(notList.status).toBe(400);
    expect(notList.body.msg).toBe('alert_words is not a list');
    const notStrings = await bob.post('/users/me/alert_words', { alert_words: [1, 2] });
    expect(notStrings.status).toBe(400);
    const long = await bob.post('/users/me/alert_words', { alert_words: ['ok', 'x'.repeat(101)] });
    expect(long.status).toBe(400);
    expect(long.body.msg).toBe('alert_words[1] is too long (limit: 100 characters)');
    expect((await bob.get('/users/me/alert_words')).body.alert_words).toEqual(['outage', 'pager']);
  });
});

describe('stored alert words', () => {
  it('are loaded by a server that activates the realm afresh', async () => {
    const server = await ownServer({});
    try {
      const words = await PortClient.of(server.port, bob).get('/users/me/alert_words');
      expect(words.body.alert_words).toEqual(['outage', 'pager']);
    } finally {
      await server.stop();
    }
  });
});
