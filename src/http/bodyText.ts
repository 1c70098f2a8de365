// JSON text of queued events. A message event reaches every recipient's queue with that
// user's flags but one shared message object per client shape (and one flags array per set
// of flags), so the text of `{"type":"message","message":…,"flags":…` is made once per
// message object and flags array, and each queue's copy adds its `"id"` (see
// EventQueue.push, which copies message events with exactly those keys in that order). The
// text is exactly what JSON.stringify gives for the whole event.

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

/** `{"type":"message","message":…,"flags":…` by message object, then by flags array. */
const messagePrefixes = new WeakMap<object, Map<unknown, string>>();

function messageEventPrefix(message: object, flags: unknown): string {
  let byFlags = messagePrefixes.get(message);
  if (!byFlags) messagePrefixes.set(message, (byFlags = new Map()));
  let prefix = byFlags.get(flags);
  if (prefix === undefined) byFlags.set(flags, (prefix = plainEventJson({ type: 'message', message, flags }).slice(0, -1)));
  return prefix;
}

/**
 * A message event without a local id: `{type, message, flags}`, or the copy of one in a queue
 * (`id` last). Message events have only these keys (and `local_message_id`), in this order.
 */
const isPlainMessageEvent = (event: Record<string, unknown>): event is { type: 'message'; message: object; flags: unknown; id?: unknown } =>
  event.type === 'message' && event.local_message_id === undefined && event.message !== null && typeof event.message === 'object';

/** The JSON text of one event (an object with a `type`). */
export function eventJson(event: Record<string, unknown>): string {
  if (isPlainMessageEvent(event)) {
    const prefix = messageEventPrefix(event.message, event.flags);
    return typeof event.id === 'number' ? prefix + ',"id":' + String(event.id) + '}' : event.id === undefined ? prefix + '}' : plainEventJson(event);
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
