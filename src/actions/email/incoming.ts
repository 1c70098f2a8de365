// Mail received by the gateway becomes a message: to a channel's address, in that channel
// (subject → topic, as its address's sender); in reply to a missed-message email, in the
// conversation of that email, as the user it was sent to. Attachments become uploads of the
// sender, linked under the text. A sender's retry of the same email posts nothing new: the
// email's Message-ID (and its address) is the send's idempotency key.
import { createHash } from 'node:crypto';
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from '../../model/limits.js';
import type { GatewayOption } from '../../model/emailAddresses.js';
import type { ChannelEmailTarget } from '../../db/channelEmail.js';
import type { MissedMessageAddress } from '../../db/missedMessages.js';
import { loadMessages } from '../../db/messages.js';
import { sendMessage } from '../messages/idempotency.js';
import { messageIdForIdempotencyKey } from '../../db/messages.js';
import type { UploadedFile } from '../../http/contract.js';
import { uploadFile } from '../files/uploads.js';
import { log } from '../../log.js';
import { canAccessChannelContent } from '../../permissions/channelAccess.js';
import { truncate } from '../messages/input.js';
import { EMAIL_GATEWAY_BOT, findSystemBot } from '../messages/notificationBot.js';

export interface IncomingEmail {
  subject: string;
  /** The plain-text body (the text part, or the HTML part made plain). */
  text: string;
  from: string;
  /** Message-ID header, or a digest of the raw email when it has none. */
  messageKey: string;
  /** Attachments, already written to the uploads area under staging keys. */
  attachments: UploadedFile[];
}

/** The send of an email, unless an earlier delivery of the same email already posted it. */
async function postOnce(actor: RealmActor, sender: User, key: string, mail: IncomingEmail, content: string, send: (content: string) => Promise<number>): Promise<number> {
  const earlier = await messageIdForIdempotencyKey(actor.sql, sender.id, key);
  if (earlier !== null) return earlier;
  const links: string[] = [];
  for (const file of mail.attachments) {
    try {
      const up = await uploadFile(actor, sender, [file]);
      links.push(`[${String(up.filename).replace(/[[\]]/g, '')}](${String(up.url)})`);
    } catch (err) {
      // Too large, or over the organization's quota: the text is posted without it.
      log.warn({ realm: actor.realm.stringId, file: file.filename, err: err instanceof Error ? err.message : String(err) }, 'email attachment not kept');
    }
  }
  return send(truncate(links.length ? `${content}\n${links.join('\n')}` : content, MAX_MESSAGE_LENGTH, '\n[message truncated]'));
}

/** Zulip drops reply prefixes from the subject. */
const topicOf = (subject: string) => {
  const t = subject.replace(/^\s*((re|fwd?|aw|wg)\s*:\s*)+/i, '').trim();
  return truncate(t === '' ? 'Email with no subject' : t, MAX_TOPIC_LENGTH, '...');
};

/** The quoted message of a reply: from an "On … wrote:" line on, and ">" lines. */
function withoutQuotes(text: string): string {
  const lines = text.split(/\r?\n/);
  const wrote = lines.findIndex((l) => /^On .+wrote:\s*$/.test(l.trim()));
  return (wrote >= 0 ? lines.slice(0, wrote) : lines).filter((l) => !l.startsWith('>')).join('\n');
}

/** A signature under a "--" line (one such line only, as Zulip's filter_footer). */
function withoutFooter(text: string): string {
  const parts = text.split(/^-- ?$/m);
  return parts.length === 2 ? parts[0]! : text;
}

export function messageContent(mail: IncomingEmail, options: Set<GatewayOption>): string {
  let body = mail.text;
  if (!options.has('include-quotes')) body = withoutQuotes(body);
  if (!options.has('include-footer')) body = withoutFooter(body);
  body = body.trim();
  if (body === '') throw badRequest('Email has no nonempty body sections; ignoring.');
  if (options.has('show-sender')) body = `From: ${mail.from}\n${body}`;
  return truncate(body, MAX_MESSAGE_LENGTH, '\n[message truncated]');
}

const idempotencyKey = (mail: IncomingEmail, address: string) =>
  'email:' + createHash('sha256').update(`${mail.messageKey}\n${address.toLowerCase()}`).digest('hex');

function activeUser(actor: RealmActor, id: number): User {
  const user = actor.user(id);
  if (!user || !user.isActive) throw badRequest('The sender of this address is deactivated.');
  return user;
}

/** Mail to a channel's address. */
export async function postChannelEmail(actor: RealmActor, target: ChannelEmailTarget, address: string, options: Set<GatewayOption>, mail: IncomingEmail): Promise<number> {
  const sender = activeUser(actor, target.senderId);
  // The address works only while its creator could still ask for it: an active account with
  // access to the channel (a former subscriber of a private channel cannot keep posting).
  const creator = activeUser(actor, target.creatorId);
  const stream = actor.state.streams.get(target.streamId);
  if (!stream || stream.isArchived || !canAccessChannelContent(actor.state, creator, stream)) throw badRequest('Invalid channel ID');
  const key = idempotencyKey(mail, address);
  return postOnce(actor, sender, key, mail, messageContent(mail, options), async (content) => {
    const result = await sendMessage(actor, sender, {
      type: 'stream',
      to: JSON.stringify(stream.id),
      topic: topicOf(mail.subject),
      content,
      readBySender: false,
      client: 'ZulipEmailMirror',
      idempotencyKey: key,
      internal: sender.id === findSystemBot(actor, EMAIL_GATEWAY_BOT)?.id,
    });
    return result.id;
  });
}

/** A reply to a missed-message email: into the conversation of the message it was about. */
export async function postMissedMessageReply(actor: RealmActor, target: MissedMessageAddress, address: string, mail: IncomingEmail): Promise<number> {
  const user = activeUser(actor, target.userId);
  const [message] = await loadMessages(actor.sql, actor.realm.id, [target.messageId]);
  if (!message) throw badRequest('The message this email was about no longer exists.');
  const key = idempotencyKey(mail, address);
  return postOnce(actor, user, key, mail, messageContent(mail, new Set()), async (content) => {
    const common = { content, readBySender: true, client: 'ZulipEmailMirror', idempotencyKey: key };
    const result =
      message.streamId === null
        ? await sendMessage(actor, user, { ...common, type: 'private', topic: undefined, to: JSON.stringify(conversationOthers(actor, message.recipientId, user.id)) })
        : await sendMessage(actor, user, { ...common, type: 'stream', to: JSON.stringify(message.streamId), topic: message.topic });
    return result.id;
  });
}

/** The other participants of a direct conversation (the user alone for a note to self). */
function conversationOthers(actor: RealmActor, recipientId: number, userId: number): number[] {
  const ids = actor.state.messaging.conversations.get(recipientId)?.userIds ?? [];
  const others = ids.filter((id) => id !== userId);
  return others.length > 0 ? others : [userId];
}
