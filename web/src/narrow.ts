// Narrows: the terms of a view (Zulip's `narrow` parameter), their address in the page's
// hash (`#narrow/channel/12-general/topic/lunch`), search text with Zulip's operators, and
// whether a message that arrives live belongs to the view.
import type { Message } from './types';

export type Operand = string | number | number[];
export interface Term {
  operator: string;
  operand: Operand;
  negated?: boolean;
}
export type Narrow = Term[];

/** Zulip's hash encoding: URI encoding with `.` in place of `%`. */
export function encodeHashPart(s: string): string {
  return encodeURIComponent(s)
    .replace(/[.()!'*~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%/g, '.');
}

export function decodeHashPart(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\./g, '%'));
  } catch {
    return s;
  }
}

const slug = (name: string) => name.replace(/[^\p{L}\p{N}_-]+/gu, '-');

/** The page address of a narrow; `names` gives channel names for readable addresses. */
export function narrowHash(narrow: Narrow, channelName: (id: number) => string | undefined = () => undefined): string {
  if (narrow.length === 0) return '#';
  const parts = ['#narrow'];
  for (const t of narrow) {
    parts.push((t.negated ? '-' : '') + t.operator);
    let operand: string;
    if (t.operator === 'channel' && typeof t.operand === 'number') {
      const name = channelName(t.operand);
      operand = name ? `${t.operand}-${slug(name)}` : String(t.operand);
    } else if (Array.isArray(t.operand)) operand = t.operand.join(',');
    else operand = String(t.operand);
    parts.push(encodeHashPart(operand));
  }
  return parts.join('/');
}

const NUMERIC_OPERATORS = new Set(['sender', 'near', 'id', 'with']);

export function parseHash(hash: string): Narrow | null {
  const h = hash.replace(/^#/, '');
  if (!h.startsWith('narrow/')) return null;
  const parts = h.slice('narrow/'.length).split('/');
  const out: Narrow = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    let operator = decodeHashPart(parts[i]!);
    const negated = operator.startsWith('-');
    if (negated) operator = operator.slice(1);
    operator = canonicalOperator(operator);
    const raw = decodeHashPart(parts[i + 1]!);
    let operand: Operand = raw;
    if (operator === 'channel' && /^\d+(-|$)/.test(raw)) operand = Number.parseInt(raw, 10);
    else if (operator === 'dm' || operator === 'dm-including') {
      const ids = raw.split(',').map((x) => Number.parseInt(x, 10));
      operand = ids.every((n) => Number.isFinite(n)) ? (operator === 'dm' ? ids : ids[0]!) : raw;
    } else if (NUMERIC_OPERATORS.has(operator) && /^\d+$/.test(raw)) operand = Number(raw);
    out.push(negated ? { operator, operand, negated } : { operator, operand });
  }
  return out;
}

/** Zulip's older and newer names of operators, to the ones this client uses. */
export function canonicalOperator(op: string): string {
  const lower = op.toLowerCase();
  if (lower === 'stream') return 'channel';
  if (lower === 'streams') return 'channels';
  if (lower === 'subject') return 'topic';
  if (lower === 'from') return 'sender';
  if (lower === 'pm-with') return 'dm';
  if (lower === 'group-pm-with') return 'dm-including';
  return lower;
}

export interface Resolver {
  channelId(name: string): number | undefined;
  userId(emailOrName: string): number | undefined;
}

