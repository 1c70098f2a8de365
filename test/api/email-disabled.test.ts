// Without SMTP_HOST: the start says that email is off, and the API answers as Zulip's without
// EMAIL_HOST (invitations are created, nothing is mailed); without EMAIL_GATEWAY_DOMAIN a
// channel has no address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm } from '../helpers/client.js';
import { OwnClient, startOwnServer, type OwnServer } from '../helpers/ownServer.js';
import { expectOk } from './email-helpers.js';

let server: OwnServer;
let owner: OwnClient;

beforeAll(async () => {
  server = await startOwnServer({}, false);
  owner = new OwnClient(server.port, (await newRealm('mailoff')).owner);
}, 60_000);

afterAll(async () => {
  await server.stop();
});

describe('email not configured', () => {
  it('says so at start', () => {
    expect(server.output()).toContain('Outgoing email is not configured (SMTP_HOST is not set)');
  });

  it('creates invitations without mailing them, and gives channels no address', async () => {
    expectOk(await owner.post('/invites', { invitee_emails: 'quiet@example.test', stream_ids: '[]' }));
    const invites = (await owner.ok('GET', '/invites')).invites as { email?: string }[];
    expect(invites.map((i) => i.email)).toContain('quiet@example.test');
    await owner.ok('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'nomail' }]) });
    const id = ((await owner.ok('GET', '/streams')).streams as { name: string; stream_id: number }[]).find((s) => s.name === 'nomail')!.stream_id;
    expect((await owner.ok('GET', `/streams/${id}/email_address`)).email).toBe('');
  });
});
