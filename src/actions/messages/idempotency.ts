// The Idempotency-Key header of POST /messages: a retried send with the same key from the same
// user returns the first send's result and creates nothing. Keys are remembered in memory for
// a while (covering retries that race the first attempt) and stored on the message row
// (covering retries after a restart or a move of the realm to another process).
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { messageIdForIdempotencyKey } from '../../db/messages.js';
import { sendMessageNow, type SendInput, type SendResult } from './send.js';

const REMEMBER_MS = 24 * 3600 * 1000;
const MAX_REMEMBERED = 50_000;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

interface Remembered {
  result: Promise<SendResult>;
  at: number;
}

const remembered = new WeakMap<RealmActor, Map<string, Remembered>>();

function keysOf(actor: RealmActor): Map<string, Remembered> {
  let keys = remembered.get(actor);
  if (!keys) remembered.set(actor, (keys = new Map()));
  const now = Date.now();
  // Insertion order is age order: drop from the front.
  for (const [k, v] of keys) {
    if (now - v.at < REMEMBER_MS && keys.size <= MAX_REMEMBERED) break;
    keys.delete(k);
  }
  return keys;
}

export function sendMessage(actor: RealmActor, sender: User, input: SendInput): Promise<SendResult> {
  const key = input.idempotencyKey;
  if (key === undefined) return sendMessageNow(actor, sender, input);
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) throw badRequest('Invalid Idempotency-Key header');
  const keys = keysOf(actor);
  const mapKey = `${sender.id}\n${key}`;
  const seen = keys.get(mapKey);
  if (seen) return seen.result;
  const result = (async (): Promise<SendResult> => {
    const earlier = await messageIdForIdempotencyKey(actor.sql, sender.id, key);
    if (earlier !== null) return { id: earlier };
    return sendMessageNow(actor, sender, input);
  })();
  keys.set(mapKey, { result, at: Date.now() });
  // A send that failed did not happen: a retry with the same key tries again.
  result.catch(() => keys.delete(mapKey));
  return result;
}
