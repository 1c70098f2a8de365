// The missed-message email of one conversation: its subject (Zulip's: "DMs with …", "Group
// DMs with …", "#channel > topic"), the messages with their senders, a link into the
// conversation, and whether replying by email works.
import type { Config } from '../../config.js';
import type { RealmRecord } from '../../model/types.js';
import type { MissedMessageDetail } from '../../db/missedMessages.js';
import { realmUrl } from '../../http/urls.js';
import { encodeHashComponent } from '../../render/mentions.js';
import { plainTextOfHtml } from '../pushContent.js';
import { escapeHtml, frame, link } from './layout.js';

/** "A", "A and B", "A, B, and C"; past three names, "A, B, and N others". */
function nameList(names: string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  if (names.length === 2) return `${names[0]} and ${names[1]}`;
  if (names.length === 3) return `${names[0]}, ${names[1]}, and ${names[2]}`;
  return `${names[0]}, ${names[1]}, and ${names.length - 2} others`;
}

/** Which conversation a message belongs to: one email per conversation. */
export const conversationKey = (m: MissedMessageDetail) =>
  m.streamId === null ? `dm:${m.recipientId}` : `channel:${m.streamId}:${m.topic.toLowerCase()}`;

function conversationUrl(base: string, m: MissedMessageDetail, userId: number): string {
  if (m.streamId === null) {
    const others = (m.userIds ?? []).filter((id) => id !== userId);
    const ids = others.length === 0 ? [userId] : m.userIds ?? [];
    const slug = [...ids].sort((a, b) => a - b).join(',') + (ids.length >= 3 ? '-group' : '');
    return `${base}/#narrow/dm/${slug}/near/${m.id}`;
  }
  const channel = `${m.streamId}-${encodeHashComponent((m.streamName ?? '').replace(/ /g, '-'))}`;
  return `${base}/#narrow/channel/${channel}/topic/${encodeHashComponent(m.topic)}/near/${m.id}`;
}

/** Links of rendered messages are relative to the realm; in an email they must not be. */
const absoluteLinks = (html: string, base: string) => html.replace(/(href|src)="(\/(?!\/)|#)/g, (_m, attr: string, start: string) => `${attr}="${base}${start === '#' ? '/#' : '/'}`);

export interface MissedMessageEmailInput {
  config: Config;
  realm: Pick<RealmRecord, 'stringId' | 'name'>;
  userId: number;
  /** The messages of one conversation, oldest first. */
  messages: MissedMessageDetail[];
  /** Names of the participants of a direct conversation, by id. */
  names: Map<number, string>;
  includeContent: boolean;
  /** Where a reply goes (the gateway's mm address), or null when replying is not possible. */
  replyTo: string | null;
}

export function missedMessageEmail(input: MissedMessageEmailInput): { subject: string; text: string; html: string } {
  const { config, realm, userId, messages } = input;
  const first = messages[0]!;
  const base = realmUrl(config, realm);
  let subject: string;
  if (first.streamId !== null) {
    subject = `#${first.streamName ?? ''} > ${first.topic}`;
  } else {
    const others = (first.userIds ?? []).filter((id) => id !== userId).map((id) => input.names.get(id) ?? '');
    subject = others.length <= 1 ? `DMs with ${others[0] ?? first.senderName}` : `Group DMs with ${nameList(others)}`;
  }
  const text: string[] = [];
  const html: string[] = [];
  for (const m of messages) {
    if (input.includeContent) {
      text.push(`${m.senderName}: ${plainTextOfHtml(m.renderedContent)}`);
      html.push(`<b>${escapeHtml(m.senderName)}</b>${absoluteLinks(m.renderedContent, base)}`);
    } else {
      text.push(`${m.senderName} sent you a message.`);
      html.push(`<b>${escapeHtml(m.senderName)}</b> sent you a message.`);
    }
  }
  if (!input.includeContent) {
    const why = 'This email does not include message content because you have disabled message content in email notifications.';
    text.push(why);
    html.push(escapeHtml(why));
  }
  const url = conversationUrl(base, messages[messages.length - 1]!, userId);
  if (input.replyTo) {
    text.push(`Reply to this email directly, or view it in ${realm.name}: ${url}`);
    html.push(`Reply to this email directly, or ${link(url, `view it in ${realm.name}`)}.`);
  } else {
    text.push(`Do not reply to this email. View it in ${realm.name}: ${url}`);
    html.push(`Do not reply to this email. ${link(url, `View it in ${realm.name}`)}.`);
  }
  text.push(`You are receiving this because you were away. Manage email notifications: ${base}/#settings/notifications`);
  html.push(`You are receiving this because you were away. ${link(`${base}/#settings/notifications`, 'Manage email notifications')}.`);
  return frame(config, realm, { subject, text, html });
}
