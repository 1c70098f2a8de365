// The incoming email gateway: an SMTP receiver (smtp-server) on EMAIL_GATEWAY_PORT for
// addresses at EMAIL_GATEWAY_DOMAIN. Recipients are checked when the sender names them (RCPT
// TO): an address that is not one of ours, or whose token does not exist, is refused then,
// before any data. The body is limited to EMAIL_GATEWAY_MAX_BYTES (announced with SIZE and
// enforced while reading). Each accepted email is parsed (mailparser) and posted by
// actions/email/incoming.ts in the realm's actor; a realm this process may not hold answers
// with a temporary failure, so that the sending server tries again (without duplicates).
import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { SMTPServer, type SMTPServerAddress, type SMTPServerSession } from 'smtp-server';
import { simpleParser } from 'mailparser';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { RealmRegistry } from '../realm/registry.js';
import { RealmNotHereError } from '../realm/services.js';
import { ApiError } from '../model/errors.js';
import { parseGatewayAddress, type GatewayAddress } from '../model/emailAddresses.js';
import { findChannelEmailToken, type ChannelEmailTarget } from '../db/channelEmail.js';
import { findMissedMessageAddress, type MissedMessageAddress } from '../db/missedMessages.js';
import { plainTextOfHtml } from '../views/pushContent.js';
import { STAGING_PREFIX } from '../http/upload.js';
import type { UploadedFile } from '../http/contract.js';
import { postChannelEmail, postMissedMessageReply, type IncomingEmail } from '../actions/email/incoming.js';

type Resolved =
  | { address: string; kind: 'channel'; target: ChannelEmailTarget; parsed: Extract<GatewayAddress, { kind: 'channel' }> }
  | { address: string; kind: 'missed_message'; target: MissedMessageAddress };

/** An SMTP reply with a code: 5xx refuses for good, 4xx asks the sender to try later. */
function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

export interface EmailGateway {
  port: number;
  close(): Promise<void>;
}

export async function startEmailGateway(config: Config, registry: RealmRegistry, log: Logger): Promise<EmailGateway | null> {
  const port = config.EMAIL_GATEWAY_PORT;
  const domain = config.EMAIL_GATEWAY_DOMAIN;
  if (port === undefined) return null;
  if (!domain) throw new Error('EMAIL_GATEWAY_PORT is set but EMAIL_GATEWAY_DOMAIN is not: the gateway would accept no address');
  const glog = log.child({ component: 'email-gateway' });
  const { sql, storage } = registry.services;

  /** Writes attachments to the uploads area under staging keys, as the front does with uploaded files. */
  async function stageAttachments(parts: { content: Buffer; filename?: string; contentType: string; size: number }[]): Promise<UploadedFile[]> {
    const out: UploadedFile[] = [];
    for (const part of parts) {
      const key = `${STAGING_PREFIX}/${randomUUID()}`;
      const { size } = await storage.put('uploads', key, Readable.from([part.content]), part.contentType);
      out.push({ field: 'file', key, filename: part.filename ?? 'attachment', contentType: part.contentType, size });
    }
    return out;
  }
  const resolvedBySession = new WeakMap<SMTPServerSession, Resolved[]>();

  async function resolve(address: string): Promise<Resolved | null> {
    const parsed = parseGatewayAddress(address, domain!);
    if (!parsed) return null;
    if (parsed.kind === 'missed_message') {
      const target = await findMissedMessageAddress(sql, parsed.token);
      return target ? { address, kind: 'missed_message', target } : null;
    }
    const target = await findChannelEmailToken(sql, parsed.token);
    return target ? { address, kind: 'channel', target, parsed } : null;
  }

  async function deliver(r: Resolved, mail: IncomingEmail): Promise<number> {
    const realmId = r.target.realmId;
    // Not held here, or moving away meanwhile (nothing was posted): the sender tries again.
    try {
      const actor = await registry.holdForJob(realmId);
      if (!actor) throw smtpError(451, '4.3.0 Try again later');
      return await actor.working(() =>
        r.kind === 'channel'
          ? postChannelEmail(actor, r.target, r.address, r.parsed.options, mail)
          : postMissedMessageReply(actor, r.target, r.address, mail),
      );
    } catch (err) {
      if (err instanceof RealmNotHereError) throw smtpError(451, '4.3.0 Try again later');
      throw err;
    }
  }

  const server = new SMTPServer({
    name: domain,
    banner: 'email gateway',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: config.EMAIL_GATEWAY_MAX_BYTES,
    logger: false,
    onRcptTo(address: SMTPServerAddress, session, callback) {
      resolve(address.address)
        .then((r) => {
          if (!r) return callback(smtpError(550, `5.1.1 <${address.address}>: no such address`));
          resolvedBySession.set(session, [...(resolvedBySession.get(session) ?? []), r]);
          callback();
        })
        .catch((err: unknown) => {
          glog.error({ err }, 'could not look up a recipient');
          callback(smtpError(451, '4.3.0 Try again later'));
        });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const targets = resolvedBySession.get(session) ?? [];
        resolvedBySession.delete(session);
        if (stream.sizeExceeded) return callback(smtpError(552, `5.3.4 Message too big (limit: ${config.EMAIL_GATEWAY_MAX_BYTES} bytes)`));
        const raw = Buffer.concat(chunks);
        receive(raw, targets)
          .then(() => callback())
          .catch((err: unknown) => callback(err instanceof Error ? err : new Error(String(err))));
      });
    },
  });

  async function receive(raw: Buffer, targets: Resolved[]): Promise<void> {
    const parsed = await simpleParser(raw);
    const text = parsed.text?.trim() ? parsed.text : typeof parsed.html === 'string' ? plainTextOfHtml(parsed.html) : '';
    const messageKey = parsed.messageId ?? createHash('sha256').update(raw).digest('hex');
    const refused: string[] = [];
    for (const t of targets) {
      // Each recipient's post keeps its own copy of the attachments (uploads move them).
      const attachments = await stageAttachments(parsed.attachments);
      const mail: IncomingEmail = { subject: parsed.subject ?? '', text, from: parsed.from?.value[0]?.address ?? '', messageKey, attachments };
      try {
        const id = await deliver(t, mail);
        glog.info({ realm: t.target.realmId, kind: t.kind, message: id }, 'email posted');
      } catch (err) {
        if (err instanceof ApiError) refused.push(`${t.address}: ${err.message}`);
        else throw err;
      } finally {
        for (const a of attachments) await storage.delete('uploads', a.key);
      }
    }
    if (refused.length > 0) throw smtpError(550, `5.7.1 Not posted: ${refused.join('; ')}`);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, config.HOST, () => resolve());
  });
  server.on('error', (err: Error) => glog.warn({ err: err.message }, 'email gateway error'));
  const bound = (server.server.address() as { port: number }).port;
  glog.info({ port: bound, domain }, 'email gateway listening');
  return {
    port: bound,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
