// Who may read, change and send messages.
//
// A user *received* a message when they took part in its direct conversation, were subscribed
// to its channel when its id was assigned (the subscription log, as id ranges), or hold a flags
// row that is not marked historical (the sender; recipients of a message moved between
// channels). A user may *read* a message they received, and any message of a channel whose
// whole history they can read now (content access and history public to subscribers).
// Changing a message (edit, move, delete) also needs current access to its channel, so former
// subscribers of a private channel cannot touch what they once received (CVE-2023-32678).
import { badRequest } from '../model/errors.js';
import type { RealmState } from '../model/realmState.js';
import { Role, type Stream, type User } from '../model/types.js';
import type { MessageRecord } from '../model/messageState.js';
import { canAccessChannelContent } from './channelAccess.js';
import { hasChannelPermission } from './channelSettings.js';
import { hasRealmPermission, realmGroupSetting } from './realmSettings.js';
import { userInGroupSetting } from './groups.js';
import { canAccessUser } from './userAccess.js';
import { Flag } from '../db/flags.js';

/** Inclusive message id range. */
export type IdRange = [number, number];
export const OPEN_END = Number.MAX_SAFE_INTEGER;

/**
 * Subscription periods from a user's log on one channel: subscribing when the realm's newest
 * message was N covers ids from N + 1; leaving when it was M ends at M. A subscription with
 * no log (made before the log existed) counts from the start.
 */
export function rangesFromLog(log: Array<{ event: string; messageIdAt: number }>, activeNow: boolean): IdRange[] {
  if (log.length === 0) return activeNow ? [[1, OPEN_END]] : [];
  const out: IdRange[] = [];
  let from: number | null = null;
  for (const e of log) {
    if (e.event === 'subscribed' && from === null) from = e.messageIdAt + 1;
    else if (e.event === 'unsubscribed' && from !== null) {
      if (e.messageIdAt >= from) out.push([from, e.messageIdAt]);
      from = null;
    }
  }
  if (from !== null) out.push([from, OPEN_END]);
  return out;
}

export const coveredBy = (ranges: IdRange[] | undefined, id: number) => !!ranges?.some(([a, b]) => id >= a && id <= b);

/** What decides which messages one user can read. */
export interface Reader {
  user: User;
  /** Channel id → periods the user was subscribed. */
  ranges: Map<number, IdRange[]>;
  directConversationIds: number[];
  /** Channels whose whole history the user may read now. */
  fullHistoryStreamIds: number[];
}

export function hasFullHistoryAccess(state: RealmState, user: User, stream: Stream): boolean {
  return stream.historyPublicToSubscribers && canAccessChannelContent(state, user, stream);
}

export function buildReader(state: RealmState, user: User, log: Array<{ streamId: number; event: string; messageIdAt: number }>): Reader {
  const byStream = new Map<number, Array<{ event: string; messageIdAt: number }>>();
  for (const e of log) {
    let list = byStream.get(e.streamId);
    if (!list) byStream.set(e.streamId, (list = []));
    list.push(e);
  }
  const ranges = new Map<number, IdRange[]>();
  const streamIds = new Set([...byStream.keys(), ...(state.subsByUser.get(user.id)?.keys() ?? [])]);
  for (const streamId of streamIds) {
    const r = rangesFromLog(byStream.get(streamId) ?? [], state.isSubscribed(user.id, streamId));
    if (r.length) ranges.set(streamId, r);
  }
  const fullHistoryStreamIds: number[] = [];
  for (const stream of state.streams.values()) if (hasFullHistoryAccess(state, user, stream)) fullHistoryStreamIds.push(stream.id);
  return { user, ranges, directConversationIds: state.messaging.directConversationsOf(user.id), fullHistoryStreamIds };
}

/** Whether the user received the message; `flags` is their flags row, if any. */
export function receivedMessage(reader: Reader, m: MessageRecord, flags: number | undefined): boolean {
  if (flags !== undefined && (flags & Flag.HISTORICAL) === 0) return true;
  if (m.streamId === null) return reader.directConversationIds.includes(m.recipientId);
  if (m.recipientsListed) return false;
  return coveredBy(reader.ranges.get(m.streamId), m.id);
}

export function canReadMessage(state: RealmState, reader: Reader, m: MessageRecord, flags: number | undefined): boolean {
  if (!reader.user.isActive) return false;
  if (m.streamId === null) return reader.directConversationIds.includes(m.recipientId);
  const stream = state.streams.get(m.streamId);
  if (!stream) return false;
  if (receivedMessage(reader, m, flags)) return true;
  return hasFullHistoryAccess(state, reader.user, stream);
}

export function canModifyMessage(state: RealmState, reader: Reader, m: MessageRecord, flags: number | undefined): boolean {
  if (!canReadMessage(state, reader, m, flags)) return false;
  if (m.streamId === null) return true;
  const stream = state.streams.get(m.streamId);
  return !!stream && canAccessChannelContent(state, reader.user, stream);
}

/** Zulip's access_stream_for_send_message. */
export function checkCanSendToChannel(state: RealmState, sender: User, stream: Stream): void {
  const owner = sender.isBot && sender.botOwnerId !== null ? state.users.get(sender.botOwnerId) : undefined;
  const canPost = (u: User) => hasChannelPermission(state, u, stream, 'can_send_message_group');
  if (!canPost(sender) && !(owner && canPost(owner))) throw badRequest('You do not have permission to post in this channel.');
  const refuse = () => badRequest(`Not authorized to send to channel '${stream.name}'`);
  if (stream.isArchived) throw refuse();
  if (stream.isWebPublic) return;
  const guest = sender.role === Role.GUEST;
  if (!stream.inviteOnly && !guest) return;
  if (state.isSubscribed(sender.id, stream.id)) return;
  if (owner && state.isSubscribed(owner.id, stream.id)) return;
  if (stream.historyPublicToSubscribers && !guest && canAccessChannelContent(state, sender, stream)) return;
  throw refuse();
}

/** Whether the sender may see every recipient (guests in realms that limit user access). */
export function checkCanAccessRecipients(state: RealmState, sender: User, recipients: User[]): void {
  if (recipients.some((u) => !canAccessUser(state, sender, u))) {
    throw badRequest('You do not have permission to access some of the recipients.');
  }
}

/** Zulip's check_can_send_direct_message (realm's direct_message_*_group settings). */
export function checkCanSendDirect(state: RealmState, sender: User, recipients: User[], conversationExists: boolean): void {
  if (sender.isBot) return;
  if (recipients.every((u) => u.isBot || u.id === sender.id)) return;
  const permission = realmGroupSetting(state, 'direct_message_permission_group');
  const everyone = [...recipients, sender];
  if (!everyone.some((u) => userInGroupSetting(state, u, permission))) {
    const nobody = typeof permission === 'number' && state.groups.get(permission)?.name === 'role:nobody';
    throw badRequest(
      nobody ? 'Direct messages are disabled in this organization.' : 'This conversation does not include any users who can authorize it.',
    );
  }
  if (hasRealmPermission(state, sender, 'direct_message_initiator_group')) return;
  if (!conversationExists) throw badRequest('You do not have permission to initiate direct message conversations.');
}

/** Channel or realm level permission over messages of a channel (delete, move). */
export function hasMessagePermission(state: RealmState, user: User, stream: Stream | null, realmSetting: string, channelSetting: string | null): boolean {
  if (hasRealmPermission(state, user, realmSetting)) return true;
  return !!stream && channelSetting !== null && hasChannelPermission(state, user, stream, channelSetting);
}
