// Token tree → HTML in the shape Zulip's server produces. Also records what the
// message mentions and links to, and adds inline image previews.

import type { Token, Tokens } from 'marked';
import { isImageUrl, thumbnailUrl } from './autolink.js';
import { formatCodeBlock } from './code.js';
import type { RenderState } from './context.js';
import { MAX_BLOCK_NESTING } from './tokenizer.js';
import { escapeAll, escapeAttr, escapeText } from './escape.js';
import { renderPlainText } from './inline-text.js';
import {
  channelLinkHtml,
  groupMentionHtml,
  messageLinkHtml,
  topicLinkHtml,
  userMentionHtml,
  type MentionTarget,
} from './mentions.js';
import { renderDisplayTex, renderInlineTex } from './tex.js';
import { renderTime } from './time.js';
import type { RenderChannel, RenderUserGroup } from './types.js';

/** Most image previews one message gets. */
export const MAX_INLINE_PREVIEWS = 24;

interface Preview {
  href: string;
  title: string | null;
}

export class HtmlRenderer {
  private quoteDepth = 0;
  private spoilerDepth = 0;
  /** Block nesting of what is being rendered (quotes, list items, spoilers). */
  private depth = 0;
  private previews: Preview[] | null = null;

  /** `lex` lexes Markdown found inside fences that marked (not the preprocessor) saw. */
  constructor(
    private readonly state: RenderState,
    private readonly lex: (markdown: string) => Token[],
  ) {}

  /** Lex nested Markdown, counting the nesting it sits in against the limits. */
  private nested(markdown: string): Token[] {
    const saved = this.state.nesting;
    this.state.nesting = this.depth;
    try {
      return this.lex(markdown);
    } finally {
      this.state.nesting = saved;
    }
  }

  private nest<T>(render: () => T): T {
    this.depth++;
    try {
      return render();
    } finally {
      this.depth--;
    }
  }

  blocks(tokens: Token[]): string {
    let out = '';
    for (const token of tokens) out += this.block(token);
    return out;
  }

  private block(token: Token): string {
    switch (token.type) {
      case 'space':
      case 'def':
        return '';
      case 'paragraph':
        return this.paragraph(token.tokens ?? []);
      case 'text':
        return this.paragraph(token.tokens ?? [{ type: 'text', raw: token.raw, text: token.text }]);
      case 'heading':
        return `<h${token.depth}>${this.inline(token.tokens ?? [], '', '', false)}</h${token.depth}>\n`;
      case 'hr':
        return '<hr>\n';
      case 'code':
        return this.code(token as Tokens.Code);
      case 'blockquote':
        return this.blockquote(token.tokens ?? []);
      case 'list':
        return this.list(token as Tokens.List);
      case 'table':
        return this.table(token as Tokens.Table);
      case 'html':
        return `<p>${escapeAll(token.raw.trimEnd())}</p>\n`;
      case 'zhtmlpara':
        return `<p>${this.inline(token.tokens ?? [], '', '', false)}\n\n</p>\n`;
      case 'zstash':
        return this.stash(token.index as number);
      default:
        return `<p>${escapeText(token.raw)}</p>\n`;
    }
  }

  private stash(index: number): string {
    const entry = this.state.stash[index];
    if (!entry) return '';
    if (entry.kind === 'spoiler-open') this.spoilerDepth++;
    if (entry.kind === 'spoiler-close') this.spoilerDepth--;
    return entry.html + '\n';
  }

  private previewsAllowed(): boolean {
    return this.quoteDepth === 0 && this.spoilerDepth === 0;
  }

  private withPreviews(render: () => string): { html: string; previews: Preview[] } {
    const saved = this.previews;
    const previews: Preview[] = [];
    this.previews = previews;
    try {
      return { html: render(), previews };
    } finally {
      this.previews = saved;
    }
  }

  private previewHtml(previews: Preview[]): string {
    return previews
      .map((p) => {
        const title = p.title !== null ? ` title="${escapeAttr(p.title)}"` : '';
        return (
          `<div class="message_inline_image"><a href="${escapeAttr(p.href)}"${title}>` +
          `<img data-src-fullsize="${escapeAttr(thumbnailUrl(p.href, 'full'))}" ` +
          `src="${escapeAttr(thumbnailUrl(p.href, 'thumbnail'))}"></a></div>`
        );
      })
      .join('');
  }

