// Account emails against a real SMTP server: changing one's address waits for the link mailed
// to the new address; a login of an older account brings a notice when the user wants one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestDb, testDb } from '../helpers/db.js';
import { httpRequest } from '../helpers/client.js';
import { OwnClient } from '../helpers/ownServer.js';
import { anonymousPost, emailWorld, expectFailure, expectOk, mailsTo, type EmailWorld } from './email-helpers.js';

let w: EmailWorld;
let member: OwnClient;

beforeAll(async () => {
  w = await emailWorld('mailacct');
  // An account older than a minute (before the realm's first request: its actor loads it so).
  await testDb()`UPDATE users SET date_joined = now() - interval '2 days' WHERE id = ${w.owner.userId}`;
  member = await w.user('Meg Member');
}, 60_000);

afterAll(async () => {
  await w.stop();
  await closeTestDb();
});

describe('changing the email address', () => {
  it('changes nothing until the link mailed to the new address is opened', async () => {
    const newEmail = `meg.new@${w.subdomain}.test`;
    const q = expectOk(await w.owner.post('/register', { event_types: '["realm_user"]' }));
    expectOk(await member.patch('/settings', { email: newEmail }));
    const [mail] = await mailsTo(w.smtp, newEmail);
    expect(mail!.subject).toBe(`Confirm your new email address for Realm ${w.subdomain}`);
    expect(w.smtp.to(member.user.email!)).toEqual([]);
    expect((await member.ok('GET', '/users/me')).delivery_email).toBe(member.user.email);
    const link = /(http:\/\/\S+\/accounts\/confirm_new_email\/[0-9a-f]+\/)/.exec(mail!.text)![1]!;
    expect(mail!.html).toContain(`href="${link}"`);
    const url = new URL(link);
    const opened = await httpRequest(w.server.port, { method: 'GET', path: url.pathname, host: url.host, headers: { Host: url.host } });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(opened.body.msg).toBe('Your new email address is confirmed.');
    // The old credentials name the old address; the new address works with the same key.
    const renamed = new OwnClient(w.server.port, { subdomain: w.subdomain, email: newEmail, apiKey: member.user.apiKey, userId: member.userId } as never);
    expect((await renamed.ok('GET', '/users/me')).delivery_email).toBe(newEmail);
    const events = (await w.owner.ok('GET', '/events', { queue_id: q.queue_id, last_event_id: q.last_event_id, dont_block: 'true' })).events as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(events).toContainEqual(expect.objectContaining({ type: 'realm_user', op: 'update', person: { user_id: member.userId, delivery_email: newEmail } }));
    // A link works once.
    const again = await httpRequest(w.server.port, { method: 'GET', path: url.pathname, host: url.host, headers: { Host: url.host } });
    expect(again.status).toBe(400);
    expect(again.body.msg).toBe('The confirmation link has expired or been deactivated.');
  });

  it("refuses what Zulip refuses, and sends nothing", async () => {
    const before = w.smtp.mails.length;
    expectFailure(await w.owner.patch('/settings', { email: 'not an address' }), 400, 'BAD_REQUEST', 'Invalid address.');
    expectFailure(await w.owner.patch('/settings', { email: `meg.new@${w.subdomain}.test` }), 400, 'BAD_REQUEST', 'Already has an account.');
    const other = await w.user('Ned Noone');
    expectOk(await w.owner.patch('/realm', { email_changes_disabled: 'true' }));
    expectFailure(await other.patch('/settings', { email: `ned2@${w.subdomain}.test` }), 400, 'BAD_REQUEST', 'Email address changes are disabled in this organization.');
    await new Promise((r) => setTimeout(r, 300));
    expect(w.smtp.mails.length).toBe(before);
    // Administrators still may.
    expectOk(await w.owner.patch('/settings', { email: `olivia2@${w.subdomain}.test` }));
    await mailsTo(w.smtp, `olivia2@${w.subdomain}.test`);
  });
});

describe('new login notices', () => {
  it('mails a notice when an older account logs in, unless the user turned them off', async () => {
    const owner = w.owner.user.email!;
    expectOk(await anonymousPost(w.server.port, w.subdomain, '/fetch_api_key', { username: owner, password: 'owner-password-1' }));
    const [notice] = await mailsTo(w.smtp, owner);
    expect(notice!.subject).toBe(`New login to Realm ${w.subdomain}`);
    expectOk(await w.owner.patch('/settings', { enable_login_emails: 'false' }));
    expectOk(await anonymousPost(w.server.port, w.subdomain, '/fetch_api_key', { username: owner, password: 'owner-password-1' }));
    // A just-created account gets none either.
    expectOk(await anonymousPost(w.server.port, w.subdomain, '/fetch_api_key', { username: `ned.noone@${w.subdomain}.test`, password: 'user-password-1' }));
    await new Promise((r) => setTimeout(r, 800));
    expect(w.smtp.to(owner)).toHaveLength(1);
    expect(w.smtp.to(`ned.noone@${w.subdomain}.test`)).toEqual([]);
  });
});
