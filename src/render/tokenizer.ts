// marked configured for Zulip-flavoured Markdown: tokenizer overrides for the
// places where Zulip differs from CommonMark/GFM, and extensions for Zulip's
// own syntax. Produces a token tree that `html.ts` turns into HTML.

import { Lexer, Tokenizer, type MarkedOptions, type Token, type TokenizerExtensionFunction, type Tokens } from 'marked';
import { sanitizeUrl } from './autolink.js';
import { parseInlineLink } from './link-syntax.js';
import type { RenderState } from './context.js';
import {
  lookupChannel,
  resolveUserMention,
  type MentionTarget,
} from './mentions.js';

let active: RenderState | null = null;

function state(): RenderState {
  if (!active) throw new Error('tokenizer used outside a render');
  return active;
}

/** Deepest blockquote/list nesting we parse; deeper markers stay literal text. */
export const MAX_BLOCK_NESTING = 40;

const BULLET = '(?:[*+-]|\\d+\\.)';
// A list runs to a blank line followed by unindented non-list text, an hr, or a
// bullet of the other kind (ordered vs unordered) at the list's indentation.
function listRegex(other: string): RegExp {
  return new RegExp(
    `^( {0,3})(${BULLET}) [\\s\\S]+?(?:\\n+(?=\\1?(?:[-*_] *){3,}(?:\\n+|$))|\\n{2,}(?! )(?!\\1${BULLET} )\\n*|\\n(?=\\1${other} )|$)`,
  );
}
const UNORDERED_LIST_RE = listRegex('\\d+\\.');
const ORDERED_LIST_RE = listRegex('[*+-]');
const LIST_START_RE = new RegExp(`^ {0,3}${BULLET} `);
const BULLET_PREFIX_RE = /^ *([*+-]|\d+\.) +/;
const ITEM_RE_SOURCE = `^( *)(${BULLET}) [^\\n]*(?:\\n(?!\\1${BULLET} )[^\\n]*)*`;

// Block HTML as Zulip's marked fork recognises it; it becomes a paragraph of
// escaped text (raw HTML is never passed through).
const OLD_BLOCK_TAG =
  '(?!(?:a|em|strong|small|s|cite|q|dfn|abbr|data|time|code|var|samp|kbd|sub|sup|i|b|u|mark|ruby|rt|rp|bdi|bdo|span|br|wbr|ins|del|img)\\b)\\w+(?!:/|[^\\w\\s@]*@)\\b';
const HTML_BLOCK_RE = new RegExp(
  '^ *(?:<!--[\\s\\S]*?--> *(?:\\n|\\s*$)' +
    `|<(${OLD_BLOCK_TAG})[\\s\\S]+?</\\1> *(?:\\n{2,}|\\s*$)` +
    `|<${OLD_BLOCK_TAG}(?:"[^"]*"|'[^']*'|[^'">])*?> *(?:\\n{2,}|\\s*$))`,
);
const INLINE_TAG_RE = /^<!--[\s\S]*?-->|^<\/?[a-zA-Z][\w-]*(?=[\s/>])(?:"[^"]*"|'[^']*'|[^'">])*?>/;
const ONLY_QUOTE_MARKERS_RE = /^(?: {0,3}>[ \t]*(?:\n|$))+$/;
const QUOTE_START_RE = /^ {0,3}>/;
const QUOTE_MARKER_RE = /^ {0,3}> ?/;
const BLANK_LINE_RE = /\n[ \t]*(?:\n|$)/;

