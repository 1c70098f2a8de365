// The left sidebar, a navigation landmark: views (all messages, mentions, starred, direct
// messages, drafts), the channels with their unread counts and the current channel's topics,
// and the direct message conversations. Every channel and topic is a link named by its name.
import { useEffect, useMemo } from 'preact/hooks';
import { memo } from 'preact/compat';
import { api } from '../api';
import { store, changed, userName, byName } from '../store';
import { narrowHash, termOf } from '../narrow';
import type { Subscription } from '../types';

interface Counts {
  channel: Map<number, number>;
  topic: Map<string, number>;
  dm: Map<string, number>;
  dmTotal: number;
}

function countUnread(): Counts {
  const c: Counts = { channel: new Map(), topic: new Map(), dm: new Map(), dmTotal: 0 };
  for (const u of store.unread.values()) {
    if (u.channelId !== undefined) {
      if (store.subs.get(u.channelId)?.is_muted) continue;
      c.channel.set(u.channelId, (c.channel.get(u.channelId) ?? 0) + 1);
      const key = `${u.channelId}:${(u.topic ?? '').toLowerCase()}`;
      c.topic.set(key, (c.topic.get(key) ?? 0) + 1);
    } else if (u.dm !== undefined) {
      c.dm.set(u.dm, (c.dm.get(u.dm) ?? 0) + 1);
      c.dmTotal++;
    }
  }
  return c;
}

function Count({ n }: { n: number | undefined }) {
  if (!n) return null;
  return (
    <span class="count">
      {n}
      <span class="sr-only"> unread</span>
    </span>
  );
}

const byPinThenName = (a: Subscription, b: Subscription) => Number(b.pin_to_top) - Number(a.pin_to_top) || byName(a.name, b.name);

async function loadTopics(channelId: number): Promise<void> {
  store.topicsLoaded.add(channelId);
  try {
    const r = await api<{ topics: { name: string; max_id: number }[] }>('GET', `/users/me/${channelId}/topics`);
    const map = new Map<string, { name: string; maxId: number }>();
    for (const t of r.topics) map.set(t.name.toLowerCase(), { name: t.name, maxId: t.max_id });
    for (const [k, v] of store.topics.get(channelId) ?? []) if (!map.has(k) || map.get(k)!.maxId < v.maxId) map.set(k, v);
    store.topics.set(channelId, map);
    changed();
  } catch {
    store.topicsLoaded.delete(channelId);
  }
}

const hashOf = (narrow: Parameters<typeof narrowHash>[0]) => narrowHash(narrow, (id) => store.channels.get(id)?.name);

const channelHashes = new Map<string, string>();
/** A channel's address, made once per name (a thousand channels re-render often). */
function channelHash(id: number, name: string): string {
  const key = `${id}:${name}`;
  let hash = channelHashes.get(key);
  if (hash === undefined) channelHashes.set(key, (hash = narrowHash([{ operator: 'channel', operand: id }], () => name)));
  return hash;
}

interface ChannelProps {
  sub: Subscription;
  count: number | undefined;
  current: boolean;
}

/** One channel of the list; re-rendered only when its subscription, count or state changes. */
const ChannelItem = memo(function ChannelItem({ sub, count, current }: ChannelProps) {
  const hash = channelHash(sub.stream_id, sub.name);
  return (
    <>
      <span class="swatch" style={{ background: sub.color }} aria-hidden="true" />
      <a href={hash} aria-current={current ? 'page' : undefined}>
        {sub.name}
      </a>
      <Count n={count} />
    </>
  );
});

export function Sidebar() {
  const counts = countUnread();
  const narrow = store.feed?.narrow ?? [];
  const current = termOf(narrow, 'channel');
  const currentId = typeof current?.operand === 'number' ? current.operand : undefined;
  const currentTopic = termOf(narrow, 'topic')?.operand;
  const currentHash = location.hash || '#';
  useEffect(() => {
    if (currentId !== undefined && !store.topicsLoaded.has(currentId)) void loadTopics(currentId);
  }, [currentId, store.topicsLoaded.has(currentId ?? -1)]);

  const subs = useMemo(() => [...store.subs.values()].filter((s) => !s.is_archived).sort(byPinThenName), [store.channelsVersion]);
  const topics = currentId === undefined ? [] : [...(store.topics.get(currentId)?.values() ?? [])].sort((a, b) => b.maxId - a.maxId).slice(0, 30);
  const dms = [...store.recentDms.entries()].sort((a, b) => b[1].maxId - a[1].maxId).slice(0, 20);
  const link = (hash: string, label: string, extra = '') => (
    <a href={hash} class={extra} aria-current={hash === currentHash ? 'page' : undefined}>
      {label}
    </a>
  );

  return (
    <nav class="left" aria-label="Channels and conversations">
      <ul class="views">
        <li>{link('#', 'All messages')}<Count n={store.unread.size} /></li>
        <li>{link('#narrow/is/mentioned', 'Mentions')}<Count n={store.mentions.size} /></li>
        <li>{link('#narrow/is/starred', 'Starred messages')}</li>
        <li>{link('#narrow/is/dm', 'Direct messages')}<Count n={counts.dmTotal} /></li>
        <li>
          <button type="button" class="linkish" onClick={() => ((store.overlay = 'drafts'), changed())}>
            Drafts
          </button>
        </li>
      </ul>
      <h2>Channels</h2>
      <ul class="channels">
        {subs.map((s) => (
          <li key={s.stream_id} class={s.is_muted ? 'muted' : ''}>
            <ChannelItem sub={s} count={counts.channel.get(s.stream_id)} current={channelHash(s.stream_id, s.name) === currentHash} />
            {s.stream_id === currentId && topics.length > 0 && (
              <ul class="topics">
                {topics.map((t) => (
                  <li key={t.name} class={String(currentTopic ?? '').toLowerCase() === t.name.toLowerCase() ? 'active' : ''}>
                    {link(hashOf([{ operator: 'channel', operand: s.stream_id }, { operator: 'topic', operand: t.name }]), t.name || 'general chat')}
                    <Count n={counts.topic.get(`${s.stream_id}:${t.name.toLowerCase()}`)} />
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
        {subs.length === 0 && <li class="empty">You are not subscribed to any channel.</li>}
      </ul>
      <h2>Direct messages</h2>
      <ul class="dms">
        {dms.map(([key, c]) => (
          <li key={key}>
            {link(hashOf([{ operator: 'dm', operand: c.userIds }]), c.userIds.map(userName).join(', '))}
            <Count n={counts.dm.get(key)} />
          </li>
        ))}
        {dms.length === 0 && <li class="empty">No direct messages yet.</li>}
      </ul>
    </nav>
  );
}
