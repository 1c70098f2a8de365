// What edits, moves and deletes share: finding a message the user may change, the realm's
// time limits, and topic bookkeeping after messages leave a topic.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { MessageRecord } from '../../model/messageState.js';
import { realmProperty } from '../../permissions/realmSettings.js';
import { canModifyMessage, type Reader } from '../../permissions/messageAccess.js';
import { latestInTopic } from '../../db/messages.js';
import { accessibleMessage } from '../../queries/messages.js';
import { loadReader } from '../../queries/readers.js';

/** Seconds allowed by a limit setting (null or 0: no limit). */
export function limitSeconds(actor: RealmActor, name: string): number | null {
  const v = realmProperty(actor.state, name);
  return typeof v === 'number' && v > 0 ? v : null;
}

export const pastLimit = (m: MessageRecord, seconds: number | null, now = Date.now()) =>
  seconds !== null && now - m.dateSent.getTime() > seconds * 1000;

/**
 * The message, if the user may change it: they can read it and still have access to its
 * channel. Anything else is "Invalid message(s)", as for messages that do not exist.
 */
export async function messageToModify(actor: RealmActor, user: User, messageId: number): Promise<{ reader: Reader; message: MessageRecord; flags: number | undefined }> {
  const reader = await loadReader(actor, user);
  const row = await accessibleMessage(actor, reader, messageId);
  if (!canModifyMessage(actor.state, reader, row.message, row.flags)) throw badRequest('Invalid message(s)');
  return { reader, message: row.message, flags: row.flags };
}

/** Messages left a topic: the topic index learns its new latest message (or that it is empty). */
export async function refreshTopic(actor: RealmActor, streamId: number, topic: string): Promise<void> {
  actor.state.messaging.setTopic(streamId, topic, await latestInTopic(actor.sql, streamId, topic));
}
