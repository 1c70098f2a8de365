// An email whose job is lost with its process (in-process jobs live in memory; here the
// process is killed) is found again in the outbox by the next start's sweep, and sent once.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOwnServer, type OwnServer } from '../helpers/ownServer.js';
import { emailWorld, expectOk, mailsTo, type EmailWorld } from './email-helpers.js';

let w: EmailWorld;
let second: OwnServer | null = null;

const env = (port: number) => ({
  SMTP_HOST: '127.0.0.1',
  SMTP_PORT: String(port),
  EMAIL_RETRY_SECONDS: '0.3',
  EMAIL_SEND_ATTEMPTS: '20',
  EMAIL_SWEEP_SECONDS: '0.5',
});

beforeAll(async () => {
  w = await emailWorld('mailrestart', { EMAIL_SWEEP_SECONDS: '0.5' });
}, 60_000);

afterAll(async () => {
  await second?.stop();
  await w.stop();
});

describe('a crash during an SMTP outage', () => {
  it('loses no email', async () => {
    await w.smtp.down();
    expectOk(await w.owner.post('/invites', { invitee_emails: 'after-restart@example.test', stream_ids: '[]' }));
    await new Promise((r) => setTimeout(r, 1000));
    const exited = new Promise((r) => w.server.proc.once('exit', r));
    w.server.proc.kill('SIGKILL');
    await exited;
    // A try under way at the kill keeps its row claimed until the claim runs out: minutes,
    // longer than the transport's timeouts together, so that no other process sends it twice
    // meanwhile. That wait is by design (the sweep takes the row after it); the test lets the
    // claim run out now instead of waiting for it.
    const sql = postgres(w.databaseUrl, { max: 1, onnotice: () => undefined });
    await sql`UPDATE email_outbox SET claimed_until = now() WHERE sent_at IS NULL AND claimed_until IS NOT NULL`;
    await sql.end();
    await w.smtp.up();
    expect(w.smtp.mails).toEqual([]);
    second = await startOwnServer({ ...env(w.smtp.port), DATABASE_URL: w.databaseUrl }, false);
    await mailsTo(w.smtp, 'after-restart@example.test', 1, 15_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(w.smtp.to('after-restart@example.test')).toHaveLength(1);
  });
});
