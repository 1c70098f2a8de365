// The client's state: what the register response gave, kept current by events, plus the
// view (narrow, feed, overlays). Components read it directly and re-render when `changed()`
// is called; one render per frame however many changes arrive.
import type { Channel, Message, Presence, RealmEmoji, Subscription, User } from './types';
import type { Narrow } from './narrow';

export interface Feed {
  narrow: Narrow;
  ids: number[];
  foundOldest: boolean;
  foundNewest: boolean;
  loadingOlder: boolean;
  loadingNewer: boolean;
  /** Where to scroll once the first batch is shown. */
  anchorId: number | null;
  error: string | null;
  /** Bumped on each new narrow so the view resets its scroll. */
  generation: number;
  /** Live messages of this view that arrived while its newest messages were being fetched. */
  pending: number[];
}

export interface UnreadInfo {
  channelId?: number;
  topic?: string;
  dm?: string;
}

export type Overlay = null | 'settings' | 'admin' | 'help' | 'drafts';

export const store = {
  phase: 'loading' as 'loading' | 'login' | 'join' | 'ready',
  /** The key of the invitation link the page was opened at (`/join/<key>/`). */
  joinKey: null as string | null,
  fatal: null as string | null,
  me: 0,
  isAdmin: false,
  realm: {} as Record<string, unknown>,
  users: new Map<number, User>(),
  channels: new Map<number, Channel>(),
  subs: new Map<number, Subscription>(),
  /** Per channel: topic name (lower case) → shown name and newest message id. */
  topics: new Map<number, Map<string, { name: string; maxId: number }>>(),
  topicsLoaded: new Set<number>(),
  unread: new Map<number, UnreadInfo>(),
  mentions: new Set<number>(),
  starred: new Set<number>(),
  recentDms: new Map<string, { userIds: number[]; maxId: number }>(),
  presence: new Map<number, Presence>(),
  /** Bumped when users or presence change: the user list is recomputed only then. */
  peopleVersion: 0,
  /** Bumped when channels or subscriptions change: channel lists are sorted only then. */
  channelsVersion: 0,
  settings: {} as Record<string, unknown>,
  realmEmoji: {} as Record<string, RealmEmoji>,
  /** Conversation key → user id → when their typing notice expires (ms). */
  typing: new Map<string, Map<number, number>>(),
  messages: new Map<number, Message>(),
  feed: null as Feed | null,
  selectedId: null as number | null,
  overlay: null as Overlay,
  leftOpen: false,
  rightOpen: false,
  /** Emoji name → code (server_emoji_data_url), loaded after register. */
  emojiNames: new Map<string, string>(),
  emojiCodeNames: new Map<string, string>(),
  notice: null as string | null,
  /** Set by compose (reply, edit target) from anywhere. */
  composeRequest: 0,
  editingId: null as number | null,
};

export type Store = typeof store;

const listeners = new Set<() => void>();
let scheduled = false;
let changes = 0;

/** Counts changes, so that a view can tell it missed one. */
export const version = () => changes;

export function subscribe(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Something changed: render once before the next frame. */
export function changed(): void {
  changes++;
  if (scheduled) return;
  scheduled = true;
  const run = () => {
    scheduled = false;
    for (const fn of listeners) fn();
  };
  if (typeof requestAnimationFrame === 'function' && document.visibilityState === 'visible') requestAnimationFrame(run);
  else setTimeout(run, 0);
}

/** Name order for lists (much faster than localeCompare on thousands of names). */
export const byName = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true }).compare;

export const me = () => store.users.get(store.me);
export const userName = (id: number) => store.users.get(id)?.full_name ?? `user ${id}`;
export const channelName = (id: number) => store.channels.get(id)?.name;

let noticeTimer: ReturnType<typeof setTimeout> | undefined;
/** A short message at the bottom of the screen (errors of actions). */
export function notify(text: string): void {
  store.notice = text;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => {
    store.notice = null;
    changed();
  }, 6000);
  changed();
}
