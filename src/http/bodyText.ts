// JSON text of queued events. A message event reaches every recipient's queue with that
// user's flags but one shared message object per client shape, so the message object's JSON
// is produced once and reused for each queue's byte budget and each poll response that
// carries it; a message event shared by many queues has its text (and, for poll answers, its
// UTF-8 bytes) made once. The text is exactly what JSON.stringify gives for the whole event.

import { JsonBytes } from './jsonText.js';

/** JSON of message objects already serialized; they are not changed once published. */
const messageJson = new WeakMap<object, string>();

/** `"key":` for the few keys events and poll answers have. */
const keyPrefixes = new Map<string, string>();
function keyPrefix(key: string): string {
  let prefix = keyPrefixes.get(key);
  if (prefix === undefined) {
    prefix = JSON.stringify(key) + ':';
    if (keyPrefixes.size < 1000) keyPrefixes.set(key, prefix);
  }
  return prefix;
}

/**
 * On an event in a queue: the event it was copied from, which every queue that got the same
 * message event shares (see EventQueue.push). The copy is that event plus its queue's `id`,
 * so its text is the shared event's text with `"id":N` added at the end.
 */
export const QUEUED_FROM = Symbol('queuedFrom');

/** JSON of shared message events, without the closing brace (see QUEUED_FROM). */
const sharedPrefix = new WeakMap<object, string>();

/**
 * The JSON text of a message event shared by many queues, made once. Only message events
 * are made once per send and never changed after (see actions/messages/delivery.ts).
 */
export function sharedEventJson(event: Record<string, unknown>): string {
  return sharedEventPrefix(event) + '}';
}

function sharedEventPrefix(event: Record<string, unknown>): string {
  let prefix = sharedPrefix.get(event);
  if (prefix === undefined) sharedPrefix.set(event, (prefix = plainEventJson(event).slice(0, -1)));
  return prefix;
}

/** UTF-8 of sharedPrefix, for poll answers written as bytes (see eventListBytes). */
const sharedPrefixBytes = new WeakMap<object, Buffer>();

/**
 * A poll's events as the UTF-8 bytes of their JSON array, in one buffer: the text each
 * shared message event has in common with the other queues that got it is encoded once, not
 * once per answer (a message to ten thousand subscribers is one encoding, then copies).
 */
export function eventListBytes(events: readonly Record<string, unknown>[]): JsonBytes {
  const chunks: (string | Buffer)[] = [];
  let text = '[';
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (i > 0) text += ',';
    const from = (event as { [QUEUED_FROM]?: Record<string, unknown> })[QUEUED_FROM];
    const prefix = from === undefined ? undefined : sharedEventPrefix(from);
    if (from === undefined || prefix === undefined || prefix.length < 2) {
      text += eventJson(event);
      continue;
    }
    let bytes = sharedPrefixBytes.get(from);
    if (bytes === undefined) sharedPrefixBytes.set(from, (bytes = Buffer.from(prefix, 'utf8')));
    chunks.push(text, bytes);
    text = ',"id":' + String(event.id) + '}';
  }
  chunks.push(text + ']');
  let total = 0;
  for (const c of chunks) total += typeof c === 'string' ? Buffer.byteLength(c, 'utf8') : c.byteLength;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const c of chunks) at += typeof c === 'string' ? out.write(c, at, 'utf8') : c.copy(out, at);
  return new JsonBytes([out]);
}

/** The JSON text of one event (an object with a `type`). */
export function eventJson(event: Record<string, unknown>): string {
  const from = (event as { [QUEUED_FROM]?: Record<string, unknown> })[QUEUED_FROM];
  if (from !== undefined) {
    const prefix = sharedEventPrefix(from);
    return (prefix.length > 1 ? prefix + ',"id":' : '{"id":') + String(event.id) + '}';
  }
  return plainEventJson(event);
}

function plainEventJson(event: Record<string, unknown>): string {
  const message = event.message;
  if (event.type !== 'message' || message === null || typeof message !== 'object') return JSON.stringify(event);
  let text = '{';
  for (const key in event) {
    const value = event[key];
    let part: string | undefined;
    if (value === message) {
      part = messageJson.get(message);
      if (part === undefined) messageJson.set(message, (part = JSON.stringify(message)));
    } else {
      part = JSON.stringify(value);
    }
    if (part === undefined) continue; // undefined and functions are left out, as JSON.stringify does
    text += (text.length > 1 ? ',' : '') + keyPrefix(key) + part;
  }
  return text + '}';
}

/**
 * The JSON text of a response body; an `events` array (a poll's answer) is written event by
 * event with eventJson.
 */
export function bodyJson(body: Record<string, unknown>): string {
  const events = body.events;
  if (!Array.isArray(events) || events.length === 0) return JSON.stringify(body);
  let text = '{';
  for (const key in body) {
    const value = body[key];
    let part: string | undefined;
    if (value === events) {
      part = '[';
      for (let i = 0; i < events.length; i++) {
        const e: unknown = events[i];
        const item = e !== null && typeof e === 'object' && !Array.isArray(e) ? eventJson(e as Record<string, unknown>) : JSON.stringify(e);
        part += (i > 0 ? ',' : '') + (item ?? 'null');
      }
      part += ']';
    } else {
      part = JSON.stringify(value);
    }
    if (part === undefined) continue;
    text += (text.length > 1 ? ',' : '') + keyPrefix(key) + part;
  }
  return text + '}';
}
