// JSON of queued events and of response bodies. A message event reaches every recipient's
// queue with that user's flags but one shared message object per client shape (and one flags
// array per set of flags), so the text of `{"type":"message","message":…,"flags":…` is made
// once per message object and flags array, and each queue's event adds its `"id"` (see
// EventQueue.pending, which gives message events exactly those keys in that order). The text
// is exactly what JSON.stringify gives for the whole event.

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
/** The same as UTF-8 bytes (see eventsBodyBytes). */
const messagePrefixBytes = new WeakMap<object, Map<unknown, Buffer>>();

function messageEventPrefixBytes(message: object, flags: unknown): Buffer {
  let byFlags = messagePrefixBytes.get(message);
  if (!byFlags) messagePrefixBytes.set(message, (byFlags = new Map()));
  let prefix = byFlags.get(flags);
  if (prefix === undefined) byFlags.set(flags, (prefix = Buffer.from(messageEventPrefix(message, flags), 'utf8')));
  return prefix;
}

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
 * A body made as UTF-8 bytes where it is written: its length, and a function that writes
 * exactly that many bytes at an offset of a buffer. A poll's answer is written this way
 * straight into the buffer that goes to the socket (a cluster's frame), without a buffer of
 * its own (each such buffer is memory outside V8's heap, and enough of those allocated
 * makes V8 run a full collection).
 */
export interface BodyBytes {
  readonly byteLength: number;
  writeTo(out: Buffer, at: number): void;
}

export const isBodyBytes = (x: unknown): x is BodyBytes => x !== null && typeof x === 'object' && typeof (x as BodyBytes).writeTo === 'function';

/** BodyBytes in a buffer of their own. */
export function bodyBuffer(bytes: BodyBytes): Buffer {
  const out = Buffer.allocUnsafe(bytes.byteLength);
  bytes.writeTo(out, 0);
  return out;
}

/**
 * What a client receives for a body: its JSON (exactly JSON.stringify's) and the newline
 * that ends every response body. Text, except for a poll's answer with events, which is made
 * as UTF-8 bytes (see eventsBodyBytes).
 */
export function bodyPayload(body: Record<string, unknown>): string | BodyBytes {
  const events = body.events;
  if (Array.isArray(events) && events.length > 0) return eventsBodyBytes(body, events);
  return JSON.stringify(body) + '\n';
}

/**
 * The JSON of a body with events, and its newline, as UTF-8 bytes. Each message
 * event's bytes up to its `"id"` are kept once per message object and flags array (as its
 * text is) and copied into the answer; the ids are written digit by digit, and only the
 * other text is encoded.
 */
function eventsBodyBytes(body: Record<string, unknown>, events: unknown[]): BodyBytes {
  /** Text before each message event, its prefix bytes and id; then the text after the last. */
  const texts: string[] = [];
  const prefixes: Buffer[] = [];
  const ids: number[] = [];
  let text = '{';
  let first = true;
  for (const key in body) {
    const value = body[key];
    if (value !== events) {
      const part = JSON.stringify(value);
      if (part === undefined) continue; // left out, as JSON.stringify does
      text += (first ? '' : ',') + keyPrefix(key) + part;
      first = false;
      continue;
    }
    text += (first ? '' : ',') + keyPrefix(key) + '[';
    first = false;
    for (let i = 0; i < events.length; i++) {
      const e: unknown = events[i];
      if (i > 0) text += ',';
      if (e !== null && typeof e === 'object' && !Array.isArray(e)) {
        const event = e as Record<string, unknown>;
        if (isPlainMessageEvent(event) && typeof event.id === 'number' && Number.isSafeInteger(event.id) && event.id >= 0) {
          texts.push(text);
          prefixes.push(messageEventPrefixBytes(event.message, event.flags));
          ids.push(event.id);
          text = '';
        } else {
          text += eventJson(event);
        }
      } else {
        text += JSON.stringify(e) ?? 'null';
      }
    }
    text += ']';
  }
  texts.push(text + '}\n');
  let total = 0;
  for (const t of texts) total += Buffer.byteLength(t, 'utf8');
  for (let i = 0; i < prefixes.length; i++) total += prefixes[i]!.length + ID_KEY.length + decimalDigits(ids[i]!) + 1;
  return {
    byteLength: total,
    writeTo(out: Buffer, at: number): void {
      for (let i = 0; i < prefixes.length; i++) {
        at = writeText(out, texts[i]!, at);
        const prefix = prefixes[i]!;
        out.set(prefix, at);
        at += prefix.length;
        for (let k = 0; k < ID_KEY.length; k++) out[at++] = ID_KEY.charCodeAt(k);
        let id = ids[i]!;
        const digits = decimalDigits(id);
        for (let k = at + digits - 1; k >= at; k--) {
          out[k] = 48 + (id % 10);
          id = Math.floor(id / 10);
        }
        at += digits;
        out[at++] = 0x7d; // }
      }
      out.write(texts[prefixes.length]!, at, 'utf8');
    },
  };
}

/**
 * Writes text at `at`, returns where it ends. Most text between two message events is one
 * comma: short ASCII text is written byte by byte, the rest encoded.
 */
function writeText(out: Buffer, text: string, at: number): number {
  if (text.length <= 8) {
    let ascii = true;
    for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) > 0x7f) ascii = false;
    if (ascii) {
      for (let k = 0; k < text.length; k++) out[at++] = text.charCodeAt(k);
      return at;
    }
  }
  return at + out.write(text, at, 'utf8');
}

/** `,"id":` between a message event's prefix and its id. */
const ID_KEY = ',"id":';

/** Digits of a non-negative integer written in decimal. */
function decimalDigits(n: number): number {
  let digits = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    digits++;
  }
  return digits;
}
