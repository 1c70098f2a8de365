// Missed-message emails and the incoming gateway, against real SMTP on both sides: a direct
// message to an offline user yields one batched email whose reply, sent over SMTP to the
// gateway, posts into the conversation; mail to a channel's address posts in the channel;
// unknown addresses and oversized mail are refused at SMTP time; a retried email posts once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectResponse } from '../helpers/responses/index.js';
import nodemailer from 'nodemailer';
import { freePort } from '../../scripts/freePort.js';
import { until, type OwnClient } from '../helpers/ownServer.js';
import { emailWorld, expectFailure, expectOk, GATEWAY_DOMAIN, mailsTo, type EmailWorld } from './email-helpers.js';
import postgres from 'postgres';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { RealmRegistry } from '../../src/realm/registry.js';
import type { Services } from '../../src/realm/services.js';
import { findRealmById } from '../../src/db/realms.js';
import { startEmailGateway } from '../../src/worker/emailGateway.js';

let w: EmailWorld;
let gatewayPort: number;
let alice: OwnClient;
let bob: OwnClient;
let carol: OwnClient;
let channelId: number;

/** Sends an email to the gateway over SMTP; resolves with the SMTP error code when refused. */
async function mailGateway(
  to: string,
  subject: string,
  text: string,
  extra: { messageId?: string; from?: string; attachments?: { filename: string; content: string }[] } = {},
): Promise<number | null> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: gatewayPort, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ from: extra.from ?? 'someone@example.test', to, subject, text, messageId: extra.messageId, attachments: extra.attachments });
    return null;
  } catch (err) {
    return (err as { responseCode?: number }).responseCode ?? -1;
  } finally {
    transport.close();
  }
}

async function latest(c: OwnClient, narrow: unknown[]): Promise<Record<string, any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return (await c.ok('GET', '/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify(narrow) })).messages as Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any
}

beforeAll(async () => {
  gatewayPort = await freePort();
  w = await emailWorld('mailmm', { EMAIL_GATEWAY_PORT: String(gatewayPort), EMAIL_GATEWAY_MAX_BYTES: '20000' });
  alice = await w.user('Alice Sender');
  bob = await w.user('Bob Away');
  carol = await w.user('Carol Here');
  for (const u of [bob, carol]) expectOk(await u.patch('/settings', { email_notifications_batching_period_seconds: 1 }));
  for (const u of [alice, bob]) await u.ok('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'mailroom' }]) });
  const streams = (await alice.ok('GET', '/streams')).streams as { name: string; stream_id: number }[];
  channelId = streams.find((s) => s.name === 'mailroom')!.stream_id;
}, 60_000);

afterAll(async () => {
  await w.stop();
});

describe('missed-message emails', () => {
  it('mails an offline user one batch of direct messages, and a reply over SMTP posts into the conversation', async () => {
    const first = (await alice.ok('POST', '/messages', { type: 'direct', to: `[${bob.userId}]`, content: 'Are you there?' })).id as number;
    await alice.ok('POST', '/messages', { type: 'direct', to: `[${bob.userId}]`, content: 'Second **thought**' });
    const [mail] = await mailsTo(w.smtp, bob.user.email!, 1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(w.smtp.to(bob.user.email!)).toHaveLength(1);
    expect(mail!.subject).toBe('DMs with Alice Sender');
    expect(mail!.text).toContain('Alice Sender: Are you there?');
    expect(mail!.text).toContain('Second thought');
    expect(mail!.html).toContain('<strong>thought</strong>');
    expect(mail!.html).toContain(`http://${w.subdomain}.localhost:${w.server.port}/#narrow/dm/`);
    expect(mail!.replyTo).toMatch(new RegExp(`^mm[0-9a-f]{32}@${GATEWAY_DOMAIN}$`));

    const reply = 'Yes, here.\n\nOn Tue, Alice Sender wrote:\n> Are you there?\n';
    expect(await mailGateway(mail!.replyTo, `Re: ${mail!.subject}`, reply, { messageId: '<reply-1@client.test>', from: bob.user.email })).toBeNull();
    const dm = await until(async () => (await latest(alice, [{ operator: 'dm', operand: [bob.userId] }])).find((m) => m.sender_id === bob.userId), 'the reply');
    expect(dm!.content).toBe('<p>Yes, here.</p>');
    expect(dm!.id).toBeGreaterThan(first);
    // The sending server retries the same email: nothing new is posted.
    expect(await mailGateway(mail!.replyTo, `Re: ${mail!.subject}`, reply, { messageId: '<reply-1@client.test>' })).toBeNull();
    await new Promise((r) => setTimeout(r, 300));
    expect((await latest(alice, [{ operator: 'dm', operand: [bob.userId] }])).filter((m) => m.sender_id === bob.userId)).toHaveLength(1);
  });

  it('sends nothing for messages read before the batch is due, to online users, or from muted channels', async () => {
    const before = w.smtp.mails.length;
    const id = (await alice.ok('POST', '/messages', { type: 'direct', to: `[${bob.userId}]`, content: 'read me now' })).id as number;
    expectOk(await bob.post('/messages/flags', { messages: `[${id}]`, op: 'add', flag: 'read' }));
    // A sender Bob muted.
    const dave = await w.user('Dave Muted');
    await dave.ok('GET', '/users/me');
    expectOk(await bob.post(`/users/me/muted_users/${dave.userId}`));
    await dave.ok('POST', '/messages', { type: 'direct', to: `[${bob.userId}]`, content: 'from a muted sender' });
    // Carol is online: a queue receiving messages and fresh presence.
    expectOk(await carol.post('/register', { event_types: '["message"]' }));
    expectOk(await carol.post('/users/me/presence', { status: 'active' }));
    await alice.ok('POST', '/messages', { type: 'direct', to: `[${carol.userId}]`, content: 'you are online' });
    // Bob asks for channel emails, but mutes the channel: only a personal mention gets through.
    expectOk(await bob.patch('/settings', { enable_stream_email_notifications: true }));
    expectOk(await bob.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: channelId, property: 'is_muted', value: true }]) }));
    await alice.ok('POST', '/messages', { type: 'stream', to: 'mailroom', topic: 'quiet', content: 'muted chatter' });
    await alice.ok('POST', '/messages', { type: 'stream', to: 'mailroom', topic: 'quiet', content: `@**Bob Away** look` });
    const [mail] = await mailsTo(w.smtp, bob.user.email!, 2);
    await new Promise((r) => setTimeout(r, 1500));
    const fresh = w.smtp.mails.slice(before);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]!.subject).toBe('#mailroom > quiet');
    expect(fresh[0]!.text).toContain('look');
    expect(fresh[0]!.text).not.toContain('muted chatter');
    expect(fresh.some((m) => m.text.includes('from a muted sender'))).toBe(false);
    expect(mail).toBeDefined();
  });
});

