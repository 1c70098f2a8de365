// The outbox of outgoing email. A row is claimed for one try at a time (claimed_until), marked
// sent once the mail server took it, and given up after the last try; the sweep finds rows
// whose job was lost.
import type { Sql } from './connect.js';

export interface OutgoingEmail {
  realmId: number | null;
  /** What the email is (invitation, missed_messages, …), for logs and tests. */
  kind: string;
  to: string;
  fromName: string;
  replyTo: string | null;
  subject: string;
  text: string;
  html: string;
}

export interface OutboxRow extends OutgoingEmail {
  id: number;
  messageId: string;
  attempts: number;
}

interface Row {
  id: string;
  realm_id: number | null;
  kind: string;
  to_address: string;
  from_name: string;
  reply_to: string | null;
  subject: string;
  text_body: string;
  html_body: string;
  message_id: string;
  attempts: number;
}

const toOutbox = (r: Row): OutboxRow => ({
  id: Number(r.id),
  realmId: r.realm_id,
  kind: r.kind,
  to: r.to_address,
  fromName: r.from_name,
  replyTo: r.reply_to,
  subject: r.subject,
  text: r.text_body,
  html: r.html_body,
  messageId: r.message_id,
  attempts: r.attempts,
});

export async function insertOutgoingEmail(sql: Sql, e: OutgoingEmail, messageIdDomain: string): Promise<number> {
  const rows = await sql<{ id: string }[]>`
    INSERT INTO email_outbox (realm_id, kind, to_address, from_name, reply_to, subject, text_body, html_body, message_id)
    VALUES (${e.realmId}, ${e.kind}, ${e.to}, ${e.fromName}, ${e.replyTo}, ${e.subject}, ${e.text}, ${e.html},
            'pending')
    RETURNING id`;
  const id = Number(rows[0]!.id);
  // A stable Message-ID: a try repeated after a lost answer carries the same one.
  await sql`UPDATE email_outbox SET message_id = ${`<outbox-${id}.${Date.now().toString(36)}@${messageIdDomain}>`} WHERE id = ${id}`;
  return id;
}

/** Takes a row for one try (none when it was sent, given up, or is being tried elsewhere). */
export async function claimOutgoingEmail(sql: Sql, id: number, claimSeconds: number): Promise<OutboxRow | null> {
  const rows = await sql<Row[]>`
    UPDATE email_outbox SET claimed_until = now() + make_interval(secs => ${claimSeconds})
    WHERE id = ${id} AND sent_at IS NULL AND failed_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
    RETURNING *`;
  return rows[0] ? toOutbox(rows[0]) : null;
}

export async function markEmailSent(sql: Sql, id: number): Promise<void> {
  await sql`UPDATE email_outbox SET sent_at = now(), claimed_until = NULL, attempts = attempts + 1, last_error = NULL WHERE id = ${id}`;
}

export async function markEmailFailed(sql: Sql, id: number, error: string, final: boolean): Promise<void> {
  await sql`
    UPDATE email_outbox SET claimed_until = NULL, attempts = attempts + 1, last_error = ${error},
                            failed_at = ${final ? new Date() : null}
    WHERE id = ${id}`;
}

/** Rows still to send, queued before `before` (their jobs may be lost). */
export async function pendingEmailIds(sql: Sql, before: Date, limit: number): Promise<number[]> {
  const rows = await sql<{ id: string }[]>`
    SELECT id FROM email_outbox
    WHERE sent_at IS NULL AND failed_at IS NULL AND created_at < ${before} AND (claimed_until IS NULL OR claimed_until < now())
    ORDER BY id LIMIT ${limit}`;
  return rows.map((r) => Number(r.id));
}

/** Forgets emails sent before `before` (failed ones stay for inspection). */
export async function deleteSentEmails(sql: Sql, before: Date): Promise<void> {
  await sql`DELETE FROM email_outbox WHERE sent_at < ${before}`;
}
