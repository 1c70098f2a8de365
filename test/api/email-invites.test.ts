// Invitations and account emails against a real SMTP server: the invitation arrives with its
// link, the link creates the account in the invited channels and groups, revoke and resend
// work, and Zulip's permission, address and per-day checks answer with its errors; changing
// one's address waits for the link mailed to the new address; a login of an older account
// brings a notice when the user wants one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnClient } from '../helpers/ownServer.js';
import postgres from 'postgres';
import { httpRequest } from '../helpers/client.js';
import { expectResponse } from '../helpers/responses/index.js';
import { anonymousPost, emailWorld, expectFailure, expectOk, joinLink, mailsTo, type EmailWorld } from './email-helpers.js';

let w: EmailWorld;
let admin: OwnClient;
let member: OwnClient;
let guest: OwnClient;
let meg: OwnClient;
let channelId: number;
let groupId: number;
let sys: Record<string, number>;

beforeAll(async () => {
  w = await emailWorld('mailinv');
  // An account older than a minute (before the realm's first request: its actor loads it so).
  const db = postgres(w.databaseUrl, { max: 1, onnotice: () => undefined });
  await db`UPDATE users SET date_joined = now() - interval '2 days' WHERE id = ${w.owner.userId}`;
  await db.end();
  admin = await w.user('Ada Admin', 200);
  member = await w.user('Mia Member');
  guest = await w.user('Gus Guest', 600);
  meg = await w.user('Meg Member');
  await w.owner.ok('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'lobby' }]) });
  const streams = (await w.owner.ok('GET', '/streams')).streams as { name: string; stream_id: number }[];
  channelId = streams.find((s) => s.name === 'lobby')!.stream_id;
  groupId = (await admin.ok('POST', '/user_groups/create', { name: 'invitees', description: '', members: '[]' })).group_id as number;
  const groups = (await w.owner.ok('GET', '/user_groups')).user_groups as { id: number; name: string; is_system_group: boolean }[];
  sys = Object.fromEntries(groups.filter((g) => g.is_system_group).map((g) => [g.name, g.id]));
}, 60_000);

afterAll(async () => {
  await w.stop();
});

const keyOf = (link: string) => /\/join\/([a-z0-9]+)\/$/.exec(link)![1]!;

describe('POST /invites', () => {
  it('mails an invitation whose link creates the account in the invited channels and groups', async () => {
    const email = `newcomer@${w.subdomain}.test`;
    expectResponse('POST /invites', await admin.post('/invites', { invitee_emails: `New Comer <${email}>`, stream_ids: `[${channelId}]`, group_ids: `[${groupId}]`, invite_as: 300 }));
    const [mail] = await mailsTo(w.smtp, email);
    expect(mail!.subject).toBe(`Ada Admin invited you to join Realm ${w.subdomain}`);
    expect(mail!.from).toBe('noreply@chat.test');
    expect(mail!.replyTo).toBe(`ada.admin@${w.subdomain}.test`);
    const link = joinLink(mail!);
    expect(link).toMatch(new RegExp(`^http://${w.subdomain}\\.localhost:${w.server.port}/join/[a-z0-9]{24}/$`));
    // The realm's name and URL are in both parts.
    for (const part of [mail!.text, mail!.html]) {
      expect(part).toContain(`Realm ${w.subdomain}`);
      expect(part).toContain(`http://${w.subdomain}.localhost:${w.server.port}`);
    }

    const list = expectResponse('GET /invites', await admin.get('/invites')).invites as Record<string, unknown>[];
    const mine = list.find((i) => i.email === email)!;
    expect(mine).toMatchObject({ invited_by_user_id: admin.userId, invited_as: 300, is_multiuse: false, notify_referrer_on_join: true });
    expect(mine).not.toHaveProperty('link_url');

    // Another address cannot use it.
    expectFailure(await anonymousPost(w.server.port, w.subdomain, '/register_with_invite', { key: keyOf(link), email: `other@${w.subdomain}.test`, password: 'pass-word-123', full_name: 'Other' }), 400, 'BAD_REQUEST');
    const body = expectOk(await anonymousPost(w.server.port, w.subdomain, '/register_with_invite', { key: keyOf(link), email, password: 'pass-word-123', full_name: 'New Comer' }));
    const newcomer = new OwnClient(w.server.port, { subdomain: w.subdomain, email: body.email, apiKey: body.api_key, userId: body.user_id } as never);
    expect((await newcomer.ok('GET', '/users/me')).role).toBe(300);
    const subs = (await newcomer.ok('GET', '/users/me/subscriptions')).subscriptions as { stream_id: number }[];
    expect(subs.map((s) => s.stream_id)).toEqual([channelId]);
    expect((await admin.ok('GET', `/user_groups/${groupId}/members`)).members).toEqual([body.user_id]);
    // Used: gone from the list, and the link does not work twice.
    expect(((await admin.ok('GET', '/invites')).invites as { email?: string }[]).some((i) => i.email === email)).toBe(false);
    expectFailure(await anonymousPost(w.server.port, w.subdomain, '/register_with_invite', { key: keyOf(link), email, password: 'pass-word-123', full_name: 'Again' }), 400, 'BAD_REQUEST');
    // The welcome email, and the referrer's notice from Notification Bot.
    const mails = await mailsTo(w.smtp, email, 2);
    expect(mails.map((m) => m.subject)).toContain(`Welcome to Realm ${w.subdomain}`);
    const dms = (await admin.ok('GET', '/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'dm' }]) })).messages as { content: string }[];
    expect(dms.some((m) => m.content.includes('accepted your invitation'))).toBe(true);
  });

  it('revokes and resends, for the referrer and administrators only', async () => {
    const email = `maybe@${w.subdomain}.test`;
    expectOk(await member.post('/invites', { invitee_emails: email, stream_ids: '[]', notify_referrer_on_join: false }));
    await mailsTo(w.smtp, email);
    const invite = ((await member.ok('GET', '/invites')).invites as { id: number; email: string; notify_referrer_on_join: boolean }[]).find((i) => i.email === email)!;
    expect(invite.notify_referrer_on_join).toBe(false);
    const other = await w.user('Oscar Other');
    expectFailure(await other.post(`/invites/${invite.id}/resend`), 400, 'BAD_REQUEST', 'Must be an organization administrator');
    expectFailure(await other.delete(`/invites/${invite.id}`), 400, 'BAD_REQUEST', 'Must be an organization administrator');
    expectResponse('POST /invites/{id}/resend', await member.post(`/invites/${invite.id}/resend`));
    const mails = await mailsTo(w.smtp, email, 2);
    expect(joinLink(mails[1]!)).toBe(joinLink(mails[0]!));
    expectResponse('DELETE /invites/{id}', await admin.delete(`/invites/${invite.id}`));
    expectFailure(await member.delete(`/invites/${invite.id}`), 400, 'BAD_REQUEST', 'No such invitation');
    expectFailure(await member.post(`/invites/${invite.id}/resend`), 400, 'BAD_REQUEST', 'No such invitation');
    expectFailure(await anonymousPost(w.server.port, w.subdomain, '/register_with_invite', { key: keyOf(joinLink(mails[0]!)), email, password: 'pass-word-123', full_name: 'Late' }), 400, 'BAD_REQUEST', 'Invalid invitation link.');
    expectFailure(await admin.delete('/invites/999999'), 400, 'BAD_REQUEST', 'No such invitation');
  });

  it('answers with Zulip errors and sends nothing on bad input or missing rights', async () => {
    const before = w.smtp.mails.length;
    expectFailure(await guest.post('/invites', { invitee_emails: 'x@example.test', stream_ids: '[]' }), 400, 'BAD_REQUEST', 'Not allowed for guest users');
    expectFailure(await member.post('/invites', { invitee_emails: 'x@example.test', stream_ids: '[]', invite_as: 200 }), 400, 'BAD_REQUEST', 'Must be an organization administrator');
    expectFailure(await admin.post('/invites', { invitee_emails: 'x@example.test', stream_ids: '[]', invite_as: 100 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
    expectFailure(await admin.post('/invites', { invitee_emails: '', stream_ids: '[]' }), 400, 'BAD_REQUEST', 'You must specify at least one email address.');
    expectFailure(await admin.post('/invites', { invitee_emails: 'x@example.test' }), 400, 'REQUEST_VARIABLE_MISSING');
    expectFailure(await admin.post('/invites', { invitee_emails: 'x@example.test', stream_ids: '[424242]' }), 400, 'BAD_REQUEST', 'Invalid channel ID 424242. No invites were sent.');
    const bad = expectFailure(await admin.post('/invites', { invitee_emails: 'good@example.test, not-an-address', stream_ids: '[]' }), 400, 'INVITATION_FAILED');
    expect(bad).toMatchObject({ sent_invitations: false, daily_limit_reached: false, license_limit_reached: false, errors: [['not-an-address', 'Invalid address.', false]] });
    const taken = expectFailure(await admin.post('/invites', { invitee_emails: member.user.email!, stream_ids: '[]' }), 400, 'INVITATION_FAILED', "We weren't able to invite anyone.");
    expect(taken.errors).toEqual([[member.user.email, 'Already has an account.', false]]);
    // The realm policy: only administrators may invite.
    expectOk(await w.owner.patch('/realm', { can_invite_users_group: JSON.stringify({ new: sys['role:administrators'] }) }));
    expectFailure(await member.post('/invites', { invitee_emails: 'x@example.test', stream_ids: '[]' }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectOk(await w.owner.patch('/realm', { can_invite_users_group: JSON.stringify({ new: sys['role:members'] }) }));
    await new Promise((r) => setTimeout(r, 300));
    expect(w.smtp.mails.length).toBe(before);
    // Some addresses taken: the others are invited, and the error says so.
    const partly = expectFailure(await admin.post('/invites', { invitee_emails: `fresh@${w.subdomain}.test\n${member.user.email}`, stream_ids: '[]' }), 400, 'INVITATION_FAILED');
    expect(partly.sent_invitations).toBe(true);
    await mailsTo(w.smtp, `fresh@${w.subdomain}.test`);
  });

  it('stops at the per-day limit of invitation emails', async () => {
    const many = Array.from({ length: 100 }, (_, i) => `bulk${i}@example.test`).join(',');
    const r = expectFailure(await admin.post('/invites', { invitee_emails: many, stream_ids: '[]' }), 400, 'INVITATION_FAILED');
    expect(r).toMatchObject({ daily_limit_reached: true, sent_invitations: false });
  });
});

describe('changing the email address', () => {
  it('changes nothing until the link mailed to the new address is opened', async () => {
    const newEmail = `meg.new@${w.subdomain}.test`;
    const q = expectOk(await w.owner.post('/register', { event_types: '["realm_user"]' }));
    expectOk(await meg.patch('/settings', { email: newEmail }));
    const [mail] = await mailsTo(w.smtp, newEmail);
    expect(mail!.subject).toBe(`Confirm your new email address for Realm ${w.subdomain}`);
    expect(w.smtp.to(meg.user.email!)).toEqual([]);
    expect((await meg.ok('GET', '/users/me')).delivery_email).toBe(meg.user.email);
    const link = /(http:\/\/\S+\/accounts\/confirm_new_email\/[0-9a-f]+\/)/.exec(mail!.text)![1]!;
    expect(mail!.html).toContain(`href="${link}"`);
    const url = new URL(link);
    const opened = await httpRequest(w.server.port, { method: 'GET', path: url.pathname, host: url.host, headers: { Host: url.host } });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(opened.body.msg).toBe('Your new email address is confirmed.');
    // The old credentials name the old address; the new address works with the same key.
    const renamed = new OwnClient(w.server.port, { subdomain: w.subdomain, email: newEmail, apiKey: meg.user.apiKey, userId: meg.userId } as never);
    expect((await renamed.ok('GET', '/users/me')).delivery_email).toBe(newEmail);
    const events = (await w.owner.ok('GET', '/events', { queue_id: q.queue_id, last_event_id: q.last_event_id, dont_block: 'true' })).events as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(events).toContainEqual(expect.objectContaining({ type: 'realm_user', op: 'update', person: { user_id: meg.userId, delivery_email: newEmail } }));
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
    // Two changes an hour (Zulip's email_change_by_user).
    expectOk(await w.owner.patch('/settings', { email: `olivia3@${w.subdomain}.test` }));
    expectFailure(await w.owner.patch('/settings', { email: `olivia4@${w.subdomain}.test` }), 429, 'RATE_LIMIT_HIT');
    await mailsTo(w.smtp, `olivia3@${w.subdomain}.test`);
    expect(w.smtp.to(`olivia4@${w.subdomain}.test`)).toEqual([]);
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
