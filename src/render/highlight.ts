// Search-result highlighting: wrap words matching the search terms in
// `<span class="highlight">`. Works on rendered HTML without touching tags,
// attributes or entities. A term matches every word that starts with it, a
// simple stand-in for the stemming full-text search does.

import { escapeAll } from './escape.js';

const WORD_CHAR = '[\\p{L}\\p{N}_]';
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function termsRegex(terms: string[]): RegExp | null {
  const cleaned = [...new Set(terms.map((t) => t.trim().toLowerCase()).filter((t) => t.length > 0))];
  if (cleaned.length === 0) return null;
  cleaned.sort((a, b) => b.length - a.length);
  // Entities are matched first so their names are never highlighted.
  return new RegExp(
    `(&(?:#[0-9]+|#x[0-9a-f]+|[a-z0-9]+);)|(?<!${WORD_CHAR})(?:${cleaned.map(escapeRe).join('|')})${WORD_CHAR}*`,
    'giu',
  );
}

function highlightSegment(text: string, re: RegExp): string {
  return text.replace(re, (match: string, entity: string | undefined) =>
    entity ? match : `<span class="highlight">${match}</span>`,
  );
}

/** Highlight `terms` in the text parts of an HTML fragment. */
export function highlightMatches(html: string, terms: string[]): string {
  const re = termsRegex(terms);
  if (!re) return html;
  let out = '';
  let pos = 0;
  // Tags (with their attributes) and comments are copied unchanged.
  const tagRe = /<!--[\s\S]*?-->|<[^>]*>/g;
  let m: RegExpExecArray | null;
  while ((m = tagRe.exec(html)) !== null) {
    out += highlightSegment(html.slice(pos, m.index), re) + m[0];
    pos = m.index + m[0].length;
  }
  return out + highlightSegment(html.slice(pos), re);
}

/** Escape plain text (e.g. a topic name) and highlight `terms` in it. */
export function highlightText(text: string, terms: string[]): string {
  return highlightMatches(escapeAll(text), terms);
}
