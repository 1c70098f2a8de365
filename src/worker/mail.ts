// The SMTP transport of outgoing mail (nodemailer), from SMTP_* settings. SMTP_SECURE=true
// speaks TLS from the start; otherwise the connection upgrades with STARTTLS when the server
// offers it.
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';

export interface MailMessage {
  from: string;
  to: string;
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
}

export interface MailTransport {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export function createMailTransport(config: Config): MailTransport | null {
  if (!config.SMTP_HOST) return null;
  const transporter = nodemailer.createTransport({
    host: config.SMTP_HOST,
    port: config.SMTP_PORT ?? (config.SMTP_SECURE ? 465 : 587),
    secure: config.SMTP_SECURE,
    auth: config.SMTP_USER ? { user: config.SMTP_USER, pass: config.SMTP_PASSWORD ?? '' } : undefined,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  });
  return {
    async send(m) {
      await transporter.sendMail({
        from: m.from,
        to: m.to,
        replyTo: m.replyTo,
        subject: m.subject,
        text: m.text,
        html: m.html,
        messageId: m.messageId,
      });
    },
    close: () => transporter.close(),
  };
}

/** Said once at start: operators learn that email is off before they miss it. */
export function logMailConfiguration(config: Config, log: Logger): void {
  if (!config.SMTP_HOST) {
    log.warn('Outgoing email is not configured (SMTP_HOST is not set): invitations, notifications and confirmations are not sent by email');
  }
}
