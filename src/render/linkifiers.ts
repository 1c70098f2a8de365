// Realm linkifiers: Python-style patterns compiled to JavaScript, RFC 6570 URL
// templates, their validation, and their application to topics. (Message text
// applies them through `inline-text.ts`.)

import { findWebLinks } from './autolink.js';
import {
  expandUriTemplate,
  parseUriTemplate,
  templateVariables,
  UriTemplateError,
  type TemplatePart,
} from './uri-template.js';
import type { RenderLinkifier } from './types.js';

export class LinkifierPatternError extends Error {}

const JS_SYNTAX_CHARS = new Set([...'^$\\.*+?()[]{}|/']);

/**
 * Translate a Python `re` pattern to JavaScript source plus flags. Throws
 * LinkifierPatternError for syntax JavaScript cannot express.
 */
export function pythonPatternToJs(pattern: string): { source: string; flags: string } {
  let out = '';
  let flags = '';
  let inClass = false;
  let i = 0;
  const leading = /^\(\?([aiLmsux]+)\)/.exec(pattern);
  if (leading) {
    for (const f of leading[1]) {
      if (f === 'i' || f === 'm' || f === 's') {
        if (!flags.includes(f)) flags += f;
      } else if (f === 'x' || f === 'L') {
        throw new LinkifierPatternError(`the (?${f}) flag is not supported`);
      }
    }
    i = leading[0].length;
  }
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) throw new LinkifierPatternError('bad escape (end of pattern)');
      if (/[A-Za-z0-9]/.test(next)) {
        if (!inClass && next === 'A') out += '^';
        else if (!inClass && next === 'Z') out += '$';
        else if (next === 'U') {
          const hex = pattern.slice(i + 2, i + 10);
          if (!/^[0-9a-fA-F]{8}$/.test(hex)) throw new LinkifierPatternError('bad \\U escape');
          out += `\\u{${hex.replace(/^0+(?=.)/, '')}}`;
          i += 10;
          continue;
        } else if (next === 'N') {
          throw new LinkifierPatternError('named Unicode escapes (\\N{...}) are not supported');
        } else out += '\\' + next;
      } else if (JS_SYNTAX_CHARS.has(next) || (inClass && next === '-')) {
        out += '\\' + next;
      } else {
        out += next;
      }
      i += 2;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      else if (ch === '[') {
        out += '\\[';
        i++;
        continue;
      }
      out += ch;
      i++;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      out += ch;
      i++;
      if (pattern[i] === '^') {
        out += '^';
        i++;
      }
      // A ']' right after '[' or '[^' is a literal in Python.
      if (pattern[i] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (ch === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i);
      let m: RegExpExecArray | null;
      if ((m = /^\(\?P<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest))) {
        out += `(?<${m[1]}>`;
        i += m[0].length;
        continue;
      }
      if ((m = /^\(\?P=([A-Za-z_][A-Za-z0-9_]*)\)/.exec(rest))) {
        out += `\\k<${m[1]}>`;
        i += m[0].length;
        continue;
      }
      if ((m = /^\(\?#[^)]*\)/.exec(rest))) {
        i += m[0].length;
        continue;
      }
      if (/^\(\?(?::|=|!|<=|<!)/.test(rest)) {
        out += '(?';
        i += 2;
        continue;
      }
      if ((m = /^\(\?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest))) {
        // RE2 (which Zulip validates with) also accepts this spelling.
        out += m[0];
        i += m[0].length;
        continue;
      }
      throw new LinkifierPatternError(`unsupported group syntax at position ${i}`);
    }
    if (ch === '{') {
      const m = /^\{(\d*)(,?)(\d*)\}/.exec(pattern.slice(i));
      if (m && (m[1] !== '' || m[3] !== '') && out !== '') {
        out += `{${m[1] === '' ? '0' : m[1]}${m[2]}${m[3]}}`;
        i += m[0].length;
        continue;
      }
      out += '\\{';
      i++;
      continue;
    }
    if (ch === '}') {
      out += '\\}';
      i++;
      continue;
    }
    out += ch;
    i++;
  }
  if (inClass) throw new LinkifierPatternError('unterminated character set');
  return { source: out, flags };
}

export interface CompiledLinkifier {
  id: number;
  /** Global regex; the whole match is the linked text. */
  regex: RegExp;
  template: TemplatePart[];
  groupNames: string[];
}

function wrapPattern(source: string): string {
  // Same boundaries as Zulip: start after whitespace or an opening delimiter,
  // and do not end in the middle of a word.
  return `(?<=^|[\\s\\u0085\\p{Z}'"(,:<])(?:${source})(?=$|[^\\p{L}\\p{N}])`;
}

function compilePattern(pattern: string): { regex: RegExp; groupNames: string[] } {
  const { source, flags } = pythonPatternToJs(pattern);
  let regex: RegExp;
  try {
    // Compile the pattern alone first so errors do not quote our wrapper.
    new RegExp(source, 'u' + flags);
    regex = new RegExp(wrapPattern(source), 'gu' + flags);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // V8: "Invalid regular expression: /<source>/<flags>: <reason>"
    const reason = /: ([^:]+)$/.exec(err.message)?.[1] ?? err.message;
    throw new LinkifierPatternError(reason);
  }
  // An empty alternative makes the regex match '' so `groups` lists every name.
  const groupNames = Object.keys(new RegExp(`(?:${source})|`, 'u' + flags).exec('')?.groups ?? {});
  return { regex, groupNames };
}

export type LinkifierValidation = { ok: true } | { ok: false; field: 'pattern' | 'url_template'; msg: string };

/** Validate a linkifier the way Zulip does before saving it. */
export function validateLinkifier(pattern: string, urlTemplate: string): LinkifierValidation {
  let groupNames: string[];
  try {
    groupNames = compilePattern(pattern).groupNames;
  } catch (err) {
    if (err instanceof LinkifierPatternError) {
      return { ok: false, field: 'pattern', msg: `Bad regular expression: ${err.message}` };
    }
    // The guarded step: whatever else compiling throws (a pattern too deep or too large for
    // the engine) is the pattern's fault, worded as Zulip's re2 words it.
    return { ok: false, field: 'pattern', msg: 'Bad regular expression: pattern too large - compile failed' };
  }
  let variables: string[];
  try {
    variables = templateVariables(parseUriTemplate(urlTemplate));
  } catch (err) {
    if (err instanceof UriTemplateError) return { ok: false, field: 'url_template', msg: 'Invalid URL template.' };
    throw err;
  }
  const groups = new Set(groupNames);
  const vars = new Set(variables);
  const missingInPattern = [...vars].filter((v) => !groups.has(v)).sort();
  if (missingInPattern.length > 0) {
    return {
      ok: false,
      field: 'url_template',
      msg: `Group '${missingInPattern[0]}' in URL template is not present in linkifier pattern.`,
    };
  }
  const missingInTemplate = [...groups].filter((g) => !vars.has(g)).sort();
  if (missingInTemplate.length > 0) {
    return {
      ok: false,
      field: 'url_template',
      msg: `Group '${missingInTemplate[0]}' in linkifier pattern is not present in URL template.`,
    };
  }
  return { ok: true };
}

export type PlaygroundValidation = { ok: true } | { ok: false; msg: string };

/** A code playground URL template must be RFC 6570 with exactly the variable `code`. */
export function validatePlaygroundTemplate(urlTemplate: string): PlaygroundValidation {
  let variables: string[];
  try {
    variables = templateVariables(parseUriTemplate(urlTemplate));
  } catch (err) {
    if (err instanceof UriTemplateError) return { ok: false, msg: 'Invalid URL template.' };
    throw err;
  }
  if (!variables.includes('code')) {
    return { ok: false, msg: 'Missing the required variable "code" in the URL template' };
  }
  if (variables.length !== 1) {
    return { ok: false, msg: '"code" should be the only variable present in the URL template' };
  }
  return { ok: true };
}

/** Expand a playground template for a piece of code. */
export function expandPlaygroundUrl(urlTemplate: string, code: string): string {
  return expandUriTemplate(parseUriTemplate(urlTemplate), { code });
}

// Compiled linkifiers are reused across renders on the same thread.
const compiledCache = new Map<string, CompiledLinkifier | null>();
const CACHE_LIMIT = 1000;

/** Compile a stored linkifier; null when it is invalid (it is then ignored). */
export function compileLinkifier(linkifier: RenderLinkifier): CompiledLinkifier | null {
  const key = `${linkifier.id}\u0000${linkifier.pattern}\u0000${linkifier.url_template}`;
  const cached = compiledCache.get(key);
  if (cached !== undefined) return cached;
  let compiled: CompiledLinkifier | null = null;
  try {
    const { regex, groupNames } = compilePattern(linkifier.pattern);
    compiled = { id: linkifier.id, regex, groupNames, template: parseUriTemplate(linkifier.url_template) };
  } catch {
    // Stored linkifiers passed validateLinkifier; one the engine still refuses is ignored.
    compiled = null;
  }
  if (compiledCache.size >= CACHE_LIMIT) compiledCache.delete(compiledCache.keys().next().value!);
  compiledCache.set(key, compiled);
  return compiled;
}

export interface LinkifierMatch {
  start: number;
  end: number;
  text: string;
  url: string;
}

/** All matches of one linkifier in `haystack`, from `from` on. */
export function linkifierMatches(linkifier: CompiledLinkifier, haystack: string, from = 0): LinkifierMatch[] {
  const out: LinkifierMatch[] = [];
  const re = linkifier.regex;
  re.lastIndex = from;
  let m: RegExpExecArray | null;
  while ((m = re.exec(haystack)) !== null) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    const values: Record<string, string | undefined> = {};
    for (const name of linkifier.groupNames) values[name] = m.groups?.[name];
    out.push({ start: m.index, end: m.index + m[0].length, text: m[0], url: expandUriTemplate(linkifier.template, values) });
  }
  return out;
}

