// The message feed of the current narrow: fetched around an anchor, extended both ways as
// the view scrolls, and kept current by events. Messages read in view are marked read.
import { api, errorText } from './api';
import { store, changed, notify, type Feed } from './store';
import { apiNarrow, dmPeers, matches, narrowHash, termOf, type Narrow } from './narrow';
import { noteDm, noteTopic } from './register';
import type { Message } from './types';

const BATCH = 50;
let generation = 0;

interface FetchResult {
  messages: Message[];
  found_oldest: boolean;
  found_newest: boolean;
  anchor: number;
}

export function remember(m: Message): void {
  store.messages.set(m.id, m);
  if (m.type === 'stream' && m.stream_id !== undefined) noteTopic(m.stream_id, m.subject, m.id);
  else noteDm(m, dmPeers(m, store.me));
}

function fetchMessages(narrow: Narrow, anchor: number | string, before: number, after: number, includeAnchor = true): Promise<FetchResult> {
  return api<FetchResult>('GET', '/messages', {
    anchor: String(anchor),
    num_before: before,
    num_after: after,
    include_anchor: includeAnchor,
    narrow: apiNarrow(narrow),
    apply_markdown: true,
    client_gravatar: true,
  });
}

/** A conversation opens at its first unread message; other views at the newest. */
function initialAnchor(narrow: Narrow): string | number {
  const near = termOf(narrow, 'near') ?? termOf(narrow, 'id');
  if (near) return Number(near.operand);
  if (termOf(narrow, 'channel') || termOf(narrow, 'dm')) return 'first_unread';
  return 'newest';
}

export async function openNarrow(narrow: Narrow, pushHash = true): Promise<void> {
  const gen = ++generation;
  store.feed = { narrow, ids: [], foundOldest: false, foundNewest: false, loadingOlder: true, loadingNewer: true, anchorId: null, error: null, generation: gen, pending: [] };
  store.selectedId = null;
  store.leftOpen = false;
  if (pushHash) {
    const hash = narrowHash(narrow, (id) => store.channels.get(id)?.name);
    if (location.hash !== hash && !(hash === '#' && location.hash === '')) history.pushState(null, '', hash === '#' ? location.pathname : hash);
  }
  changed();
  try {
    const r = await fetchMessages(narrow, initialAnchor(narrow), BATCH, BATCH);
    if (gen !== generation) return;
    for (const m of r.messages) remember(m);
    const f = store.feed!;
    f.ids = r.messages.map((m) => m.id);
    f.foundOldest = r.found_oldest;
    f.foundNewest = r.found_newest;
    f.loadingOlder = f.loadingNewer = false;
    takePending(f);
    const firstUnread = r.messages.find((m) => !m.flags.includes('read'));
    f.anchorId = firstUnread?.id ?? r.messages[r.messages.length - 1]?.id ?? null;
    store.selectedId = f.anchorId;
  } catch (err) {
    if (gen !== generation) return;
    store.feed!.error = errorText(err);
    store.feed!.loadingOlder = store.feed!.loadingNewer = false;
  }
  changed();
}

export async function loadOlder(): Promise<void> {
  const f = store.feed;
  if (!f || f.foundOldest || f.loadingOlder || f.ids.length === 0) return;
  f.loadingOlder = true;
  const gen = f.generation;
  try {
    const r = await fetchMessages(f.narrow, f.ids[0]!, BATCH, 0, false);
    if (store.feed?.generation !== gen) return;
    for (const m of r.messages) remember(m);
    const known = new Set(f.ids);
    f.ids = [...r.messages.map((m) => m.id).filter((id) => !known.has(id)), ...f.ids];
    f.foundOldest = r.found_oldest;
  } catch (err) {
    notify(errorText(err));
  } finally {
    f.loadingOlder = false;
    changed();
  }
}

export async function loadNewer(): Promise<void> {
  const f = store.feed;
  if (!f || f.foundNewest || f.loadingNewer || f.ids.length === 0) return;
  f.loadingNewer = true;
  const gen = f.generation;
  try {
    const r = await fetchMessages(f.narrow, f.ids[f.ids.length - 1]!, 0, BATCH, false);
    if (store.feed?.generation !== gen) return;
    for (const m of r.messages) remember(m);
    const known = new Set(f.ids);
    f.ids = [...f.ids, ...r.messages.map((m) => m.id).filter((id) => !known.has(id))];
    f.foundNewest = r.found_newest;
    takePending(f);
  } catch (err) {
    notify(errorText(err));
  } finally {
    f.loadingNewer = false;
    changed();
  }
}

/** Live messages that came during a fetch of the newest ones: the fetch may have missed them. */
function takePending(f: Feed): void {
  if (f.foundNewest) {
    const known = new Set(f.ids);
    const last = f.ids[f.ids.length - 1] ?? 0;
    for (const id of f.pending.sort((a, b) => a - b)) if (!known.has(id) && id > last && store.messages.has(id)) f.ids.push(id);
  }
  f.pending = [];
}

/** A message event: shown at once when it belongs to the view and the view is at the end. */
export function addLiveMessage(m: Message): void {
  remember(m);
  const f = store.feed;
  if (!f || matches(f.narrow, m, store.me) !== true) return;
  if (f.loadingNewer) {
    f.pending.push(m.id);
    return;
  }
  if (!f.foundNewest) return;
  if (!f.ids.includes(m.id)) f.ids.push(m.id);
  if (m.sender_id === store.me) store.selectedId = m.id;
}

/** After edits that move messages: drop the ones that left the view. */
export function refilterFeed(): void {
  const f = store.feed;
  if (!f) return;
  f.ids = f.ids.filter((id) => {
    const m = store.messages.get(id);
    return m !== undefined && matches(f.narrow, m, store.me) !== false;
  });
}

// Read marking: ids seen in view are collected and sent together.
const toMark = new Set<number>();
let markTimer: ReturnType<typeof setTimeout> | undefined;

export function sawMessage(id: number): void {
  if (!store.unread.has(id) || toMark.has(id)) return;
  if (document.visibilityState !== 'visible') return;
  toMark.add(id);
  clearTimeout(markTimer);
  markTimer = setTimeout(flushRead, 300);
}

async function flushRead(): Promise<void> {
  const ids = [...toMark];
  toMark.clear();
  if (ids.length === 0) return;
  try {
    await api('POST', '/messages/flags', { messages: ids, op: 'add', flag: 'read' });
  } catch (err) {
    notify(errorText(err));
  }
}
