// JSON text of queued events. A message event reaches every recipient's queue with that
// user's flags but one shared message object per client shape, so the message object's JSON
// is produced once and reused for each queue's byte budget and each poll response that
// carries it. The text is exactly what JSON.stringify gives for the whole event.

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

/** The JSON text of one event (an object with a `type`). */
export function eventJson(event: Record<string, unknown>): string {
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