export interface TopicLink {
  text: string;
  url: string;
}

const BASIC_LINK_SPLITTER = /[ !;),'"]/;

/** Zulip's `topic_links`: linkifier matches and bare URLs in a topic name. */
export function topicLinks(topic: string, linkifiers: RenderLinkifier[]): TopicLink[] {
  interface Candidate extends TopicLink {
    index: number;
    precedence: number;
  }
  const matches: Candidate[] = [];
  let precedence = 0;
  for (const linkifier of linkifiers) {
    const compiled = compileLinkifier(linkifier);
    if (compiled) {
      for (const m of linkifierMatches(compiled, topic)) {
        matches.push({ text: m.text, url: m.url, index: m.start, precedence });
      }
    }
    precedence++;
  }
  let pos = 0;
  for (const piece of topic.split(BASIC_LINK_SPLITTER)) {
    const found = findWebLinks(piece, '', '');
    if (found.length > 0 && found[0].start === 0) {
      const text = found[0].text;
      const url = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(text) ? text : 'https://' + text;
      matches.push({ text, url, index: pos, precedence });
    }
    pos += piece.length + 1;
  }
  matches.sort((a, b) => a.precedence - b.precedence || a.index - b.index);
  const applied: Candidate[] = [];
  for (const m of matches) {
    const end = m.index + m.text.length;
    if (applied.some((a) => m.index < a.index + a.text.length && a.index < end)) continue;
    applied.push(m);
  }
  applied.sort((a, b) => a.index - b.index);
  return applied.map(({ text, url }) => ({ text, url }));
}
