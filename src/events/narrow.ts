// Narrows on event queues: a queue registered with a narrow receives only the message events
// that match it (other event types are unaffected). Zulip allows only a few operators here.
import { badRequest } from '../model/errors.js';
import type { ServerEvent } from './catalog/index.js';
import { topicFromClient } from '../model/topics.js';
import type { NarrowTerm, RawNarrowTerm } from '../model/narrow.js';

const CHANNEL_OPERATORS = new Set(['channel', 'stream']);
const EVENT_NARROW_OPERATORS = new Set([...CHANNEL_OPERATORS, 'topic', 'exact-topic', 'sender', 'is']);
const RESOLVED_TOPIC_PREFIX = '✔ ';

/** Accepts both the legacy `[operator, operand]` pairs and `{operator, operand}` objects. */
export function normalizeNarrow(narrow: RawNarrowTerm[]): NarrowTerm[] {
  return narrow.map((t) =>
    Array.isArray(t) ? { operator: t[0], operand: t[1], negated: false } : { ...t, negated: t.negated ?? false },
  );
}

export function checkNarrowForEvents(narrow: NarrowTerm[]): void {
  for (const term of narrow) {
    if (!EVENT_NARROW_OPERATORS.has(term.operator)) throw badRequest(`Operator ${term.operator} not supported.`);
    if (term.operator === 'is' && term.operand === 'followed') throw badRequest('Operand followed not supported.');
    if (term.negated) throw badRequest('Negated narrow terms are not supported for event queues.');
  }
}

interface MessageView {
  type?: string;
  stream_id?: number;
  display_recipient?: unknown;
  subject?: string;
  topic?: string;
  sender_id?: number;
  sender_email?: string;
}

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : '');

function satisfies(term: NarrowTerm, m: MessageView, flags: string[]): boolean {
  // The event may already show the empty topic under its display name: compare normalized.
  const topic = topicFromClient(m.topic ?? m.subject ?? '');
  const { operator, operand } = term;
  if (CHANNEL_OPERATORS.has(operator)) {
    if (m.type !== 'stream') return false;
    return typeof operand === 'number' ? m.stream_id === operand : lower(operand) === lower(m.display_recipient);
  }
  switch (operator) {
    case 'topic': {
      if (m.type !== 'stream') return false;
      const wanted = topicFromClient(String(operand)).toLowerCase();
      const name = topic.toLowerCase();
      // Zulip matches the whole topic or any whitespace-separated word of it.
      return wanted === name || (wanted !== '' && name.split(/\s+/).includes(wanted));
    }
    case 'exact-topic':
      return m.type === 'stream' && topicFromClient(String(operand)) === topic;
    case 'sender':
      return typeof operand === 'number' ? m.sender_id === operand : lower(operand) === lower(m.sender_email);
    case 'is':
      switch (operand) {
        case 'dm':
        case 'private':
          return m.type === 'private';
        case 'starred':
          return flags.includes('starred');
        case 'unread':
          return !flags.includes('read');
        case 'alerted':
        case 'mentioned':
          return flags.includes('mentioned');
        case 'resolved':
          return m.type === 'stream' && topic.startsWith(RESOLVED_TOPIC_PREFIX);
        default:
          return true;
      }
    default:
      return true;
  }
}

/** The predicate on message events `{type:'message', message, flags}`; null for no narrow. */
export function buildMessageFilter(narrow: NarrowTerm[]): ((event: ServerEvent) => boolean) | null {
  if (narrow.length === 0) return null;
  return (event) => {
    if (event.type !== 'message') return true;
    const message = event.message as MessageView;
    const flags = event.flags;
    return narrow.every((term) => satisfies(term, message, flags));
  };
}
