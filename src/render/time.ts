// `<time:…>` global times: a Unix timestamp or a date JavaScript can parse.
// Unparseable text is kept in a plain span, as Zulip's web client renders it.

import { escapeAttr, escapeText } from './escape.js';

const EXPLICIT_ZONE = /(?:Z|[+-]\d{2}(?::?\d{2})?|\b(?:UTC|GMT|UT|[ECMP][SD]T)\b)\s*$/i;
const DATE_ONLY_ISO = /^\s*\d{4}-\d{2}-\d{2}\s*$/;

export function parseTime(text: string): Date | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (/^-?\d+(?:\.\d+)?$/.test(trimmed)) {
    const date = new Date(Number(trimmed) * 1000);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  const date = new Date(trimmed);
  if (Number.isNaN(date.getTime())) return null;
  // A time without a zone means UTC, whatever zone this process runs in.
  if (!EXPLICIT_ZONE.test(trimmed) && !DATE_ONLY_ISO.test(trimmed)) {
    return new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  }
  return date;
}

export function renderTime(text: string): string {
  const date = parseTime(text);
  if (!date) return `<span>${escapeText(text)}</span>`;
  const iso = date.toISOString().split('.')[0] + 'Z';
  return `<time datetime="${escapeAttr(iso)}">${escapeText(text)}</time>`;
}
