// Email jobs on BullMQ (REDIS_URL set): a missed-message batch (a delayed job) and an
// invitation wait out an SMTP outage and arrive once each when the server is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OwnClient } from '../helpers/ownServer.js';
import { emailWorld, expectOk, mailsTo, type EmailWorld } from './email-helpers.js';

let w: EmailWorld;
let alice: OwnClient;
let bob: OwnClient;

beforeAll(async () => {
  w = await emailWorld('mailbull', {}, true);
  alice = await w.user('Alice Bull');
  bob = await w.user('Bob Bull');
  expectOk(await bob.patch('/settings', { email_notifications_batching_period_seconds: 1 }));
}, 60_000);

afterAll(async () => {
  await w.stop();
});

describe('email with BullMQ jobs', () => {
  it('retries through an SMTP outage and sends each email once', async () => {
    await w.smtp.down();
    await alice.ok('POST', '/messages', { type: 'direct', to: `[${bob.userId}]`, content: 'queued in redis' });
    expectOk(await alice.post('/invites', { invitee_emails: 'bull-invitee@example.test', stream_ids: '[]' }));
    await new Promise((r) => setTimeout(r, 2000));
    expect(w.smtp.mails).toEqual([]);
    await w.smtp.up();
    const [dm] = await mailsTo(w.smtp, bob.user.email!, 1, 15_000);
    await mailsTo(w.smtp, 'bull-invitee@example.test', 1, 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(dm!.text).toContain('queued in redis');
    expect(w.smtp.to(bob.user.email!)).toHaveLength(1);
    expect(w.smtp.to('bull-invitee@example.test')).toHaveLength(1);
  });
});
