// The feed: the messages of the current narrow as a list, grouped by conversation under a
// header naming the channel and topic (or the people of a direct message). It loads older
// and newer messages as it scrolls, marks messages read as they come into view, and keeps
// to the bottom while new messages arrive there.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { store, changed, userName } from '../store';
import { loadNewer, loadOlder, openNarrow, sawMessage } from '../feed';
import { dmPeers, dmKey, narrowHash, narrowTypingKey, termOf } from '../narrow';
import { moveTopic } from '../actions';
import type { Message } from '../types';
import { MessageView } from './Message';

const convKey = (m: Message) => (m.type === 'stream' ? `s:${m.stream_id}:${m.subject.toLowerCase()}` : `d:${dmKey(dmPeers(m, store.me))}`);

function MoveTopic({ m }: { m: Message }) {
  const [open, setOpen] = useState(false);
  const [topic, setTopic] = useState(m.subject);
  if (!open) {
    return (
      <button type="button" class="small" aria-label={`Move topic ${m.subject}`} onClick={() => setOpen(true)}>
        Move
      </button>
    );
  }
  return (
    <form
      class="move"
      onSubmit={async (e) => {
        e.preventDefault();
        if (!(await moveTopic(m.id, topic))) return;
        setOpen(false);
        // Viewing the topic that moved: follow it, as Zulip's web app does.
        const narrow = store.feed?.narrow ?? [];
        const shown = termOf(narrow, 'topic');
        if (shown && String(shown.operand).toLowerCase() === m.subject.toLowerCase()) {
          void openNarrow(narrow.map((t) => (t === shown ? { ...t, operand: topic } : t)));
        }
      }}
    >
      <input aria-label="New topic name" value={topic} onInput={(e) => setTopic(e.currentTarget.value)} ref={(el) => el?.focus()} />
      <button type="submit">Move topic</button>
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}

function RecipientHeader({ m }: { m: Message }) {
  if (m.type === 'stream' && m.stream_id !== undefined) {
    const name = store.channels.get(m.stream_id)?.name ?? String(m.display_recipient);
    const channel = [{ operator: 'channel', operand: m.stream_id }];
    const color = store.subs.get(m.stream_id)?.color;
    return (
      <div class="recipient" style={color ? { borderColor: color } : undefined}>
        <a href={narrowHash(channel, () => name)}>#{name}</a>
        <span aria-hidden="true"> › </span>
        <a href={narrowHash([...channel, { operator: 'topic', operand: m.subject }], () => name)}>{m.subject || 'general chat'}</a>
        <MoveTopic m={m} />
      </div>
    );
  }
  const peers = dmPeers(m, store.me);
  return (
    <div class="recipient dm">
      <a href={narrowHash([{ operator: 'dm', operand: peers }])}>{peers[0] === store.me ? 'Note to self' : `You and ${peers.map(userName).join(', ')}`}</a>
    </div>
  );
}

function Typing() {
  const f = store.feed;
  if (!f) return null;
  const now = Date.now();
  const names: string[] = [];
  const key = narrowTypingKey(f.narrow, store.me);
  for (const [id, until] of (key && store.typing.get(key)) || []) if (until > now && id !== store.me) names.push(userName(id));
  return (
    <p class="typing" role="status" aria-live="polite">
      {names.length ? `${names.join(', ')} ${names.length > 1 ? 'are' : 'is'} typing…` : ''}
    </p>
  );
}

export function FeedView() {
  const f = store.feed;
  const scroller = useRef<HTMLDivElement>(null);
  const observer = useRef<IntersectionObserver | null>(null);
  const prev = useRef({ first: 0, height: 0, generation: -1, atBottom: true, count: 0 });

  useEffect(() => () => observer.current?.disconnect(), []);

  // Keep the view still when older messages are put above it, follow new ones at the bottom,
  // and show a new narrow at its anchor.
  useLayoutEffect(() => {
    const root = scroller.current;
    if (!root || !f) return;
    observer.current ??= new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          const visible = e.intersectionRatio >= 0.6 || (e.rootBounds !== null && e.intersectionRect.height >= e.rootBounds.height * 0.5);
          if (e.isIntersecting && visible) sawMessage(Number((e.target as HTMLElement).dataset.id));
        }
      },
      { root, threshold: [0, 0.6, 1] },
    );
    const p = prev.current;
    const first = f.ids[0] ?? 0;
    if (p.generation !== f.generation && f.ids.length) {
      const anchor = f.anchorId !== null ? root.querySelector<HTMLElement>(`[data-id="${f.anchorId}"]`) : null;
      if (anchor) anchor.scrollIntoView({ block: 'center' });
      else root.scrollTop = root.scrollHeight;
      p.generation = f.generation;
    } else if (first !== p.first && p.first !== 0 && f.ids.includes(p.first)) {
      root.scrollTop += root.scrollHeight - p.height;
    } else if (f.ids.length > p.count && p.atBottom) {
      root.scrollTop = root.scrollHeight;
    }
    p.first = first;
    p.height = root.scrollHeight;
    p.count = f.ids.length;
    for (const el of root.querySelectorAll<HTMLElement>('li[data-id]')) observer.current?.observe(el);
  });

  useEffect(() => {
    if (store.selectedId === null) return;
    scroller.current?.querySelector(`[data-id="${store.selectedId}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [store.selectedId]);

  const onScroll = () => {
    const root = scroller.current;
    if (!root || !f) return;
    prev.current.atBottom = root.scrollHeight - root.scrollTop - root.clientHeight < 80;
    prev.current.height = root.scrollHeight;
    if (root.scrollTop < 400) void loadOlder();
    if (root.scrollHeight - root.scrollTop - root.clientHeight < 400) void loadNewer();
  };

  if (!f) return <div class="feed" ref={scroller} />;
  let lastConv = '';
  let lastSender = 0;
  return (
    <div class="feed" ref={scroller} onScroll={onScroll}>
      {f.loadingOlder && <p class="loading">Loading older messages…</p>}
      {f.foundOldest && f.ids.length > 0 && <p class="edge">Beginning of this conversation</p>}
      {f.error && (
        <p class="error" role="alert">
          {f.error}
        </p>
      )}
      <ul class="messages" aria-label="Messages">
        {f.ids.map((id) => {
          const m = store.messages.get(id);
          if (!m) return null;
          const conv = convKey(m);
          const newConv = conv !== lastConv;
          const showSender = newConv || m.sender_id !== lastSender;
          lastConv = conv;
          lastSender = m.sender_id;
          return (
            <li key={id} data-id={id}>
              {newConv && <RecipientHeader m={m} />}
              <MessageView m={m} showSender={showSender} selected={store.selectedId === id} editing={store.editingId === id} />
            </li>
          );
        })}
      </ul>
      {!f.loadingOlder && !f.loadingNewer && f.ids.length === 0 && !f.error && <p class="empty">No messages here yet.</p>}
      {f.loadingNewer && f.ids.length > 0 && <p class="loading">Loading newer messages…</p>}
      <Typing />
    </div>
  );
}

export function selectRelative(step: number): void {
  const f = store.feed;
  if (!f || f.ids.length === 0) return;
  const i = store.selectedId === null ? f.ids.length - 1 : f.ids.indexOf(store.selectedId);
  const next = f.ids[Math.max(0, Math.min(f.ids.length - 1, (i < 0 ? f.ids.length - 1 : i) + step))]!;
  store.selectedId = next;
  changed();
}
