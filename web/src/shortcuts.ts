// Keyboard shortcuts for the common actions, as Zulip's web app has them (see ui/Help.tsx).
import { store, changed } from './store';
import { openNarrow } from './feed';
import { selectRelative } from './ui/Feed';
import { composeControl } from './ui/Compose';
import { searchControl } from './ui/SearchBar';
import { markUnread, toggleReaction, toggleStar } from './actions';
import { narrowHash } from './narrow';

function typingInField(e: KeyboardEvent): boolean {
  const t = e.target as HTMLElement | null;
  if (!t) return false;
  return t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName);
}

function nextUnreadTopic(): void {
  const shown = new Set(store.feed?.ids ?? []);
  let best: { channelId: number; topic: string; id: number } | null = null;
  for (const [id, u] of store.unread) {
    if (u.channelId === undefined || shown.has(id) || store.subs.get(u.channelId)?.is_muted) continue;
    if (!best || id < best.id) best = { channelId: u.channelId, topic: u.topic ?? '', id };
  }
  if (!best) return;
  const narrow = [
    { operator: 'channel', operand: best.channelId },
    { operator: 'topic', operand: best.topic },
  ];
  location.hash = narrowHash(narrow, (id) => store.channels.get(id)?.name);
}

export function installShortcuts(): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (typingInField(e)) return;
    const selected = store.selectedId !== null ? store.messages.get(store.selectedId) : undefined;
    let handled = true;
    switch (e.key) {
      case '/':
        searchControl.focus();
        break;
      case 'c':
        composeControl.open('channel', false);
        break;
      case 'x':
        composeControl.open('dm', false);
        break;
      case 'r':
      case 'Enter':
        if (selected) composeControl.open(selected.type === 'stream' ? 'channel' : 'dm', true);
        break;
      case 'j':
      case 'ArrowDown':
        selectRelative(1);
        break;
      case 'k':
      case 'ArrowUp':
        selectRelative(-1);
        break;
      case 'End':
        selectRelative(Number.MAX_SAFE_INTEGER);
        break;
      case 'Home':
        selectRelative(-Number.MAX_SAFE_INTEGER);
        break;
      case 'n':
        nextUnreadTopic();
        break;
      case 'e':
        if (selected && selected.sender_id === store.me) {
          store.editingId = selected.id;
          changed();
        }
        break;
      case 's':
      case '*':
        if (selected) void toggleStar(selected);
        break;
      case '+':
        if (selected) void toggleReaction(selected, { name: '+1', code: store.emojiNames.get('+1') ?? '1f44d', reactionType: 'unicode_emoji' });
        break;
      case ':':
        if (selected) document.querySelector<HTMLButtonElement>(`li[data-id="${selected.id}"] button[aria-label="Add reaction"]`)?.click();
        break;
      case 'u':
        if (selected) void markUnread(selected.id);
        break;
      case '?':
        store.overlay = 'help';
        changed();
        break;
      case 'Escape':
        if (store.overlay) store.overlay = null;
        else if (store.leftOpen || store.rightOpen) store.leftOpen = store.rightOpen = false;
        else if (store.feed?.narrow.length) void openNarrow([]);
        changed();
        break;
      default:
        handled = false;
    }
    if (handled) e.preventDefault();
  };
  document.addEventListener('keydown', onKey);
  return () => document.removeEventListener('keydown', onKey);
}
