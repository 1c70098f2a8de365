// Sending outgoing email. `email-send` tries one outbox row: it claims the row (so a job run
// twice, or by two workers, sends it once), hands it to the SMTP server, and marks it sent; a
// failure is retried with backoff, and the last one gives the row up (logged, kept with its
// error). `email-sweep` queues rows whose job was lost (a restart of the in-process runner),
// and missed-message batches whose wake-up was lost; it forgets sent emails after 30 days.
import { PermanentJobError, describeError, type JobDefinition } from '../../jobs/types.js';
import type { EmailSendJob, EmailSweepJob } from '../../jobs/payloads.js';
import { claimOutgoingEmail, deleteSentEmails, markEmailFailed, markEmailSent, pendingEmailIds } from '../../db/emailOutbox.js';
import { noreplyAddress } from '../../views/emails/layout.js';
import { queueOutboxSend } from '../../actions/email/outbox.js';
import { overdueMissedMessageUsers } from '../../db/missedMessages.js';
import type { WorkerJobDeps } from './deps.js';

/** How long one try holds its row: longer than the transport's timeouts together. */
const CLAIM_SECONDS = 300;
const SWEEP_BATCH = 500;
/** How long sent emails stay in the outbox. */
const KEEP_SENT_MS = 30 * 24 * 3600 * 1000;

/** `"Name" <address>` with the name quoted for a header. */
const fromHeader = (name: string, address: string) => `"${name.replace(/["\\\r\n]/g, '')}" <${address}>`;

export const emailSendJob: JobDefinition<EmailSendJob, WorkerJobDeps> = {
  async run(job, { deps, attempt, log }) {
    if (!deps.mailer) throw new PermanentJobError('SMTP_HOST is not set');
    const row = await claimOutgoingEmail(deps.sql, job.outboxId, CLAIM_SECONDS);
    if (!row) return;
    try {
      await deps.mailer.send({
        from: fromHeader(row.fromName, noreplyAddress(deps.config)),
        to: row.to,
        replyTo: row.replyTo ?? undefined,
        subject: row.subject,
        text: row.text,
        html: row.html,
        messageId: row.messageId,
      });
    } catch (err) {
      const final = attempt >= job.attempts;
      await markEmailFailed(deps.sql, row.id, describeError(err), final);
      if (final) log.error({ outbox: row.id, kind: row.kind, err: describeError(err) }, 'email given up');
      throw err;
    }
    await markEmailSent(deps.sql, row.id);
    log.debug({ outbox: row.id, kind: row.kind }, 'email sent');
  },
};

export const emailSweepJob: JobDefinition<EmailSweepJob, WorkerJobDeps> = {
  attempts: 1,
  async run(_data, { deps, log }) {
    if (!deps.mailer) return;
    const { config } = deps;
    const before = new Date(Date.now() - 2 * config.EMAIL_SWEEP_SECONDS * 1000);
    const ids = await pendingEmailIds(deps.sql, before, SWEEP_BATCH);
    for (const id of ids) await queueOutboxSend(deps.registry.services, id);
    if (ids.length > 0) log.info({ emails: ids.length }, 'pending emails queued again');
    await deleteSentEmails(deps.sql, new Date(Date.now() - KEEP_SENT_MS));
    // Missed-message batches whose wake-up was lost (dropped at a restart).
    const users = await overdueMissedMessageUsers(deps.sql, before, SWEEP_BATCH);
    for (const u of users) {
      await deps.registry.services.jobs.enqueue('missed-message-email', u, { jobId: `missed-${u.userId}-sweep-${Math.floor(Date.now() / 1000)}` });
    }
  },
};
