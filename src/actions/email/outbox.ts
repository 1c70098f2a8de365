// Queues outgoing email: a row in the outbox, then an `email-send` job for it (the sweep
// queues it again if the job is lost). Never on the request's critical path: the row is
// written, the sending happens in a job. Without SMTP_HOST nothing is queued, as Zulip's
// server without EMAIL_HOST drops its emails (the first start says so).
import type { Services } from '../../realm/services.js';
import { insertOutgoingEmail, type OutgoingEmail } from '../../db/emailOutbox.js';
import { noreplyAddress } from '../../views/emails/layout.js';

export const emailJobId = (outboxId: number) => `email-${outboxId}`;

/** Whether outgoing email is configured at all. */
export const emailEnabled = (services: Pick<Services, 'config'>) => !!services.config.SMTP_HOST;

export async function queueEmail(services: Services, email: OutgoingEmail): Promise<void> {
  const { config, log } = services;
  if (!emailEnabled(services)) {
    log.debug({ kind: email.kind }, 'email not sent: SMTP_HOST is not set');
    return;
  }
  const id = await insertOutgoingEmail(services.sql, email, messageIdDomain(config));
  await queueOutboxSend(services, id);
}

/** The domain of the Message-IDs of outgoing mail. */
export const messageIdDomain = (config: Services['config']) => noreplyAddress(config).split('@')[1] ?? 'localhost';

/** Queues the job of an outbox row already written (a failure is left to the sweep). */
export async function queueOutboxSend(services: Pick<Services, 'config' | 'jobs' | 'log'>, id: number): Promise<void> {
  const { config } = services;
  await services.jobs
    .enqueue('email-send', { outboxId: id, attempts: config.EMAIL_SEND_ATTEMPTS }, {
      jobId: emailJobId(id),
      attempts: config.EMAIL_SEND_ATTEMPTS,
      backoffMs: config.EMAIL_RETRY_SECONDS * 1000,
    })
    .catch((err: unknown) => services.log.warn({ err, outbox: id }, 'could not queue an email; the sweep will'));
}

/** Queues emails without failing the caller: the change that caused them is already committed. */
export function queueEmailsInBackground(services: Services, emails: OutgoingEmail[]): void {
  for (const e of emails) {
    queueEmail(services, e).catch((err: unknown) => services.log.error({ err, kind: e.kind }, 'could not queue an email'));
  }
}