describe('the channel email gateway', () => {
  it("gives the channel's address in Zulip's format, with Zulip's errors", async () => {
    const { email } = expectResponse('GET /streams/{id}/email_address', await alice.get(`/streams/${channelId}/email_address`));
    expect(email).toMatch(new RegExp(`^mailroom\\.[0-9a-f]{32}\\.show-sender@${GATEWAY_DOMAIN}$`));
    // The same address again; another for another sender.
    expect((await alice.ok('GET', `/streams/${channelId}/email_address`)).email).toBe(email);
    const own = (await alice.ok('GET', `/streams/${channelId}/email_address`, { sender_id: alice.userId })).email;
    expect(own).not.toBe(email);
    expectFailure(await alice.get(`/streams/${channelId}/email_address`, { sender_id: bob.userId }), 400, 'BAD_REQUEST', 'No such bot');
    expectFailure(await alice.get('/streams/987654/email_address'), 400, 'BAD_REQUEST', 'Invalid channel ID');
    await w.owner.ok('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'vault' }]), invite_only: 'true' });
    const vault = ((await w.owner.ok('GET', '/streams')).streams as { name: string; stream_id: number }[]).find((s) => s.name === 'vault')!.stream_id;
    expectFailure(await alice.get(`/streams/${vault}/email_address`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  });

  it('posts mail to the address in the channel with the subject as topic, once per email', async () => {
    const { email } = await alice.ok('GET', `/streams/${channelId}/email_address`);
    const attachments = [{ filename: 'build.log', content: 'step 3 failed\n' }];
    expect(await mailGateway(email, 'Fwd: Build 42 failed', 'The build broke.\n\n-- \nCI robot', { messageId: '<ci-42@ci.test>', from: 'ci@ci.test', attachments })).toBeNull();
    const msg = await until(async () => (await latest(alice, [{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: 'Build 42 failed' }]))[0], 'the posted email');
    expect(msg.sender_full_name).toBe('Email Gateway');
    expect(msg.content).toMatch(/^<p>From: <a href="mailto:ci@ci.test">ci@ci.test<\/a>/);
    expect(msg.content).toContain('The build broke.');
    expect(msg.content).not.toContain('CI robot');
    // The attachment is an upload, linked under the text.
    expect(msg.content).toMatch(new RegExp(`<a href="/user_uploads/\\d+/[^"]+/build\\.log">build\\.log</a>`));
    expect(await mailGateway(email, 'Fwd: Build 42 failed', 'The build broke.', { messageId: '<ci-42@ci.test>' })).toBeNull();
    await new Promise((r) => setTimeout(r, 300));
    expect(await latest(alice, [{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: 'Build 42 failed' }])).toHaveLength(1);
  });

  it('refuses unknown and forged addresses at RCPT time, and mail over the size limit', async () => {
    const { email } = await alice.ok('GET', `/streams/${channelId}/email_address`);
    const forged = email.replace(/\.[0-9a-f]{32}\./, `.${'0'.repeat(32)}.`);
    expect(await mailGateway(forged, 'x', 'y')).toBe(550);
    expect(await mailGateway(`mm${'f'.repeat(32)}@${GATEWAY_DOMAIN}`, 'x', 'y')).toBe(550);
    expect(await mailGateway('mailroom@elsewhere.test', 'x', 'y')).toBe(550);
    expect(await mailGateway(email, 'big', 'z'.repeat(30_000))).toBe(552);
    // An address of a private channel stops working for a former subscriber (refused, not posted).
    await alice.ok('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'closet' }]), invite_only: 'true' });
    const closet = ((await alice.ok('GET', '/streams')).streams as { name: string; stream_id: number }[]).find((s) => s.name === 'closet')!.stream_id;
    const closetEmail = (await alice.ok('GET', `/streams/${closet}/email_address`)).email as string;
    await alice.ok('DELETE', '/users/me/subscriptions', { subscriptions: JSON.stringify(['closet']) });
    expect(await mailGateway(closetEmail, 'after leaving', 'still here?')).toBe(550);
    expect(await latest(alice, [{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: 'big' }])).toHaveLength(0);
  });
});

describe('with the SMTP server down', () => {
  it('retries until it is back: every email arrives, once', async () => {
    await w.smtp.down();
    const addresses = ['outage1@example.test', 'outage2@example.test'];
    expectOk(await w.owner.post('/invites', { invitee_emails: addresses.join(','), stream_ids: '[]' }));
    await alice.ok('POST', '/messages', { type: 'direct', to: `[${bob.userId}]`, content: 'during the outage' });
    // Long enough for several failed tries (EMAIL_RETRY_SECONDS is 0.3 here).
    await new Promise((r) => setTimeout(r, 2500));
    const bobBefore = w.smtp.to(bob.user.email!).length;
    await w.smtp.up();
    for (const a of addresses) expect(await mailsTo(w.smtp, a, 1, 15_000)).toHaveLength(1);
    const bobMails = await mailsTo(w.smtp, bob.user.email!, bobBefore + 1, 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(w.smtp.to(bob.user.email!)).toHaveLength(bobMails.length);
    expect(bobMails[bobMails.length - 1]!.text).toContain('during the outage');
    for (const a of addresses) expect(w.smtp.to(a)).toHaveLength(1);
  });
});

describe('a gateway whose realm moves away while mail comes in', () => {
  it('answers 451 (try again later) and posts nothing', async () => {
    const { email } = await alice.ok('GET', `/streams/${channelId}/email_address`);
    const sql = postgres(w.databaseUrl, { max: 2, onnotice: () => undefined });
    const port = await freePort();
    const config = loadConfig({ DATABASE_URL: w.databaseUrl, EMAIL_GATEWAY_PORT: String(port), EMAIL_GATEWAY_DOMAIN: GATEWAY_DOMAIN });
    // A cluster worker's registry whose realm has just been handed over: its actor is retired.
    const registry = new RealmRegistry({ config, sql, log: pino({ level: 'silent' }) } as unknown as Services, { activation: 'managed' });
    registry.setJobActivation(async (realmId) => {
      const actor = await registry.activate((await findRealmById(sql, realmId))!);
      actor.retire();
      return actor;
    });
    const gateway = (await startEmailGateway(config, registry, pino({ level: 'silent' })))!;
    try {
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: gateway.port, secure: false, ignoreTLS: true });
      const refused = await transport
        .sendMail({ from: 'mover@example.test', to: email, subject: 'Sent during a move', text: 'hello' })
        .then(() => null, (err: { responseCode?: number }) => err.responseCode ?? -1);
      transport.close();
      expect(refused).toBe(451);
      await new Promise((r) => setTimeout(r, 300));
      expect(await latest(alice, [{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: 'Sent during a move' }])).toEqual([]);
    } finally {
      await gateway.close();
      registry.close();
      await sql.end({ timeout: 5 });
    }
  });
});
