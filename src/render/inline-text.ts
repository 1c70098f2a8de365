// Plain text inside a paragraph gets, in Zulip's order: bare-URL links, realm
// linkifiers (earlier linkifiers win), `:emoji:` names, emoticons, then Unicode
// emoji. Each step only sees text no earlier step claimed; claimed spans look
// like opaque characters to later steps, as Zulip's placeholders do.

import { findWebLinks, sanitizeUrl } from './autolink.js';
import type { RenderState } from './context.js';
import {
  codeForUnicodeEmoji,
  EMOJI_NAME_RE,
  EMOTICON_CONVERSIONS,
  EMOTICON_RE,
  emojiCodeForName,
  emojiNameForCode,
  imageEmojiHtml,
  POSSIBLE_UNICODE_EMOJI_RE,
  unicodeEmojiHtml,
  ZULIP_EMOJI_SRC,
} from './emoji.js';
import { escapeAttr, escapeText } from './escape.js';
import { linkifierMatches } from './linkifiers.js';

export type LinkListener = (href: string, text: string) => void;

interface Claim {
  start: number;
  end: number;
  html: string;
}

const MASK = '\u0000';

function hasNonLatin1(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return true;
  return false;
}

/** HTML for a `:name:` emoji, or null if no such emoji exists. */
export function emojiHtmlForName(state: RenderState, name: string): string | null {
  const realm = state.index.realmEmoji.get(name);
  if (realm) return imageEmojiHtml(realm.source_url, name);
  if (name === 'zulip') return imageEmojiHtml(ZULIP_EMOJI_SRC, name);
  const code = emojiCodeForName(name);
  return code ? unicodeEmojiHtml(code, name) : null;
}

export function renderPlainText(
  state: RenderState,
  text: string,
  before: string,
  after: string,
  inLink: boolean,
  onLink: LinkListener,
): string {
  if (text === '') return '';
  const claims: Claim[] = [];
  const taken = new Uint8Array(text.length);
  let work = before + text + after;
  const offset = before.length;

  const claim = (start: number, end: number, html: string): boolean => {
    if (start < 0 || end > text.length || end <= start) return false;
    for (let i = start; i < end; i++) if (taken[i]) return false;
    taken.fill(1, start, end);
    claims.push({ start, end, html });
    return true;
  };
  const remask = (): void => {
    let masked = '';
    let runStart = 0;
    for (let i = 0; i < text.length; i++) {
      if (taken[i]) {
        masked += text.slice(runStart, i) + MASK;
        runStart = i + 1;
      }
    }
    work = before + masked + text.slice(runStart) + after;
  };
  const scan = (re: RegExp, handle: (m: RegExpExecArray, start: number, end: number) => void): void => {
    re.lastIndex = offset;
    let m: RegExpExecArray | null;
    while ((m = re.exec(work)) !== null) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      const start = m.index - offset;
      const end = start + m[0].length;
      if (end > text.length) break;
      handle(m, start, end);
    }
  };

  if (!inLink) {
    for (const link of findWebLinks(text, before, after)) {
      const href = sanitizeUrl(link.text);
      if (href === null) continue;
      if (claim(link.start, link.end, `<a href="${escapeAttr(href)}">${escapeText(link.text)}</a>`)) {
        onLink(href, link.text);
      }
    }
    for (const linkifier of state.index.linkifiers) {
      remask();
      for (const m of linkifierMatches(linkifier, work, offset)) {
        const start = m.start - offset;
        const end = m.end - offset;
        if (end > text.length) break;
        const href = sanitizeUrl(m.url);
        if (href === null) continue;
        if (claim(start, end, `<a href="${escapeAttr(href)}">${escapeText(text.slice(start, end))}</a>`)) {
          onLink(href, text.slice(start, end));
        }
      }
    }
  }

  if (text.includes(':')) {
    remask();
    scan(EMOJI_NAME_RE, (m, start, end) => {
      const html = emojiHtmlForName(state, m[1]);
      if (html) claim(start, end, html);
    });
  }

  if (state.index.translateEmoticons) {
    remask();
    scan(EMOTICON_RE, (m, start, end) => {
      const name = EMOTICON_CONVERSIONS[m[1]];
      const code = name ? emojiCodeForName(name) : undefined;
      if (name && code) claim(start, end, unicodeEmojiHtml(code, name));
    });
  }

  // Every Unicode emoji contains a character beyond Latin-1.
  if (hasNonLatin1(text)) {
    remask();
    scan(POSSIBLE_UNICODE_EMOJI_RE, (m, start, end) => {
      const code = codeForUnicodeEmoji(m[0]);
      const name = emojiNameForCode(code);
      if (name) claim(start, end, unicodeEmojiHtml(code, name));
    });
  }

  if (claims.length === 0) return escapeText(text);
  claims.sort((a, b) => a.start - b.start);
  let out = '';
  let pos = 0;
  for (const c of claims) {
    out += escapeText(text.slice(pos, c.start)) + c.html;
    pos = c.end;
  }
  return out + escapeText(text.slice(pos));
}