/** Search text with Zulip's operators (`channel:design topic:"logo v2" -is:starred lunch`). */
export function parseSearch(text: string, r: Resolver): Narrow {
  const out: Narrow = [];
  const words: string[] = [];
  const re = /(-?)([a-z-]+):("([^"]*)"|\S*)|"([^"]*)"|(\S+)/gi;
  for (const m of text.matchAll(re)) {
    if (m[2] !== undefined) {
      const operator = canonicalOperator(m[2]);
      const raw = (m[4] ?? m[3] ?? '').trim();
      if (operator === 'search') {
        words.push(raw);
        continue;
      }
      let operand: Operand = raw;
      if (operator === 'channel') operand = r.channelId(raw) ?? raw;
      else if (operator === 'sender') operand = r.userId(raw) ?? raw;
      else if (operator === 'dm') {
        const ids = raw.split(',').map((x) => r.userId(x.trim()));
        operand = ids.every((x) => x !== undefined) ? (ids as number[]) : raw;
      } else if (operator === 'dm-including') operand = r.userId(raw) ?? raw;
      else if (operator === 'near' || operator === 'id') operand = /^\d+$/.test(raw) ? Number(raw) : raw;
      out.push(m[1] ? { operator, operand, negated: true } : { operator, operand });
    } else {
      words.push(m[5] ?? m[6] ?? '');
    }
  }
  const search = words.filter(Boolean).join(' ');
  if (search) out.push({ operator: 'search', operand: search });
  return out;
}

/** The narrow as search text, for the search field. */
export function searchText(narrow: Narrow, channelName: (id: number) => string | undefined, userEmail: (id: number) => string | undefined): string {
  return narrow
    .map((t) => {
      if (t.operator === 'search') return String(t.operand);
      let v: string;
      if (t.operator === 'channel' && typeof t.operand === 'number') v = channelName(t.operand) ?? String(t.operand);
      else if ((t.operator === 'sender' || t.operator === 'dm-including') && typeof t.operand === 'number') v = userEmail(t.operand) ?? String(t.operand);
      else if (Array.isArray(t.operand)) v = t.operand.map((id) => userEmail(id) ?? id).join(',');
      else v = String(t.operand);
      return `${t.negated ? '-' : ''}${t.operator}:${/\s/.test(v) ? `"${v}"` : v}`;
    })
    .join(' ');
}

export function termOf(narrow: Narrow, operator: string): Term | undefined {
  return narrow.find((t) => t.operator === operator && !t.negated);
}

/** The users of a direct message conversation other than me; [me] for a note to self. */
export function dmPeers(m: Message, me: number): number[] {
  if (m.type !== 'private' || !Array.isArray(m.display_recipient)) return [];
  const ids = m.display_recipient.map((r) => r.id).filter((id) => id !== me);
  return ids.length ? ids.sort((a, b) => a - b) : [me];
}

export const dmKey = (ids: number[]) => [...ids].sort((a, b) => a - b).join(',');

/**
 * Whether a message belongs to a narrow: true or false when the client can tell, null when
 * only the server can (full-text search, `has:`), so the view is not changed live.
 */
export function matches(narrow: Narrow, m: Message, me: number): boolean | null {
  for (const t of narrow) {
    let ok: boolean | null;
    switch (t.operator) {
      case 'channel':
        ok = m.type === 'stream' && (typeof t.operand === 'number' ? m.stream_id === t.operand : null);
        break;
      case 'topic':
        ok = m.type === 'stream' && m.subject.toLowerCase() === String(t.operand).toLowerCase();
        break;
      case 'dm':
        ok = Array.isArray(t.operand) ? m.type === 'private' && dmKey(dmPeers(m, me)) === dmKey(t.operand.filter((id) => id !== me).length ? t.operand.filter((id) => id !== me) : [me]) : null;
        break;
      case 'dm-including':
        ok = typeof t.operand === 'number' ? m.type === 'private' && (Array.isArray(m.display_recipient) && m.display_recipient.some((r) => r.id === t.operand)) : null;
        break;
      case 'sender':
        ok = typeof t.operand === 'number' ? m.sender_id === t.operand : null;
        break;
      case 'is': {
        const v = String(t.operand);
        if (v === 'dm' || v === 'private') ok = m.type === 'private';
        else if (v === 'starred') ok = m.flags.includes('starred');
        else if (v === 'mentioned') ok = m.flags.some((f) => f === 'mentioned' || f === 'stream_wildcard_mentioned' || f === 'topic_wildcard_mentioned' || f === 'wildcard_mentioned');
        else if (v === 'unread') ok = !m.flags.includes('read');
        else ok = null;
        break;
      }
      case 'in':
        ok = t.operand === 'all' || t.operand === 'home' ? true : null;
        break;
      case 'channels':
        ok = t.operand === 'public' ? null : m.type === 'stream';
        break;
      default:
        ok = null;
    }
    if (ok === null) return null;
    if (ok === !!t.negated) return false;
  }
  return true;
}

/** The terms sent to the server: channel ids and user ids as they are. */
export const apiNarrow = (narrow: Narrow) => narrow.map((t) => (t.negated ? { operator: t.operator, operand: t.operand, negated: true } : { operator: t.operator, operand: t.operand }));

/** A conversation's key for typing notices: a channel topic, or everyone in a DM (me too). */
export function typingKey(kind: 'stream', channelId: number, topic: string): string;
export function typingKey(kind: 'dm', userIds: number[], me: number): string;
export function typingKey(kind: 'stream' | 'dm', a: number | number[], b: string | number): string {
  if (kind === 'stream') return `s:${a as number}:${String(b).toLowerCase()}`;
  return `d:${dmKey([...new Set([...(a as number[]), b as number])])}`;
}

/** The typing key of the conversation a narrow shows, if it shows exactly one. */
export function narrowTypingKey(narrow: Narrow, me: number): string | null {
  const channel = termOf(narrow, 'channel');
  const topic = termOf(narrow, 'topic');
  if (channel && topic && typeof channel.operand === 'number') return typingKey('stream', channel.operand, String(topic.operand));
  const dm = termOf(narrow, 'dm');
  if (dm && Array.isArray(dm.operand)) return typingKey('dm', dm.operand, me);
  return null;
}
