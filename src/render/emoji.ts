// Emoji names and code points. The table is built once per thread, lazily, from
// emoji-datasource; only two small maps are kept (name → code, code → name).

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { escapeAttr } from './escape.js';
import { EMOTICON_CONVERSIONS, MAX_EMOJI_VERSION, ZULIP_EMOJI_NAME_OVERRIDES } from './emoji-names.js';

interface DatasourceEntry {
  name: string | null;
  unified: string;
  short_names: string[];
  added_in: string;
  has_img_google: boolean;
}

interface EmojiTables {
  nameToCode: Map<string, string>;
  codeToName: Map<string, string>;
}

let tables: EmojiTables | null = null;

/** Zulip's code for an emoji: lowercase hex code points, FE0F dropped, joined by '-'. */
export function emojiCodeFromUnified(unified: string): string {
  return unified
    .toLowerCase()
    .split('-')
    .filter((part) => part !== 'fe0f')
    .join('-');
}

function zulipName(shortName: string): string {
  // iamcal uses '-' inside multi-word names ("woman-shrugging"); Zulip uses '_'.
  return shortName.length > 1 ? shortName[0] + shortName.slice(1).replace(/-/g, '_') : shortName;
}

function buildTables(): EmojiTables {
  const require = createRequire(import.meta.url);
  const path = require.resolve('emoji-datasource/emoji.json');
  const entries = JSON.parse(readFileSync(path, 'utf8')) as DatasourceEntry[];

  const overridden = new Set<string>();
  for (const list of Object.values(ZULIP_EMOJI_NAME_OVERRIDES)) for (const n of list) overridden.add(n);

  const namesByCode = new Map<string, string[]>();
  const fallbackByCode = new Map<string, string>();
  for (const entry of entries) {
    if (!entry.has_img_google || Number.parseFloat(entry.added_in) > MAX_EMOJI_VERSION) continue;
    const code = emojiCodeFromUnified(entry.unified);
    // Skin tone modifiers are not emoji of their own in Zulip.
    if (/^1f3f[b-f]$/.test(code)) continue;
    const override = ZULIP_EMOJI_NAME_OVERRIDES[code];
    const list = override ?? entry.short_names.map(zulipName).filter((n) => !overridden.has(n));
    namesByCode.set(code, list);
    if (entry.name) fallbackByCode.set(code, entry.name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, ''));
  }

  const nameToCode = new Map<string, string>();
  const codeToName = new Map<string, string>();
  for (const [code, list] of namesByCode) {
    const usable = list.filter((n) => !nameToCode.has(n));
    if (usable.length === 0) {
      const fallback = fallbackByCode.get(code);
      if (fallback && !nameToCode.has(fallback)) usable.push(fallback);
    }
    for (const name of usable) nameToCode.set(name, code);
    if (usable.length > 0) codeToName.set(code, usable[0]);
  }
  return { nameToCode, codeToName };
}

function getTables(): EmojiTables {
  tables ??= buildTables();
  return tables;
}

/** Code point string for a Unicode emoji name, e.g. "smile" → "1f642". */
export function emojiCodeForName(name: string): string | undefined {
  return getTables().nameToCode.get(name);
}

/** Canonical name for a code, e.g. "1f642" → "smile". */
export function emojiNameForCode(code: string): string | undefined {
  return getTables().codeToName.get(code);
}

/** Warm the tables (call once per worker at start-up). */
export function loadEmojiTables(): void {
  getTables();
}

export function unicodeEmojiHtml(code: string, name: string): string {
  const title = escapeAttr(name.replace(/_/g, ' '));
  return `<span aria-label="${title}" class="emoji emoji-${code}" role="img" title="${title}">:${escapeAttr(name)}:</span>`;
}

export function imageEmojiHtml(src: string, name: string): string {
  return `<img alt=":${escapeAttr(name)}:" class="emoji" src="${escapeAttr(src)}" title="${escapeAttr(name.replace(/_/g, ' '))}">`;
}

export const ZULIP_EMOJI_SRC = '/static/generated/emoji/images/emoji/unicode/zulip.png';

/** `:name:` syntax; the name characters Zulip allows. */
export const EMOJI_NAME_RE = /:([\w+-]+):/gu;

// A possible emoji: a fully qualified element (or one with emoji presentation by
// default), optionally joined with others by ZWJ. The whole sequence must be a
// known emoji to be replaced, so unknown combinations stay as typed.
const TAG_SEQ = '[\\u{E0020}-\\u{E007E}]+\\u{E007F}';
const EP = '\\p{Extended_Pictographic}';
const ELEMENT =
  '(?:\\p{Regional_Indicator}{2}|[#*0-9]\\uFE0F?\\u20E3' +
  `|(?:\\p{Emoji_Presentation}|${EP}(?=\\uFE0F|\\u200D))\\uFE0F?\\p{Emoji_Modifier}?(?:${TAG_SEQ})?)`;
const ZWJ_ELEMENT = `(?:${ELEMENT}|${EP}\\uFE0F?\\p{Emoji_Modifier}?)`;
export const POSSIBLE_UNICODE_EMOJI_RE = new RegExp(`${ELEMENT}(?:\\u200D${ZWJ_ELEMENT})*`, 'gu');

/** Code for a Unicode emoji string, e.g. "🤷‍♀️" → "1f937-200d-2640". */
export function codeForUnicodeEmoji(text: string): string {
  const parts: string[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0xfe0f) continue;
    parts.push(cp.toString(16).padStart(4, '0'));
  }
  return parts.join('-');
}

const TERMINAL = ",.;?!()\\[\\] \"'\\n\\t";
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
export const EMOTICON_RE = new RegExp(
  `(?<![^${TERMINAL}\\s])(${Object.keys(EMOTICON_CONVERSIONS).map(escapeRe).join('|')})(?![^${TERMINAL}\\s])`,
  'g',
);
export { EMOTICON_CONVERSIONS };

/** Every Unicode emoji's names, canonical first (Zulip's emoji_api.json `code_to_names`). */
export function emojiCodeToNames(): Record<string, string[]> {
  const { nameToCode, codeToName } = getTables();
  const out: Record<string, string[]> = {};
  for (const [code, name] of codeToName) out[code] = [name];
  for (const [name, code] of nameToCode) if (out[code] && out[code][0] !== name) out[code].push(name);
  return out;
}
