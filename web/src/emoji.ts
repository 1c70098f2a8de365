// Emoji for display: the server's names (server_emoji_data_url) and code points, and the
// organization's own emoji. Rendered messages name emoji by code in their class
// (`emoji emoji-1f642`); the glyph shown is the code point's character.
import { store } from './store';

export function emojiChar(code: string): string {
  try {
    return String.fromCodePoint(...code.split('-').map((h) => Number.parseInt(h, 16)));
  } catch {
    return '';
  }
}

export interface EmojiChoice {
  name: string;
  reactionType: 'unicode_emoji' | 'realm_emoji';
  code: string;
  url?: string;
}

/** Emoji whose names start with (then contain) the query; the organization's first. */
export function searchEmoji(query: string, limit = 8): EmojiChoice[] {
  const q = query.toLowerCase();
  const out: EmojiChoice[] = [];
  const later: EmojiChoice[] = [];
  for (const e of Object.values(store.realmEmoji)) {
    if (e.deactivated) continue;
    const c: EmojiChoice = { name: e.name, reactionType: 'realm_emoji', code: e.id, url: e.source_url };
    if (e.name.startsWith(q)) out.push(c);
    else if (e.name.includes(q)) later.push(c);
  }
  for (const [name, code] of store.emojiNames) {
    if (out.length >= limit) break;
    const c: EmojiChoice = { name, reactionType: 'unicode_emoji', code };
    if (name.startsWith(q)) out.push(c);
    else if (later.length < limit && name.includes(q)) later.push(c);
  }
  return [...out, ...later].slice(0, limit);
}

/** Shows emoji glyphs in server-rendered content: only text changes, never markup. */
export function showEmojiGlyphs(root: HTMLElement): void {
  for (const el of root.querySelectorAll<HTMLElement>('span.emoji')) {
    const cls = [...el.classList].find((c) => c.startsWith('emoji-'));
    if (!cls || el.dataset.glyph) continue;
    const glyph = emojiChar(cls.slice('emoji-'.length));
    if (glyph) {
      el.textContent = glyph;
      el.dataset.glyph = '1';
    }
  }
}
