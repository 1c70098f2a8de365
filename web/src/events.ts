// The event queue: a long-poll on GET /json/events that applies each event to the store.
// A queue the server no longer has (BAD_EVENT_QUEUE_ID: idle too long, or the server
// restarted) means a new register and a fresh state, keeping the current view.
import { api, ApiError } from './api';
import { store, changed } from './store';
import { register, loadEmojiData, noteTopic } from './register';
import { addLiveMessage, openNarrow, refilterFeed } from './feed';
import { dmKey, dmPeers, typingKey } from './narrow';
import type { Message, Reaction, User } from './types';
import { Role } from './types';

type Event = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let running = 0;

export async function startSession(): Promise<void> {
  const run = ++running;
  const reg = await register();
  store.phase = 'ready';
  changed();
  void loadEmojiData(reg.emojiDataUrl).catch(() => undefined);
  void poll(run, reg.queueId, reg.lastEventId);
}

export function stopSession(): void {
  running++;
}

async function poll(run: number, queueId: string, lastEventId: number): Promise<void> {
  let backoff = 1000;
  while (run === running) {
    try {
      const r = await api<{ events: Event[] }>('GET', '/events', { queue_id: queueId, last_event_id: lastEventId });
      if (run !== running) return;
      backoff = 1000;
      for (const e of r.events) {
        lastEventId = Math.max(lastEventId, e.id as number);
        try {
          applyEvent(e);
        } catch (err) {
          console.error('event not applied', e, err);
        }
      }
      if (r.events.length) changed();
    } catch (err) {
      if (run !== running) return;
      if (err instanceof ApiError && err.code === 'BAD_EVENT_QUEUE_ID') {
        const reg = await register().catch(() => null);
        if (!reg) {
          await sleep(backoff);
          continue;
        }
        queueId = reg.queueId;
        lastEventId = reg.lastEventId;
        if (store.feed) void openNarrow(store.feed.narrow, false);
        continue;
      }
      if (err instanceof ApiError && err.status === 401) return;
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 30_000);
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function setFlag(m: Message, flag: string, on: boolean): Message {
  const has = m.flags.includes(flag);
  if (has === on) return m;
  return { ...m, flags: on ? [...m.flags, flag] : m.flags.filter((f) => f !== flag) };
}

function updateMessage(id: number, fn: (m: Message) => Message): void {
  const m = store.messages.get(id);
  if (m) store.messages.set(id, fn(m));
}

export function applyEvent(e: Event): void {
  switch (e.type) {
    case 'message': {
      const m = { ...(e.message as Message), flags: (e.flags as string[]) ?? [] };
      addLiveMessage(m);
      if (!m.flags.includes('read')) {
        store.unread.set(m.id, m.type === 'stream' ? { channelId: m.stream_id, topic: m.subject } : { dm: dmKey(dmPeers(m, store.me)) });
        if (m.flags.some((f) => f.includes('mentioned'))) store.mentions.add(m.id);
      }
      const conv = m.type === 'stream' ? typingKey('stream', m.stream_id!, m.subject) : typingKey('dm', dmPeers(m, store.me), store.me);
      store.typing.get(conv)?.delete(m.sender_id);
      break;
    }
    case 'update_message': {
      const ids: number[] = e.message_ids ?? [e.message_id];
      if (e.rendered_content !== undefined) {
        updateMessage(e.message_id, (m) => ({ ...m, content: e.rendered_content, last_edit_timestamp: e.edit_timestamp }));
      }
      const newTopic: string | undefined = e.subject ?? e.topic;
      const newChannel: number | undefined = e.new_stream_id;
      if (newTopic !== undefined || newChannel !== undefined) {
        for (const id of ids) {
          updateMessage(id, (m) => ({ ...m, subject: newTopic ?? m.subject, stream_id: newChannel ?? m.stream_id, last_moved_timestamp: e.edit_timestamp }));
          const u = store.unread.get(id);
          if (u && u.channelId !== undefined) store.unread.set(id, { channelId: newChannel ?? u.channelId, topic: newTopic ?? u.topic });
          const m = store.messages.get(id);
          if (m?.stream_id !== undefined) noteTopic(m.stream_id, m.subject, m.id);
        }
        if (e.stream_id !== undefined) store.topicsLoaded.delete(e.stream_id);
        if (newChannel !== undefined) store.topicsLoaded.delete(newChannel);
        refilterFeed();
      }
      break;
    }
    case 'delete_message': {
      const ids: number[] = e.message_ids ?? [e.message_id];
      const gone = new Set(ids);
      for (const id of ids) {
        store.messages.delete(id);
        store.unread.delete(id);
        store.mentions.delete(id);
        store.starred.delete(id);
      }
      if (store.feed) store.feed.ids = store.feed.ids.filter((id) => !gone.has(id));
      if (e.stream_id !== undefined) store.topicsLoaded.delete(e.stream_id);
      break;
    }
    case 'reaction': {
      const r: Reaction = { emoji_name: e.emoji_name, emoji_code: e.emoji_code, reaction_type: e.reaction_type, user_id: e.user_id };
      updateMessage(e.message_id, (m) => {
        const others = m.reactions.filter((x) => !(x.user_id === r.user_id && x.emoji_code === r.emoji_code && x.reaction_type === r.reaction_type));
        return { ...m, reactions: e.op === 'add' ? [...others, r] : others };
      });
      break;
    }
    case 'update_message_flags': {
      const ids: number[] = e.messages ?? [];
      const on = e.op === 'add';
      if (e.flag === 'read') {
        if (on && e.all) store.unread.clear();
        for (const id of ids) {
          if (on) {
            store.unread.delete(id);
            store.mentions.delete(id);
          } else {
            const d = e.message_details?.[String(id)];
            if (d) {
              store.unread.set(id, d.type === 'stream' ? { channelId: d.stream_id, topic: d.topic } : { dm: dmKey((d.user_ids as number[]).length ? d.user_ids : [store.me]) });
              if (d.mentioned) store.mentions.add(id);
            }
          }
          updateMessage(id, (m) => setFlag(m, 'read', on));
        }
      } else {
        for (const id of ids) {
          if (e.flag === 'starred') {
            if (on) store.starred.add(id);
            else store.starred.delete(id);
          }
          updateMessage(id, (m) => setFlag(m, e.flag, on));
        }
      }
      break;
    }
    case 'typing': {
      const conv =
        e.message_type === 'stream'
          ? typingKey('stream', e.stream_id, String(e.topic))
          : typingKey('dm', (e.recipients as { user_id: number }[]).map((r) => r.user_id), store.me);
      let who = store.typing.get(conv);
      if (!who) store.typing.set(conv, (who = new Map()));
      if (e.op === 'start') who.set(e.sender.user_id, Date.now() + 15_000);
      else who.delete(e.sender.user_id);
      break;
    }
    case 'presence': {
      // One user's per-client records (the only form at feature level 406), folded into the
      // pair the register gave: connected at each record's time, active at an active one's.
      store.peopleVersion++;
      const p = { ...(store.presence.get(e.user_id) ?? { active_timestamp: 0, idle_timestamp: 0 }) };
      for (const rec of Object.values(e.presence as Record<string, { status: string; timestamp: number }>)) {
        if (rec.status === 'active') p.active_timestamp = Math.max(p.active_timestamp, rec.timestamp);
        p.idle_timestamp = Math.max(p.idle_timestamp, rec.timestamp);
      }
      store.presence.set(e.user_id, p);
      break;
    }
    case 'subscription':
      store.channelsVersion++;
      if (e.op === 'add') {
        for (const s of e.subscriptions) {
          store.subs.set(s.stream_id, s);
          store.channels.set(s.stream_id, { ...store.channels.get(s.stream_id), ...s });
        }
      } else if (e.op === 'remove') {
        for (const s of e.subscriptions) store.subs.delete(s.stream_id);
      } else if (e.op === 'update') {
        const s = store.subs.get(e.stream_id);
        if (s) store.subs.set(e.stream_id, { ...s, [e.property]: e.value });
      }
      break;
    case 'stream':
      store.channelsVersion++;
      if (e.op === 'create') for (const s of e.streams) store.channels.set(s.stream_id, s);
      else if (e.op === 'delete') {
        const ids: number[] = e.stream_ids ?? e.streams.map((s: { stream_id: number }) => s.stream_id);
        for (const id of ids) {
          store.channels.delete(id);
          store.subs.delete(id);
        }
      } else if (e.op === 'update') {
        const prop = e.property === 'invite_only' ? 'invite_only' : e.property;
        const c = store.channels.get(e.stream_id);
        if (c) store.channels.set(e.stream_id, { ...c, [prop]: e.value });
        const s = store.subs.get(e.stream_id);
        if (s) store.subs.set(e.stream_id, { ...s, [prop]: e.value });
      }
      break;
    case 'realm_user':
      store.peopleVersion++;
      if (e.op === 'add') store.users.set(e.person.user_id, { ...(e.person as User), is_active: e.person.is_active ?? true });
      else if (e.op === 'update') {
        const u = store.users.get(e.person.user_id);
        if (u) store.users.set(u.user_id, { ...u, ...e.person });
        if (e.person.user_id === store.me && e.person.role !== undefined) store.isAdmin = e.person.role <= Role.ADMINISTRATOR;
      } else if (e.op === 'remove') {
        const u = store.users.get(e.person.user_id);
        if (u) store.users.set(u.user_id, { ...u, is_active: false });
      }
      break;
    case 'user_settings':
      if (e.op === 'update') store.settings = { ...store.settings, [e.property]: e.value };
      break;
    case 'realm':
      if (e.op === 'update') store.realm = { ...store.realm, [`realm_${e.property}`]: e.value };
      else if (e.op === 'update_dict') for (const [k, v] of Object.entries(e.data as object)) store.realm = { ...store.realm, [`realm_${k}`]: v };
      break;
    case 'realm_emoji':
      store.realmEmoji = e.realm_emoji;
      break;
    default:
      break;
  }
}

