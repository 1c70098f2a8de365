// The render folder owns Zulip-flavoured Markdown: the renderer (marked plus
// Zulip's extensions), realm linkifiers and code playground templates, search
// highlighting, and the worker-thread pool that runs them with a time budget.
//
// Files: markdown.ts (entry) → preprocess.ts (fenced blocks) → tokenizer.ts
// (marked configuration) → html.ts (HTML output) with inline-text.ts (links,
// linkifiers, emoji in text), mentions.ts, emoji.ts, autolink.ts, tex.ts,
// time.ts, code.ts; linkifiers.ts + uri-template.ts; highlight.ts; scan.ts;
// pool.ts + worker.ts.

export type {
  ContentReferences,
  RenderChannel,
  RenderContext,
  RenderLinkifier,
  RenderRealmEmoji,
  RenderResult,
  RenderUser,
  RenderUserGroup,
} from './types.js';
export { renderMarkdown } from './markdown.js';
export { RenderPool, RenderPoolClosedError, RenderTimeoutError, renderDirect, type RenderPoolOptions } from './pool.js';
export {
  compileLinkifier,
  expandPlaygroundUrl,
  topicLinks,
  validateLinkifier,
  validatePlaygroundTemplate,
  type LinkifierValidation,
  type PlaygroundValidation,
  type TopicLink,
} from './linkifiers.js';
export { expandUriTemplate, isValidUriTemplate, parseUriTemplate, templateVariables } from './uri-template.js';
export { highlightMatches, highlightText } from './highlight.js';
export { contextForContent, findAlertWords, scanContent } from './scan.js';
export { emojiCodeForName, emojiNameForCode } from './emoji.js';
export { canonicalCodeLanguage } from './code.js';
