// renderMarkdown: Zulip-flavoured Markdown → HTML plus what the message
// mentions and links to. Pure and synchronous; the pool runs it off-thread.

import { newState, type RenderState } from './context.js';
import { escapeText } from './escape.js';
import { HtmlRenderer } from './html.js';
import { preprocessFences } from './preprocess.js';
import { lexZulipMarkdown } from './tokenizer.js';
import type { RenderContext, RenderResult } from './types.js';

const STASH_OPEN = '\u0002';
const STASH_CLOSE = '\u0003';

function normalise(content: string): string {
  // \u0002/\u0003 delimit our placeholders; they have no business in a message.
  return content.replace(/\r\n?/g, '\n').split(STASH_OPEN).join('').split(STASH_CLOSE).join('');
}

function renderToHtml(content: string, state: RenderState): string {
  const lex = (markdown: string) => lexZulipMarkdown(preprocessFences(markdown, state), state);
  const renderer = new HtmlRenderer(state, lex);
  const html = renderer.blocks(lex(content));
  let start = 0;
  let end = html.length;
  while (start < end && html.charCodeAt(start) === 10) start++;
  while (end > start && html.charCodeAt(end - 1) === 10) end--;
  return html.slice(start, end);
}

function result(html: string, content: string, state: RenderState): RenderResult {
  return {
    html,
    mentionedUserIds: [...state.mentioned],
    silentlyMentionedUserIds: [...state.silentlyMentioned].filter((id) => !state.mentioned.has(id)),
    mentionedGroupIds: [...state.mentionedGroups],
    wildcards: { ...state.wildcards },
    links: state.links,
    isMeMessage: content.startsWith('/me '),
    hasImage: state.hasImage,
    hasLink: state.links.length > 0,
  };
}

export function renderMarkdown(content: string, ctx: RenderContext): RenderResult {
  const text = normalise(content);
  const state = newState(ctx);
  try {
    return result(renderToHtml(text, state), text, state);
  } catch (err) {
    // Input that defeats the parser (e.g. nesting deep enough to exhaust the
    // stack) is shown as plain text rather than failing the message.
    if (!(err instanceof Error)) throw err;
    const fallback = newState(ctx);
    const html = text === '' ? '' : `<p>${escapeText(text)}</p>`;
    return result(html, text, fallback);
  }
}

/**
 * Compile the large regexes and build the emoji tables now rather than during
 * the first real message (worker threads call this at start-up).
 */
export function warmUp(): void {
  renderMarkdown('**warm** up :smile: 💩 example.com $$x$$ <time:1700000000>', { realmUrl: '' });
}
