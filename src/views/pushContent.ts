// The text of a push notification: the rendered message as plain text, truncated the way
// Zulip's mobile payloads are (200 characters, then "…").
export const PUSH_CONTENT_LENGTH = 200;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
const VOID_TAGS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const BLOCK_TAGS = new Set(['p', 'div', 'li', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'tr', 'table']);

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[e.toLowerCase()] ?? whole;
  });
}

const attr = (attrs: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(attrs)?.[1];

/**
 * Plain text of rendered message HTML. Emoji images read as their `:name:`, other images as
 * "[image]"; of KaTeX output (the formula as MathML, as hidden HTML, and as TeX) only the TeX
 * source is kept.
 */
export function plainTextOfHtml(html: string): string {
  const out: string[] = [];
  const stack: Array<{ tag: string; hidden: boolean }> = [];
  const hidden = () => stack.length > 0 && stack[stack.length - 1]!.hidden;
  const token = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>|<!--[\s\S]*?-->|([^<]+)|</g;
  for (const m of html.matchAll(token)) {
    const [whole, closing, rawTag, attrs = '', text] = m;
    if (text !== undefined) {
      if (!hidden()) out.push(decodeEntities(text));
      continue;
    }
    if (!rawTag) {
      if (whole === '<' && !hidden()) out.push('<');
      continue;
    }
    const tag = rawTag.toLowerCase();
    if (closing) {
      const at = stack.map((e) => e.tag).lastIndexOf(tag);
      if (at >= 0) stack.length = at;
      if (BLOCK_TAGS.has(tag)) out.push('\n');
      continue;
    }
    if (!hidden()) {
      if (tag === 'br') out.push('\n');
      if (tag === 'img') out.push(/\bemoji\b/.test(attr(attrs, 'class') ?? '') ? (attr(attrs, 'alt') ?? '') : ' [image] ');
    }
    if (VOID_TAGS.has(tag) || attrs.endsWith('/')) continue;
    const isHidden = hidden() ? tag !== 'annotation' : tag === 'math' || attr(attrs, 'aria-hidden') === 'true';
    stack.push({ tag, hidden: isHidden });
  }
  return out
    .join('')
    .split('\n')
    .map((line) => line.replace(/[ \t\r\f\v\u00a0]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

export function truncatePushContent(text: string): { content: string; truncated: boolean } {
  const chars = [...text];
  if (chars.length <= PUSH_CONTENT_LENGTH) return { content: text, truncated: false };
  return { content: chars.slice(0, PUSH_CONTENT_LENGTH).join('') + '…', truncated: true };
}
