// Bare-URL detection and URL sanitising, following Zulip's rules: a link starts
// after whitespace or an opening delimiter, ends before trailing punctuation,
// may contain up to seven levels of balanced parentheses, and a scheme-less
// link must end in a known top-level domain.

import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// File extensions that are also TLDs would turn file names into links.
const TLD_FALSE_POSITIVES = new Set(['java', 'md', 'mov', 'py', 'zip']);

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function tldAlternation(): string {
  const all = require('tlds') as string[];
  return all
    .map((t) => t.toLowerCase())
    .filter((t) => !TLD_FALSE_POSITIVES.has(t))
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
    .map(escapeRe)
    .join('|');
}

const W = '[\\p{L}\\p{N}_]';
const INNER_PAREN_CONTENTS = '[^\\s()"]*';
const PAREN_GROUP = '[^\\s()"]*?(?:\\(%s\\)[^\\s()"]*?)*';

function nestedParenChunk(): string {
  let chunk = PAREN_GROUP;
  for (let i = 0; i < 6; i++) chunk = chunk.replace('%s', PAREN_GROUP);
  return chunk.replace('%s', INNER_PAREN_CONTENTS);
}

let webLinkRe: RegExp | null = null;

/** Global regex; group `url` is the link. Built once per thread. */
export function getWebLinkRegex(): RegExp {
  if (webLinkRe) return webLinkRe;
  const source =
    `(?<![^\\s'"(,:<])` +
    '(?<url>' +
    `(?:(?:https?://[${W.slice(1, -1)}.:@-]+?|(?:[${W.slice(1, -1)}-]+\\.)+(?:${tldAlternation()}))` +
    `(?:/${nestedParenChunk()})?)` +
    `|(?:[${W.slice(1, -1)}.-]+@[${W.slice(1, -1)}.-]+\\.${W}+)` +
    ')' +
    `(?=[!:;?),.'">]*(?:$|\\s))`;
  webLinkRe = new RegExp(source, 'gu');
  return webLinkRe;
}

export interface FoundLink {
  start: number;
  end: number;
  text: string;
}

/**
 * Bare links in `text`. `before`/`after` are the characters next to the text
 * in the surrounding markup (or '' at a block edge) so the boundary rules see
 * what Zulip's whole-paragraph regex would see.
 */
export function findWebLinks(text: string, before: string, after: string): FoundLink[] {
  // Every link has a dot, an '@' or a scheme; most text has none of them.
  if (!text.includes('.') && !text.includes('@') && !text.includes('://')) return [];
  const re = getWebLinkRegex();
  const haystack = before + text + after;
  const out: FoundLink[] = [];
  re.lastIndex = before.length;
  let m: RegExpExecArray | null;
  while ((m = re.exec(haystack)) !== null) {
    const start = m.index - before.length;
    const end = start + m[0].length;
    if (end > text.length) break;
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    out.push({ start, end, text: m[0] });
  }
  return out;
}

const ALLOWED_SCHEMES = new Set(['http', 'https', 'ftp', 'mailto', 'file', 'tel', 'sms']);
const SCHEME_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/**
 * Zulip's `sanitize_url`: the href to use, or null when the URL must not become
 * a link (unknown scheme such as `javascript:`).
 */
export function sanitizeUrl(raw: string, depth = 0): string | null {
  const url = raw.replace(/ /g, '%20');
  const schemeMatch = SCHEME_RE.exec(url);
  if (!schemeMatch) {
    const path = url.split(/[?#]/, 1)[0];
    if (url.startsWith('//')) {
      // A network-path reference names a host: handled like a scheme-less URL.
    } else if (path.includes('@')) {
      return 'mailto:' + url;
    } else if (url.startsWith('/') || url.startsWith('#')) {
      return url;
    }
    if (depth > 0) return null;
    return sanitizeUrl('http://' + url.replace(/^\/\//, ''), depth + 1);
  }
  const scheme = schemeMatch[1].toLowerCase();
  if (!ALLOWED_SCHEMES.has(scheme)) return null;
  return url;
}

const IMAGE_EXTENSIONS = ['.bmp', '.gif', '.jpe', '.jpeg', '.jpg', '.png', '.webp'];

/** Whether a link should get an inline image preview. */
export function isImageUrl(href: string): boolean {
  let path: string;
  if (href.startsWith('/user_uploads/')) {
    path = href.split(/[?#]/, 1)[0];
  } else {
    let parsed: URL;
    try {
      parsed = new URL(href);
    } catch {
      return false;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
    if (parsed.hostname === 'pasteboard.co') return false;
    path = parsed.pathname;
  }
  const lower = path.toLowerCase();
  return IMAGE_EXTENSIONS.some((ext) => lower.endsWith(ext));
}

/** Python's `urllib.parse.quote(s, safe="")`. */
export function quoteAll(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

export function thumbnailUrl(href: string, size: 'full' | 'thumbnail'): string {
  return `/thumbnail?url=${quoteAll(href)}&size=${size}`;
}
