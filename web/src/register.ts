// POST /register: the initial state, turned into the store's maps.
import { api } from './api';
import { store, changed } from './store';
import { dmKey } from './narrow';
import type { Channel, Message, Presence, RealmEmoji, Subscription, User } from './types';
import { Role } from './types';

export interface Registered {
  queueId: string;
  lastEventId: number;
  emojiDataUrl?: string;
}

/** What the client asks of the server; everything the views need, nothing else. */
export const CLIENT_CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: true,
  stream_typing_notifications: true,
  user_settings_object: true,
  linkifier_url_template: true,
  empty_topic_name: true,
  archived_channels: false,
};

interface RegisterResponse {
  queue_id: string;
  last_event_id: number;
  user_id: number;
  realm_users: User[];
  realm_non_active_users?: User[];
  streams: Channel[];
  subscriptions: Subscription[];
  unread_msgs: {
    streams: { stream_id: number; topic: string; unread_message_ids: number[] }[];
    pms: { other_user_id: number; unread_message_ids: number[] }[];
    huddles: { user_ids_string: string; unread_message_ids: number[] }[];
    mentions: number[];
  };
  starred_messages: number[];
  recent_private_conversations: { max_message_id: number; user_ids: number[] }[];
  presences: Record<string, Presence>;
  user_settings: Record<string, unknown>;
  realm_emoji: Record<string, RealmEmoji>;
  server_emoji_data_url?: string;
  [key: string]: unknown;
}

export async function register(): Promise<Registered> {
  const r = await api<RegisterResponse>('POST', '/register', {
    apply_markdown: true,
    client_gravatar: true,
    slim_presence: true,
    include_subscribers: false,
    client_capabilities: CLIENT_CAPABILITIES,
  });
  applyRegister(r);
  return { queueId: r.queue_id, lastEventId: r.last_event_id, emojiDataUrl: r.server_emoji_data_url };
}

function applyRegister(r: RegisterResponse): void {
  store.me = r.user_id;
  store.realm = r;
  store.users = new Map();
  // Register's lists say who is active by which list a user is in.
  for (const u of r.realm_users) store.users.set(u.user_id, { ...u, is_active: true });
  for (const u of r.realm_non_active_users ?? []) store.users.set(u.user_id, { ...u, is_active: false });
  const mine = store.users.get(r.user_id);
  store.isAdmin = !!mine && mine.role <= Role.ADMINISTRATOR;
  store.channels = new Map(r.streams.map((s) => [s.stream_id, s]));
  store.subs = new Map(r.subscriptions.map((s) => [s.stream_id, s]));
  for (const s of r.subscriptions) if (!store.channels.has(s.stream_id)) store.channels.set(s.stream_id, s);
  store.unread = new Map();
  store.topics = new Map();
  store.topicsLoaded = new Set();
  for (const s of r.unread_msgs.streams) {
    for (const id of s.unread_message_ids) store.unread.set(id, { channelId: s.stream_id, topic: s.topic });
    noteTopic(s.stream_id, s.topic, Math.max(...s.unread_message_ids));
  }
  for (const p of r.unread_msgs.pms) for (const id of p.unread_message_ids) store.unread.set(id, { dm: dmKey([p.other_user_id]) });
  for (const h of r.unread_msgs.huddles) {
    const key = dmKey(h.user_ids_string.split(',').map(Number).filter((id) => id !== r.user_id));
    for (const id of h.unread_message_ids) store.unread.set(id, { dm: key });
  }
  store.mentions = new Set(r.unread_msgs.mentions);
  store.starred = new Set(r.starred_messages);
  store.recentDms = new Map();
  for (const c of r.recent_private_conversations) {
    const ids = c.user_ids.length ? c.user_ids : [r.user_id];
    store.recentDms.set(dmKey(ids), { userIds: ids, maxId: c.max_message_id });
  }
  store.presence = new Map(Object.entries(r.presences ?? {}).map(([id, p]) => [Number(id), p]));
  store.peopleVersion++;
  store.channelsVersion++;
  store.settings = r.user_settings ?? {};
  store.realmEmoji = r.realm_emoji ?? {};
  store.messages = new Map();
  changed();
}

/** Remembers a topic of a channel with the newest message id seen in it. */
export function noteTopic(channelId: number, topic: string, messageId: number): void {
  let topics = store.topics.get(channelId);
  if (!topics) store.topics.set(channelId, (topics = new Map()));
  const key = topic.toLowerCase();
  const known = topics.get(key);
  if (!known || known.maxId < messageId) topics.set(key, { name: topic, maxId: messageId });
}

export function noteDm(m: Message, peers: number[]): void {
  const key = dmKey(peers);
  const known = store.recentDms.get(key);
  if (!known || known.maxId < m.id) store.recentDms.set(key, { userIds: peers, maxId: m.id });
}

/** The server's emoji names (server_emoji_data_url), for autocomplete and reactions. */
export async function loadEmojiData(url: string | undefined): Promise<void> {
  if (!url) return;
  const res = await fetch(new URL(url, location.href).pathname);
  if (!res.ok) return;
  const data = (await res.json()) as { code_to_names: Record<string, string[]> };
  const names = new Map<string, string>();
  const canonical = new Map<string, string>();
  for (const [code, list] of Object.entries(data.code_to_names)) {
    canonical.set(code, list[0]!);
    for (const name of list) names.set(name, code);
  }
  store.emojiNames = names;
  store.emojiCodeNames = canonical;
  changed();
}
