// Suggestions while typing: `@` mentions and `:` emoji in the message, people in the "To"
// field, topics of the channel in the topic field. Each suggestion says what replaces the
// typed token.
import { store } from './store';
import { searchEmoji } from './emoji';
import type { User } from './types';

export interface Suggestion {
  label: string;
  detail?: string;
  /** Replaces text[start, end). */
  insert: string;
  start: number;
  end: number;
}

/** People whose name or email starts with (then contains) the query, active humans first. */
export function searchUsers(query: string, limit = 8): User[] {
  const q = query.toLowerCase();
  const first: User[] = [];
  const rest: User[] = [];
  for (const u of store.users.values()) {
    if (!u.is_active) continue;
    const name = u.full_name.toLowerCase();
    const email = u.email.toLowerCase();
    if (name.startsWith(q) || email.startsWith(q) || name.split(' ').some((w) => w.startsWith(q))) first.push(u);
    else if (rest.length < limit && (name.includes(q) || email.includes(q))) rest.push(u);
    if (first.length >= limit) break;
  }
  return [...first, ...rest].slice(0, limit);
}

export function messageSuggestions(text: string, caret: number): Suggestion[] {
  const before = text.slice(0, caret);
  const mention = /(^|\s)@(\*\*)?([^\s@*]*(?: [^\s@*]+)?)$/.exec(before);
  if (mention) {
    const query = mention[3] ?? '';
    const start = caret - query.length - 1 - (mention[2] ? 2 : 0);
    const out: Suggestion[] = searchUsers(query).map((u) => ({ label: u.full_name, detail: u.email, insert: `@**${u.full_name}** `, start, end: caret }));
    for (const [name, detail] of [['all', 'Notify channel'], ['topic', 'Notify topic']] as const) {
      if (name.startsWith(query.toLowerCase())) out.push({ label: name, detail, insert: `@**${name}** `, start, end: caret });
    }
    return out.slice(0, 8);
  }
  const emoji = /(^|\s):([a-z0-9_+-]{2,})$/i.exec(before);
  if (emoji) {
    const query = emoji[2]!;
    const start = caret - query.length - 1;
    return searchEmoji(query).map((e) => ({ label: `:${e.name}:`, insert: `:${e.name}: `, start, end: caret }));
  }
  return [];
}

/** The "To" field holds emails separated by commas; the last one is completed. */
export function recipientSuggestions(text: string): Suggestion[] {
  const start = text.lastIndexOf(',') + 1;
  const query = text.slice(start).trim();
  if (!query) return [];
  const offset = text.length - text.slice(start).trimStart().length;
  return searchUsers(query).map((u) => ({ label: u.full_name, detail: u.email, insert: `${u.email}, `, start: offset, end: text.length }));
}

export function applySuggestion(text: string, s: Suggestion): { text: string; caret: number } {
  const next = text.slice(0, s.start) + s.insert + text.slice(s.end);
  return { text: next, caret: s.start + s.insert.length };
}

/** Emails or names in the "To" field, as user ids; the words that name nobody. */
export function parseRecipients(text: string): { ids: number[]; unknown: string[] } {
  const ids: number[] = [];
  const unknown: string[] = [];
  for (const raw of text.split(',')) {
    const t = raw.trim().toLowerCase();
    if (!t) continue;
    const u = [...store.users.values()].find((x) => x.email.toLowerCase() === t || x.full_name.toLowerCase() === t);
    if (u) ids.push(u.user_id);
    else unknown.push(raw.trim());
  }
  return { ids, unknown };
}