const CODESPAN_RE = /^(`+)(.+?)(?<!`)\1(?!`)/;
const STRONG_EM_RE = /^\*\*\*(?!\s)([^*^\n]+)(?<!\s)\*\*\*/;
const STRONG_RE = /^\*\*([^\n]+?)\*\*/;
const EM_RE = /^\*(?!\s)([^*^\n]+)(?<!\s)\*/;
const DEL_RE = /^~~([^~\n]+?)~~(?!~)/;

class ZulipTokenizer extends Tokenizer {
  // Reference-style links and setext headings are not Zulip syntax.
  override def(): undefined {
    return undefined;
  }
  override lheading(): undefined {
    return undefined;
  }
  override reflink(): undefined {
    return undefined;
  }
  // Bare URLs are found after lexing (see inline-text.ts); `<url>` is not special.
  override autolink(): undefined {
    return undefined;
  }
  override url(): undefined {
    return undefined;
  }
  override del(): undefined {
    return undefined;
  }

  override html(src: string): Tokens.HTML | undefined {
    const cap = HTML_BLOCK_RE.exec(src);
    if (!cap) return undefined;
    const token = {
      type: 'zhtmlpara',
      raw: cap[0],
      text: cap[0].trimEnd(),
      tokens: this.lexer.inline(cap[0].trimEnd()),
    };
    return token as unknown as Tokens.HTML;
  }

  override tag(src: string): Tokens.Tag | undefined {
    const cap = INLINE_TAG_RE.exec(src);
    if (!cap) return undefined;
    return { type: 'html', raw: cap[0], text: cap[0], inLink: false, inRawBlock: false, block: false };
  }

  // Python-Markdown's blockquote: the quote runs to the next blank line, lines
  // without '>' included (lazily), and a block of bare '>' markers is text.
  override blockquote(src: string): Tokens.Blockquote | undefined {
    if (!QUOTE_START_RE.test(src)) return undefined;
    const s = state();
    if (s.nesting >= MAX_BLOCK_NESTING) return undefined;
    const end = BLANK_LINE_RE.exec(src);
    const block = end ? src.slice(0, end.index) : src;
    if (ONLY_QUOTE_MARKERS_RE.test(block)) return undefined;
    const raw = end ? src.slice(0, end.index + end[0].length) : src;
    const text = block
      .split('\n')
      .map((line) => (line.trim() === '>' ? '' : line.replace(QUOTE_MARKER_RE, '')))
      .join('\n');
    s.nesting++;
    const top = this.lexer.state.top;
    try {
      this.lexer.state.top = true;
      const tokens = this.lexer.blockTokens(text, []);
      return { type: 'blockquote', raw, text, tokens };
    } finally {
      this.lexer.state.top = top;
      s.nesting--;
    }
  }

  // Python-Markdown strips the whitespace a paragraph starts with.
  override paragraph(src: string): Tokens.Paragraph | undefined {
    const cap = this.rules.block.paragraph.exec(src);
    if (!cap) return undefined;
    const text = (cap[1].endsWith('\n') ? cap[1].slice(0, -1) : cap[1]).replace(/^\s+/, '');
    return { type: 'paragraph', raw: cap[0], text, tokens: this.lexer.inline(text) };
  }

  override codespan(src: string): Tokens.Codespan | undefined {
    const cap = CODESPAN_RE.exec(src);
    if (!cap) return undefined;
    return { type: 'codespan', raw: cap[0], text: cap[2] };
  }

  override br(src: string): Tokens.Br | undefined {
    const cap = /^\n(?!\s*$)/.exec(src);
    return cap ? { type: 'br', raw: cap[0] } : undefined;
  }

  override link(src: string): Tokens.Link | Tokens.Image | undefined {
    // `![alt](url)` images are not Zulip syntax: the '!' stays text.
    if (src.charCodeAt(0) !== 0x5b) return undefined;
    const parsed = parseInlineLink(src);
    if (!parsed) return undefined;
    const href = sanitizeUrl(parsed.href);
    if (href === null) return undefined;
    this.lexer.state.inLink = true;
    const tokens = this.lexer.inlineTokens(parsed.text);
    this.lexer.state.inLink = false;
    return { type: 'link', raw: src.slice(0, parsed.length), href, title: parsed.title, text: parsed.text, tokens };
  }

  // Zulip's emphasis is regex based: `***x***`, `**x**`, `*x*` and `~~x~~`;
  // underscores are never emphasis. Matching runs on marked's masked source so
  // links and code spans inside do not end the emphasis early.
  override emStrong(src: string, maskedSrc: string, prevChar = ''): Tokens.Em | Tokens.Strong | undefined {
    const first = src.charCodeAt(0);
    const masked = maskedSrc.slice(maskedSrc.length - src.length);
    if (first === 0x2a) {
      let m = STRONG_EM_RE.exec(masked);
      if (m) {
        const text = src.slice(3, m[0].length - 3);
        const em: Tokens.Em = { type: 'em', raw: src.slice(0, m[0].length), text, tokens: this.lexer.inlineTokens(text) };
        return { type: 'strong', raw: em.raw, text, tokens: [{ ...em, raw: src.slice(2, m[0].length - 2) }] };
      }
      m = STRONG_RE.exec(masked);
      if (m) {
        const text = src.slice(2, m[0].length - 2);
        return { type: 'strong', raw: src.slice(0, m[0].length), text, tokens: this.lexer.inlineTokens(text) };
      }
      m = EM_RE.exec(masked);
      if (m) {
        const text = src.slice(1, m[0].length - 1);
        return { type: 'em', raw: src.slice(0, m[0].length), text, tokens: this.lexer.inlineTokens(text) };
      }
      return undefined;
    }
    if (first === 0x7e && prevChar !== '~') {
      const m = DEL_RE.exec(masked);
      if (m) {
        const text = src.slice(2, m[0].length - 2);
        const del: Tokens.Del = { type: 'del', raw: src.slice(0, m[0].length), text, tokens: this.lexer.inlineTokens(text) };
        return del as unknown as Tokens.Em;
      }
    }
    return undefined;
  }

  // Zulip's list rules (shared by its web client's marked fork): items nest by
  // any indentation, an item runs until a bullet at its own indentation, and
  // each item is loose or tight on its own.
  override list(src: string): Tokens.List | undefined {
    const s = state();
    if (s.nesting >= MAX_BLOCK_NESTING) return undefined;
    const start = LIST_START_RE.exec(src);
    if (!start) return undefined;
    const cap = (/\d/.test(start[0]) ? ORDERED_LIST_RE : UNORDERED_LIST_RE).exec(src);
    if (!cap) return undefined;
    const bull = cap[2];
    const ordered = bull.length > 1;
    // Items are read one ahead, and only as far as this list goes, so a run of
    // alternating list kinds stays linear.
    const itemRe = new RegExp(ITEM_RE_SOURCE, 'gm');
    let current = itemRe.exec(cap[0]);
    if (!current) return undefined;
    let raw = cap[0];
    const items: Tokens.ListItem[] = [];
    let next = false;
    while (current) {
      const following = itemRe.exec(cap[0]);
      let item = current[0];
      let space = item.length;
      item = item.replace(BULLET_PREFIX_RE, '');
      if (item.includes('\n ')) {
        space -= item.length;
        item = item.replace(new RegExp(`^ {1,${space}}`, 'gm'), '');
      }
      let last = following === null;
      if (following && ordered !== following[2].length > 1) {
        // A different kind of bullet starts a new list.
        raw = raw.slice(0, following.index);
        last = true;
      }
      // Loose when a blank line separates content inside the item.
      let loose = next || item.trimEnd().includes('\n\n');
      if (!last) {
        next = item.endsWith('\n');
        if (!loose) loose = next;
      }
      items.push({ type: 'list_item', raw: item, task: false, loose, text: item, tokens: [] });
      if (last) break;
      current = following;
    }
    s.nesting++;
    try {
      for (const item of items) {
        this.lexer.state.top = false;
        item.tokens = this.lexer.blockTokens(item.text, []);
      }
    } finally {
      s.nesting--;
    }
    return {
      type: 'list',
      raw,
      ordered,
      start: ordered ? Number.parseInt(bull, 10) : '',
      loose: items.some((item) => item.loose),
      items,
    };
  }
}

function prevCharOf(tokens: Token[]): string {
  const last = tokens[tokens.length - 1];
  return last ? last.raw.slice(-1) : '';
}

const MENTION_BEFORE = /[\s'"({[/<]/;
const LINK_BEFORE = /[\s'"(,:<]/;
const WORD_CHAR = /[\p{L}\p{N}_]/u;

const USER_MENTION_RE = /^@(_?)\*\*([^*]+)\*\*/;
const GROUP_MENTION_RE = /^@(_?)\*([^*]+)\*/;
const TEX_RE = /^\$\$([^\n_$](?:\\\$|[^$\n])*)\$\$(?!\$)/;
const MESSAGE_LINK_RE = /^#\*\*([^*>]+)>([^*]*)@(\d+)\*\*/;
const TOPIC_LINK_RE = /^#\*\*([^*>]+)>([^*]*)\*\*/;
const CHANNEL_LINK_RE = /^#\*\*([^*]+)\*\*/;
const TIME_RE = /^<time:([^>]*?)>/;

const mentionTokenizer: TokenizerExtensionFunction = (src, tokens) => {
  if (src.charCodeAt(0) !== 0x40) return undefined;
  const before = prevCharOf(tokens);
  if (before && !MENTION_BEFORE.test(before)) return undefined;
  let m = USER_MENTION_RE.exec(src);
  if (m) {
    const target: MentionTarget | null = resolveUserMention(state(), m[2]);
    if (target) return { type: 'zmention', raw: m[0], target, silent: m[1] === '_' };
  }
  m = GROUP_MENTION_RE.exec(src);
  if (m) {
    const group = state().index.groupsByName.get(m[2].toLowerCase());
    if (group) return { type: 'zgroup', raw: m[0], group, silent: m[1] === '_' };
  }
  return undefined;
};

const texTokenizer: TokenizerExtensionFunction = (src, tokens) => {
  if (!src.startsWith('$$')) return undefined;
  const before = prevCharOf(tokens);
  if (before === '$' || (before && WORD_CHAR.test(before))) return undefined;
  const m = TEX_RE.exec(src);
  if (!m) return undefined;
  const after = src.charAt(m[0].length);
  if (after && WORD_CHAR.test(after)) return undefined;
  return { type: 'ztex', raw: m[0], body: m[1] };
};

const channelTokenizer: TokenizerExtensionFunction = (src, tokens) => {
  if (!src.startsWith('#**')) return undefined;
  const before = prevCharOf(tokens);
  if (before && !LINK_BEFORE.test(before)) return undefined;
  let m = MESSAGE_LINK_RE.exec(src);
  if (m) {
    const channel = lookupChannel(state(), m[1]);
    if (channel) return { type: 'zmessage', raw: m[0], channel, topic: m[2], messageId: m[3] };
  }
  m = TOPIC_LINK_RE.exec(src);
  if (m) {
    const channel = lookupChannel(state(), m[1]);
    if (channel) return { type: 'ztopic', raw: m[0], channel, topic: m[2] };
  }
  m = CHANNEL_LINK_RE.exec(src);
  if (m) {
    const channel = lookupChannel(state(), m[1]);
    if (channel) return { type: 'zchannel', raw: m[0], channel };
  }
  return undefined;
};

const timeTokenizer: TokenizerExtensionFunction = (src) => {
  if (!src.startsWith('<time:')) return undefined;
  const m = TIME_RE.exec(src);
  return m ? { type: 'ztime', raw: m[0], time: m[1] } : undefined;
};

// A stash placeholder (\u0002<index>\u0003) alone on its line.
const stashTokenizer: TokenizerExtensionFunction = (src) => {
  if (src.charCodeAt(0) !== 2) return undefined;
  const close = src.indexOf('\u0003');
  const digits = src.slice(1, close);
  if (close < 2 || !/^\d+$/.test(digits)) return undefined;
  const rest = /^[ \t]*(?:\n+|$)/.exec(src.slice(close + 1));
  if (!rest) return undefined;
  return { type: 'zstash', raw: src.slice(0, close + 1 + rest[0].length), index: Number(digits) };
};

const EXTENSION_START_RE = /@|\$\$|#\*\*|<time:/;
const START_WINDOW = 256;

// Where plain text must stop so an extension can try to match. Searching only
// a window keeps long runs of text linear: past the window the text token is
// simply cut, and the pieces are merged again by the lexer.
function nextExtensionStart(src: string): number {
  const window = src.length > START_WINDOW ? src.slice(0, START_WINDOW) : src;
  const i = window.search(EXTENSION_START_RE);
  if (i >= 0) return i;
  return src.length > START_WINDOW ? START_WINDOW - 8 : -1;
}

function lexerOptions(): MarkedOptions {
  return {
    gfm: true,
    breaks: true,
    tokenizer: new ZulipTokenizer(),
    extensions: {
      renderers: {},
      childTokens: {},
      block: [stashTokenizer],
      inline: [mentionTokenizer, texTokenizer, channelTokenizer, timeTokenizer],
      startInline: [nextExtensionStart],
    },
  };
}

/** Lex preprocessed Markdown into marked tokens with Zulip's extensions. */
export function lexZulipMarkdown(src: string, renderState: RenderState): Token[] {
  const previous = active;
  active = renderState;
  try {
    return new Lexer(lexerOptions()).lex(src);
  } finally {
    active = previous;
  }
}
