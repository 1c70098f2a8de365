// Invitations by email against a real SMTP server: the email arrives with its link, the link
// creates the account in the invited channels and groups, revoke and resend work, and
// Zulip's permission, address and per-day checks answer with its errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnClient } from '../helpers/ownServer.js';
import { anonymousPost, emailWorld, expectFailure, expectOk, joinLink, mailsTo, type EmailWorld } from './email-helpers.js';

let w: EmailWorld;
let admin: OwnClient;
let member: OwnClient;
let guest: OwnClient;
let channelId: number;
let groupId: number;
let sys: Record<string, number>;

beforeAll(async () => {
  w = await emailWorld('mailinv');
  admin = await w.user('Ada Admin', 200);
  member = await w.user('Mia Member');
  guest = await w.user('Gus Guest', 600);
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
    expectOk(await admin.post('/invites', { invitee_emails: `New Comer <${email}>`, stream_ids: `[${channelId}]`, group_ids: `[${groupId}]`, invite_as: 300 }));
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

    const list = (await admin.ok('GET', '/invites')).invites as Record<string, unknown>[];
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
    expectOk(await member.post(`/invites/${invite.id}/resend`));
    const mails = await mailsTo(w.smtp, email, 2);
    expect(joinLink(mails[1]!)).toBe(joinLink(mails[0]!));
    expectOk(await admin.delete(`/invites/${invite.id}`));
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
