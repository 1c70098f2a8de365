// POST /messages/{message_id}/report (Zulip's send_message_report): Notification Bot posts the
// report to the organization's moderation request channel, in a topic per reported user,
// with the reason, the reporter's notes and the reported message behind a spoiler.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { MAX_MESSAGE_LENGTH } from '../../model/limits.js';
import { realmProperty } from '../../permissions/realmSettings.js';
import { accessibleMessage } from '../../queries/messages.js';
import { loadReader } from '../../queries/readers.js';
import { sendInternalMessage, silentMention } from './notificationBot.js';
import { truncate } from './input.js';

/** Zulip's Realm.REPORT_MESSAGE_REASONS: the keys clients send (the report names the key). */
export const REPORT_TYPES: Record<string, string> = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate content',
  norms: 'Violates community norms',
  other: 'Other reason',
};

export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;
/** Room for the notes and the report's own text within one message. */
const MAX_REPORTED_SNIPPET_LENGTH = MAX_MESSAGE_LENGTH - MAX_REPORT_DESCRIPTION_LENGTH - 500;

/** A code fence longer than any run of backticks in the text (Zulip's get_unused_fence). */
function unusedFence(text: string): string {
  const longest = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/** A list of names as Zulip writes it: "a, b, and c" (the last one after ", and"). */
function recipientsText(mentions: string[]): string {
  const last = mentions.pop()!;
  return mentions.length ? `${mentions.join(', ')}, and ${last}` : last;
}

export async function reportMessage(actor: RealmActor, user: User, messageId: number, reportType: string, description: string): Promise<void> {
  if (reportType === 'other' && description === '') throw badRequest('An explanation is required.');
  const channelId = realmProperty(actor.state, 'moderation_request_channel_id');
  const channel = typeof channelId === 'number' && channelId > 0 ? actor.state.streams.get(channelId) : undefined;
  if (!channel || channel.isArchived) throw badRequest('Message reporting is not enabled in this organization.');
  const reader = await loadReader(actor, user);
  const { message } = await accessibleMessage(actor, reader, messageId);
  const sender = actor.user(message.senderId);
  if (!sender) throw badRequest('Invalid message(s)');
  const reporter = silentMention(user);
  const reported = silentMention(sender);
  let header: string;
  if (message.streamId !== null) {
    const stream = actor.state.streams.get(message.streamId);
    header = `${reporter} reported #**${stream?.name ?? ''}>${message.topic}@${message.id}** sent by ${reported}.`;
  } else {
    // As Zulip's display_recipient lists them: every participant, the sender included.
    const participants = (actor.state.messaging.conversations.get(message.recipientId)?.userIds ?? [])
      .map((id) => actor.user(id))
      .filter((u): u is User => u !== undefined);
    header = participants.length <= 2
      ? `${reporter} reported a DM sent by ${reported}.`
      : `${reporter} reported a DM sent by ${reported} to ${recipientsText(participants.map(silentMention))}.`;
  }
  const snippet = truncate(message.content, MAX_REPORTED_SNIPPET_LENGTH, '\n[message truncated]');
  const fence = unusedFence(snippet);
  const content =
    `${header}\n- Reason: **${reportType}**\n- Notes:\n\`\`\`quote\n${description}\n\`\`\`` +
    `\n${fence} spoiler **Message sent by ${reported}**\n${snippet}\n${fence}\n`;
  await sendInternalMessage(actor, { to: { streamId: channel.id, topic: `${sender.fullName}'s moderation requests` }, content });
}
