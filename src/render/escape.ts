// HTML escaping used by the renderer. Zulip's output escapes text differently
// from attributes and code, so each context gets its own function.

const TEXT_RE = /[<>]|&(?!(?:#\d{1,7}|#[Xx][a-fA-F0-9]{1,6}|[a-zA-Z0-9]+);)/g;
const FULL_RE = /[&<>"']/g;
const ATTR_RE = /[&<>"]/g;

const REPLACEMENTS: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

const replace = (ch: string): string => REPLACEMENTS[ch] ?? ch;

/** Text content: `<`, `>` and bare `&` (existing entities are kept, as Zulip does). */
export function escapeText(text: string): string {
  return text.replace(TEXT_RE, replace);
}

/** Code and raw HTML shown as text: every special character, quotes included. */
export function escapeAll(text: string): string {
  return text.replace(FULL_RE, replace);
}

/** Attribute values (always double-quoted in our output). */
export function escapeAttr(text: string): string {
  return text.replace(ATTR_RE, replace);
}
