// Normalizing what a client sends with a message: content, topic, the `to` field, and the
// sending client's name.
import { badRequest } from '../../model/errors.js';
import { MAX_MESSAGE_LENGTH, MAX_TOPIC_LENGTH } from '../../model/limits.js';
import { topicFromClient } from '../../model/topics.js';

/** Keeps the first `max` code points, ending with `marker` when anything was cut. */
export function truncate(text: string, max: number, marker: string): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  return chars.slice(0, max - [...marker].length).join('') + marker;
}

/** Zulip's normalize_body: trailing space and leading newlines go; empty is an error; long is cut. */
export function normalizeContent(raw: string): string {
  const body = raw.replace(/\s+$/u, '').replace(/^\n+/, '');
  if (body.length === 0) throw badRequest('Message must not be empty');
  if (body.includes('\0')) throw badRequest('Message must not contain null bytes');
  return truncate(body, MAX_MESSAGE_LENGTH, '\n[message truncated]');
}

/** A topic from a client: `(no topic)` and the display name mean "", control characters are refused. */
export function normalizeTopic(raw: string): string {
  const topic = topicFromClient(raw);
  const bad = [...topic].findIndex((c) => /[\p{Cc}\p{Cs}\p{Cn}]/u.test(c));
  if (bad >= 0) throw badRequest(`Invalid character in topic, at position ${bad + 1}!`);
  return truncate(topic, MAX_TOPIC_LENGTH, '...');
}

export type ChannelTarget = string | number;

/**
 * A JSON value, or undefined for text that is not JSON. Text whose first character (after
 * white space) cannot start a JSON value, a channel name like `general` or a list of emails,
 * is not given to JSON.parse: a parse that fails throws, and making the exception costs more
 * than the parse (it was 2% of a server's CPU under a storm of channel sends).
 */
function jsonValue(raw: string): unknown {
  if (!/^\s*[[{"\-0-9tfn]/.test(raw)) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** `to` of a channel message: a name, an id, or a JSON list of exactly one of them. */
export function parseChannelTarget(raw: string): ChannelTarget {
  let data = jsonValue(raw);
  if (data === undefined) return raw;
  if (Array.isArray(data)) {
    if (data.length !== 1) throw badRequest('Cannot send to multiple channels');
    data = data[0];
  }
  if (typeof data === 'string') return data;
  if (typeof data === 'number' && Number.isInteger(data)) return data;
  throw badRequest('Invalid data type for channel');
}

/** `to` of a direct message: a JSON list of user ids or of emails, or comma-separated emails. */
export function parseDirectTargets(raw: string): number[] | string[] {
  let data = jsonValue(raw) ?? raw;
  if (typeof data === 'string') data = data.split(',');
  if (typeof data === 'number') data = [data];
  if (!Array.isArray(data)) throw badRequest('Invalid data type for recipients');
  if (data.length === 0) return [];
  if (typeof data[0] === 'string') {
    if (!data.every((e) => typeof e === 'string')) throw badRequest('Recipient lists may contain emails or user IDs, but not both.');
    return [...new Set((data as string[]).map((e) => e.trim()).filter(Boolean))];
  }
  if (!data.every((e) => typeof e === 'number' && Number.isInteger(e))) {
    if (data.every((e) => typeof e === 'number' || typeof e === 'string')) {
      throw badRequest('Recipient lists may contain emails or user IDs, but not both.');
    }
    throw badRequest('Invalid data type for recipients');
  }
  return [...new Set(data as number[])];
}

/** The client's name: Zulip takes the User-Agent's product name ("ZulipMobile/27.1 …" → "ZulipMobile"). */
export function clientName(userAgent: string | undefined): string {
  if (!userAgent) return 'Unspecified';
  const m = /^([^/ ]*[^0-9/(]*)/.exec(userAgent);
  const name = m?.[1]?.trim();
  return name ? name : 'Unspecified';
}

const UI_CLIENTS = new Set([
  'zulipandroid', 'zulipios', 'zulipdesktop', 'zulipmobile', 'zulipelectron', 'zulipterminal', 'snipe', 'website', 'ios', 'android',
]);

/**
 * Zulip's default for `read_by_sender`: messages sent from a Zulip user interface start read
 * for the sender; those from API clients (integrations using the user's key) stay unread.
 */
export function defaultReadBySender(client: string): boolean {
  const name = client.toLowerCase();
  return UI_CLIENTS.has(name) || name.includes('desktop app');
}