  private static isOnlyLink(html: string, previews: Preview[]): boolean {
    return previews.length === 1 && previews[0].title === null && /^<a href="[^"]*">[^<]*<\/a>$/.test(html);
  }

  private paragraph(tokens: Token[]): string {
    const { html, previews } = this.withPreviews(() => this.inline(tokens, '', '', false));
    if (previews.length === 0) return `<p>${html}</p>\n`;
    const images = this.previewHtml(previews);
    return HtmlRenderer.isOnlyLink(html, previews) ? images : `<p>${html}</p>\n${images}`;
  }

  private code(token: Tokens.Code): string {
    if (token.codeBlockStyle === 'indented') return formatCodeBlock(token.text, '') + '\n';
    const info = (token.lang ?? '').trim();
    const space = info.search(/\s/);
    let lang = (space === -1 ? info : info.slice(0, space)).replace(/^\{?\.?/, '').replace(/\}$/, '').toLowerCase();
    const header = space === -1 ? '' : info.slice(space + 1).trim();
    if (!lang) lang = this.state.index.defaultCodeBlockLanguage.toLowerCase();
    if (lang === 'math') return renderDisplayTex(token.text) + '\n';
    // Quotes and spoilers nested too deeply are shown as their source.
    if (this.depth >= MAX_BLOCK_NESTING) return formatCodeBlock(token.text, lang) + '\n';
    if (lang === 'quote' || lang === 'quoted') return this.blockquote(() => this.nested(token.text));
    if (lang === 'spoiler') {
      this.spoilerDepth++;
      this.depth++;
      try {
        const head = header ? this.blocks(this.nested(header)) : '';
        const body = this.blocks(this.nested(token.text));
        return (
          '<div class="spoiler-block"><div class="spoiler-header">\n' +
          head +
          '</div><div class="spoiler-content" aria-hidden="true">\n' +
          body +
          '</div></div>\n'
        );
      } finally {
        this.spoilerDepth--;
        this.depth--;
      }
    }
    return formatCodeBlock(token.text, lang) + '\n';
  }

  private blockquote(tokens: Token[] | (() => Token[])): string {
    this.quoteDepth++;
    this.depth++;
    try {
      const children = typeof tokens === 'function' ? tokens() : tokens;
      return `<blockquote>\n${this.blocks(children)}</blockquote>\n`;
    } finally {
      this.quoteDepth--;
      this.depth--;
    }
  }

  private list(token: Tokens.List): string {
    const tag = token.ordered ? 'ol' : 'ul';
    const start = token.ordered && token.start !== 1 && token.start !== '' ? ` start="${token.start}"` : '';
    let out = `<${tag}${start}>\n`;
    this.nest(() => {
      for (const item of token.items) out += this.listItem(item);
    });
    return out + `</${tag}>\n`;
  }

  private listItem(item: Tokens.ListItem): string {
    if (item.loose) {
      let body = '';
      for (const child of item.tokens) body += this.block(child);
      return `<li>${body}</li>\n`;
    }
    const { html, previews } = this.withPreviews(() => {
      let body = '';
      for (const child of item.tokens) {
        body += child.type === 'text' ? this.inline(child.tokens ?? [], '', '', false) : this.block(child);
      }
      return body;
    });
    if (previews.length === 0) return `<li>${html}</li>\n`;
    const images = this.previewHtml(previews);
    return `<li>${HtmlRenderer.isOnlyLink(html, previews) ? '' : html}${images}</li>\n`;
  }

  private table(token: Tokens.Table): string {
    const cell = (c: Tokens.TableCell, tag: 'th' | 'td'): string => {
      const align = c.align ? ` style="text-align: ${c.align};"` : '';
      return `<${tag}${align}>${this.inline(c.tokens, '', '', false)}</${tag}>\n`;
    };
    let out = '<table>\n<thead>\n<tr>\n';
    for (const c of token.header) out += cell(c, 'th');
    out += '</tr>\n</thead>\n<tbody>\n';
    for (const row of token.rows) {
      out += '<tr>\n';
      for (const c of row) out += cell(c, 'td');
      out += '</tr>\n';
    }
    return out + '</tbody>\n</table>\n';
  }

  private recordLink(href: string, text: string): void {
    const state = this.state;
    if (!state.links.includes(href)) state.links.push(href);
    if (!this.previews || !this.previewsAllowed() || !isImageUrl(href)) return;
    if (state.previewedUrls.has(href) || state.previewedUrls.size >= MAX_INLINE_PREVIEWS) return;
    state.previewedUrls.add(href);
    state.hasImage = true;
    this.previews.push({ href, title: text === href ? null : text });
  }

  inline(tokens: Token[], before: string, after: string, inLink: boolean): string {
    let out = '';
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i];
      const prev = i > 0 ? tokens[i - 1].raw.slice(-1) : before;
      const next = i + 1 < tokens.length ? tokens[i + 1].raw.charAt(0) : after;
      out += this.inlineToken(token, prev, next, inLink);
    }
    return out;
  }

  private inlineToken(token: Token, prev: string, next: string, inLink: boolean): string {
    const state = this.state;
    switch (token.type) {
      case 'text':
        if (token.tokens) return this.inline(token.tokens, prev, next, inLink);
        return renderPlainText(state, token.text as string, prev, next, inLink, (href, text) =>
          this.recordLink(href, text),
        );
      case 'escape':
        return escapeText(token.text as string);
      case 'html':
        return escapeAll(token.raw);
      case 'codespan':
        return `<code>${(token.text as string).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}</code>`;
      case 'br':
        return '<br>\n';
      case 'strong':
        return `<strong>${this.inline(token.tokens ?? [], '*', '*', inLink)}</strong>`;
      case 'em':
        return `<em>${this.inline(token.tokens ?? [], '*', '*', inLink)}</em>`;
      case 'del':
        return `<del>${this.inline(token.tokens ?? [], '~', '~', inLink)}</del>`;
      case 'link': {
        const link = token as Tokens.Link;
        const inner = this.inline(link.tokens, '', '', true);
        const title = link.title ? ` title="${escapeAttr(link.title)}"` : '';
        this.recordLink(link.href, link.text || link.href);
        return `<a href="${escapeAttr(link.href)}"${title}>${inner || escapeText(link.href)}</a>`;
      }
      case 'zmention':
        return userMentionHtml(state, token.target as MentionTarget, Boolean(token.silent) || this.quoteDepth > 0);
      case 'zgroup':
        return groupMentionHtml(state, token.group as RenderUserGroup, Boolean(token.silent) || this.quoteDepth > 0);
      case 'zchannel':
        return channelLinkHtml(token.channel as RenderChannel);
      case 'ztopic':
        return topicLinkHtml(state, token.channel as RenderChannel, token.topic as string);
      case 'zmessage':
        return messageLinkHtml(state, token.channel as RenderChannel, token.topic as string, token.messageId as string);
      case 'ztex':
        return renderInlineTex(token.body as string);
      case 'ztime':
        return renderTime(token.time as string);
      default:
        return escapeText(token.raw);
    }
  }
}
