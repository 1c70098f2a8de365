// What a long-polling subscriber of the benchmark needs from a poll's answer: the id of its
// last event (the next poll's last_event_id) and the bench markers in its messages, in order.
// Read from the answer's bytes, not by JSON.parse: 10,000 subscribers at 20 sends/s receive
// 200,000 events a second, and so do 50 subscribers of 4,000 sends/s; parsing every event into
// objects took the load generator as much CPU as the server it measures on the same two cores
// (the reason http-conn.ts is not node:http).
//
// The answer the server writes is `{…,"events":[…],"queue_id":"…"}`, and each event's own
// `"id"` is its last key. An answer in another shape is parsed whole instead, so the reading
// is never wrong, only slower.
import { FANOUT_MARKER, MARKER_PATTERN } from './request-spec.js';

/**
 * How a workload writes its marker into a message: `lead`, a phase (`\w+`), then `count`
 * numbers, each after `sep`, as `pattern` reads it from the text. `make` gives the marker
 * from the phase and the numbers.
 */
export interface MarkerFormat<M> {
  lead: Buffer;
  sep: string;
  count: number;
  pattern: RegExp;
  make(phase: string, numbers: readonly number[]): M;
}

export interface FanoutMarker {
  phase: string;
  sentAt: number;
  scheduledAt: number;
  seq: number;
}

/** The fan-out workload's marker (request-spec.ts, fanoutMarkerContent). */
export const FANOUT_MARKERS: MarkerFormat<FanoutMarker> = {
  lead: Buffer.from('fanout-bench '),
  sep: ' ',
  count: 3,
  pattern: FANOUT_MARKER,
  make: (phase, [sentAt, scheduledAt, seq]) => ({ phase, sentAt: sentAt!, scheduledAt: scheduledAt!, seq: seq! }),
};

export interface SendMarker {
  phase: string;
  sentAt: number;
  seq: number;
}

/** The send workloads' marker (request-spec.ts, markerContent). */
export const SEND_MARKERS: MarkerFormat<SendMarker> = {
  lead: Buffer.from('bench:'),
  sep: ':',
  count: 2,
  pattern: MARKER_PATTERN,
  make: (phase, [sentAt, seq]) => ({ phase, sentAt: sentAt!, seq: seq! }),
};

export interface PollAnswer<M> {
  /** The id of the answer's last event; null when it has none. */
  lastEventId: number | null;
  /** The markers of its message events, in the order of the events. */
  markers: M[];
}

const EVENTS_END = Buffer.from('],"queue_id":"');
const ID_KEY = Buffer.from(',"id":');
/** Longer than any marker (a phase name and a few numbers). */
const MARKER_MAX_BYTES = 120;
const DIGITS = /^\d+$/;

interface ParsedEvent {
  id: number;
  type: string;
  message?: { content?: string };
}

/** The same reading from the parsed answer: the first marker of each message's content. */
export function readPollAnswerParsed<M>(body: Buffer, format: MarkerFormat<M>): PollAnswer<M> {
  const events = (JSON.parse(body.toString('utf8')) as { events?: ParsedEvent[] }).events ?? [];
  let lastEventId: number | null = null;
  const markers: M[] = [];
  for (const event of events) {
    if (lastEventId === null || event.id > lastEventId) lastEventId = event.id;
    if (event.type !== 'message') continue;
    const match = format.pattern.exec(event.message?.content ?? '');
    if (match) markers.push(format.make(match[1]!, match.slice(2, 2 + format.count).map(Number)));
  }
  return { lastEventId, markers };
}

export function readPollAnswer<M>(body: Buffer, format: MarkerFormat<M>): PollAnswer<M> {
  const end = body.lastIndexOf(EVENTS_END);
  if (end < 0) return readPollAnswerParsed(body, format);
  let lastEventId: number | null = null;
  const before = body[end - 1];
  if (before === 0x7d /* } */) {
    const idAt = body.lastIndexOf(ID_KEY, end - 1);
    const digits = idAt < 0 ? '' : body.toString('latin1', idAt + ID_KEY.length, end - 1);
    if (!DIGITS.test(digits)) return readPollAnswerParsed(body, format);
    lastEventId = Number(digits);
  } else if (before !== 0x5b /* [ */) {
    return readPollAnswerParsed(body, format);
  }
  const lead = format.lead;
  const markers: M[] = [];
  for (let at = body.indexOf(lead); at >= 0 && at < end; at = body.indexOf(lead, at + lead.length)) {
    const m = markerAt(body, at + lead.length, Math.min(end, at + MARKER_MAX_BYTES), format);
    if (m) markers.push(m);
  }
  return { lastEventId, markers };
}

/** A word character of a regular expression's \w. */
const isWordByte = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;

/**
 * The rest of a marker after its lead, read from the bytes as the format's pattern reads the
 * text (`(\w+)` then `sep(\d+)` `count` times, each group as long as it goes), without making
 * the text.
 */
function markerAt<M>(body: Buffer, from: number, limit: number, format: MarkerFormat<M>): M | null {
  const sep = format.sep.charCodeAt(0);
  let i = from;
  while (i < limit && isWordByte(body[i]!)) i++;
  if (i === from || i >= limit || body[i] !== sep) return null;
  const phase = body.toString('latin1', from, i);
  const numbers: number[] = [];
  for (let n = 0; n < format.count; n++) {
    if (n > 0 && (i >= limit || body[i] !== sep)) return null;
    const start = ++i;
    let value = 0;
    while (i < limit && isDigit(body[i]!)) value = value * 10 + body[i++]! - 0x30;
    if (i === start) return null;
    numbers.push(value);
  }
  return format.make(phase, numbers);
}
