// `[text](url "title")` parsed by hand. marked's link regex backtracks
// cubically on input such as `[](` repeated, so a linear scanner is used.

export interface InlineLink {
  text: string;
  href: string;
  title: string | null;
  /** Characters of the source the link spans. */
  length: number;
}

const UNESCAPE_RE = /\\([!-/:-@[-`{-~])/g;

function skipSpace(src: string, i: number): number {
  let sawNewline = false;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t') i++;
    else if (c === '\n' && !sawNewline) {
      sawNewline = true;
      i++;
    } else break;
  }
  return i;
}

/** Deepest bracket (or parenthesis) nesting accepted in a link. */
const MAX_LABEL_DEPTH = 32;

/** End of the link label starting at `[` (index of the matching `]`), or -1. */
function labelEnd(src: string): number {
  let depth = 0;
  for (let i = 1; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      i++;
    } else if (c === '`') {
      // A code span inside the label hides its brackets.
      let run = 1;
      while (src[i + run] === '`') run++;
      const fence = '`'.repeat(run);
      const close = src.indexOf(fence, i + run);
      if (close !== -1 && src[close + run] !== '`') i = close + run - 1;
      else i += run - 1;
    } else if (c === '[') {
      // Bounding the depth keeps runs of '[' linear overall.
      if (++depth > MAX_LABEL_DEPTH) return -1;
    } else if (c === ']') {
      if (depth === 0) return i;
      depth--;
    } else if (c === '\n' && src[i + 1] === '\n') {
      return -1;
    }
  }
  return -1;
}

export function parseInlineLink(src: string): InlineLink | null {
  const close = labelEnd(src);
  if (close === -1 || src[close + 1] !== '(') return null;
  const text = src.slice(1, close);
  let i = skipSpace(src, close + 2);
  let href: string;
  if (src[i] === '<') {
    const end = src.indexOf('>', i + 1);
    if (end === -1 || src.slice(i + 1, end).includes('\n')) return null;
    href = src.slice(i + 1, end);
    i = end + 1;
  } else {
    const start = i;
    let depth = 0;
    while (i < src.length) {
      const c = src[i];
      if (c === '\\' && i + 1 < src.length) {
        i += 2;
        continue;
      }
      if (c <= ' ') break;
      if (c === '(') {
        // Like cmark, bound parenthesis nesting in a destination.
        if (++depth > MAX_LABEL_DEPTH) return null;
      } else if (c === ')') {
        if (depth === 0) break;
        depth--;
      }
      i++;
    }
    if (depth !== 0) return null;
    href = src.slice(start, i);
  }
  let title: string | null = null;
  const afterHref = i;
  i = skipSpace(src, i);
  const opener = src[i];
  if (i > afterHref && (opener === '"' || opener === "'" || opener === '(')) {
    const closer = opener === '(' ? ')' : opener;
    let j = i + 1;
    while (j < src.length && src[j] !== closer) j += src[j] === '\\' ? 2 : 1;
    if (j >= src.length) return null;
    title = src.slice(i + 1, j).replace(UNESCAPE_RE, '$1');
    i = skipSpace(src, j + 1);
  }
  if (src[i] !== ')') return null;
  return { text, href: href.replace(UNESCAPE_RE, '$1'), title, length: i + 1 };
}
