// The Idempotency-Key header of POST /messages: a retried send with the same key from the same
// user returns the first send's result and creates nothing. Keys are remembered by the actor
// for a while (covering retries that race the first attempt) and stored on the message row
// (covering retries after a restart or a move of the realm to another process).
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { CacheKey } from '../../realm/caches.js';
import { IdempotencyKeys } from '../../realm/idempotency.js';
import { messageIdForIdempotencyKey } from '../../db/messages.js';
import { sendMessageNow, type SendInput, type SendResult } from './send.js';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

const sendKeys = new CacheKey('send idempotency keys', () => new IdempotencyKeys<SendResult>());

export function sendMessage(actor: RealmActor, sender: User, input: SendInput): Promise<SendResult> {
  const key = input.idempotencyKey;
  if (key === undefined) return sendMessageNow(actor, sender, input);
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) throw badRequest('Invalid Idempotency-Key header');
  const keys = actor.caches.get(sendKeys);
  const seen = keys.get(sender.id, key);
  if (seen) return seen;
  const result = (async (): Promise<SendResult> => {
    const earlier = await messageIdForIdempotencyKey(actor.sql, sender.id, key);
    if (earlier !== null) return { id: earlier };
    return sendMessageNow(actor, sender, input);
  })();
  keys.remember(sender.id, key, result);
  return result;
}
