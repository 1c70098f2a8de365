// The text of a reminder: who said what where, and the message quoted (Zulip's
// get_reminder_formatted_content in zerver/lib/reminders.py, before reminder notes).
import type { RealmActor } from '../../realm/actor.js';
import type { Stream, User } from '../../model/types.js';
import type { MessageRecord } from '../../model/messageState.js';
import { MAX_MESSAGE_LENGTH } from '../../model/limits.js';
import { realmUrl } from '../../http/urls.js';
import { encodeHashComponent } from '../../render/mentions.js';
import { silentMention } from '../messages/notificationBot.js';
import { truncate } from '../messages/input.js';

// Names the #**channel>topic@id** syntax cannot carry (Zulip's topic_link_util).
const BROKEN_LINK_CHARS = /[`>*&[\]]|\$\$/g;
const ESCAPES: Record<string, string> = { '`': '&#96;', '>': '&gt;', '*': '&#42;', '&': '&amp;', $$: '&#36;&#36;', '[': '&#91;', ']': '&#93;' };

const channelSlug = (s: Stream) => `${s.id}-${encodeHashComponent(s.name.replace(/ /g, '-'))}`;

/** Zulip's get_message_link_syntax: the message link syntax, or a plain Markdown link when the names would break it. */
function messageLinkSyntax(stream: Stream, topic: string, messageId: number): string {
  const broken = (s: string) => s.search(BROKEN_LINK_CHARS) >= 0;
  if (!broken(stream.name) && !broken(topic)) return `#**${stream.name}>${topic}@${messageId}**`;
  const escape = (s: string) => s.replace(BROKEN_LINK_CHARS, (c) => ESCAPES[c] ?? c);
  const link = `#narrow/channel/${channelSlug(stream)}/topic/${encodeHashComponent(topic)}/near/${messageId}`;
  return `[#${escape(stream.name)} > ${escape(topic === '' ? 'general chat' : topic)} @ 💬](${link})`;
}

/** Zulip's encode_user_ids: sorted ids, `-group` for three people or more. */
const dmSlug = (ids: number[]) => [...ids].sort((a, b) => a - b).join(',') + (ids.length >= 3 ? '-group' : '');

/** "A", "A and B", "A, B, and C". */
function listForDisplay(items: string[]): string {
  if (items.length <= 1) return items.join('');
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(', ')}, and ${items[items.length - 1]}`;
}

/** Zulip's get_unused_fence: a backtick fence longer than any fence in the text. */
function unusedFence(text: string): string {
  let length = 3;
  for (const m of text.matchAll(/^ {0,3}(`{3,})/gm)) length = Math.max(length, m[1]!.length + 1);
  return '`'.repeat(length);
}

export function reminderContent(actor: RealmActor, message: MessageRecord): string {
  const { state } = actor;
  const base = realmUrl(actor.services.config, actor.realm);
  const sender = state.users.get(message.senderId);
  const senderMention = sender ? silentMention(sender) : '';
  let content: string;
  let where: { widget: (name: string) => string; text: string };
  const stream = message.streamId === null ? undefined : state.streams.get(message.streamId);
  if (stream) {
    const url = `${base}/#narrow/channel/${channelSlug(stream)}/topic/${encodeHashComponent(message.topic)}/near/${message.id}`;
    const link = messageLinkSyntax(stream, message.topic, message.id);
    content = 'You requested a reminder for the following message.';
    where = { widget: (w) => `${senderMention} [sent](${url}) a ${w} in ${link}.`, text: `${senderMention} [said](${url}) in ${link}:` };
  } else {
    const participants = state.messaging.conversations.get(message.recipientId)?.userIds ?? [message.senderId];
    const url = `${base}/#narrow/dm/${dmSlug(participants)}/near/${message.id}`;
    let others = participants.filter((id) => id !== message.senderId).map((id) => state.users.get(id)).filter((u): u is User => !!u);
    if (others.length === 0 && sender) others = [sender];
    const recipients = listForDisplay(others.map(silentMention));
    content = 'You requested a reminder for the following direct message.';
    where = { widget: (w) => `${senderMention} [sent](${url}) a ${w} to ${recipients}.`, text: `${senderMention} [said](${url}) to ${recipients}:` };
  }
  content += '\n\n';
  if (message.content.startsWith('/poll')) return content + where.widget('poll');
  if (message.content.startsWith('/todo')) return content + where.widget('todo list');
  content += `${where.text}\n`;
  // Longer than any fence inside the quoted message, so the quote holds it whole.
  const fence = unusedFence(message.content);
  const wrapper = `${fence}quote\n\n${fence}`;
  const room = MAX_MESSAGE_LENGTH - [...content].length - [...wrapper].length;
  return `${content}${fence}quote\n${truncate(message.content, room, '\n[message truncated]')}\n${fence}`;
}
