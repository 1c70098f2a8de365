// A real SMTP server on loopback that keeps every email it receives (smtp-server in capture
// mode, parsed with mailparser). `down()` makes it refuse every connection (421, service not
// available) and `up()` serves again: an outage that keeps the port, so that no other test's
// server can take it meanwhile.
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { freePort } from '../../scripts/freePort.js';

export interface CapturedMail {
  from: string;
  to: string[];
  parsed: ParsedMail;
  subject: string;
  text: string;
  html: string;
  replyTo: string;
  messageId: string;
}

export class SmtpCapture {
  readonly mails: CapturedMail[] = [];
  private server: SMTPServer | null = null;
  private refusing = false;

  private constructor(readonly port: number) {}

  static async start(): Promise<SmtpCapture> {
    const capture = new SmtpCapture(await freePort());
    await capture.up();
    return capture;
  }

  async up(): Promise<void> {
    this.refusing = false;
    if (this.server) return;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onConnect: (_session, callback) => {
        if (this.refusing) return callback(Object.assign(new Error('Service not available'), { responseCode: 421 }));
        callback();
      },
      // A connection opened before the outage is refused too, at its next command.
      onMailFrom: (_address, _session, callback) => {
        if (this.refusing) return callback(Object.assign(new Error('Service not available'), { responseCode: 421 }));
        callback();
      },
      onData: (stream, session, callback) => {
        if (this.refusing) {
          stream.resume();
          stream.on('end', () => callback(Object.assign(new Error('Service not available'), { responseCode: 421 })));
          return;
        }
        simpleParser(stream)
          .then((parsed) => {
            this.mails.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              parsed,
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              replyTo: parsed.replyTo?.value.map((a) => a.address).join(',') ?? '',
              messageId: parsed.messageId ?? '',
            });
            callback();
          })
          .catch((err: Error) => callback(err));
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  async down(): Promise<void> {
    this.refusing = true;
  }

  to(address: string): CapturedMail[] {
    return this.mails.filter((m) => m.to.some((t) => t.toLowerCase() === address.toLowerCase()));
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
