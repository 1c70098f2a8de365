// What a person does to messages: react, star, edit, delete, move a topic, mark as read.
import { api, errorText } from './api';
import { store, notify } from './store';
import type { Message } from './types';
import type { EmojiChoice } from './emoji';

async function attempt(work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (err) {
    notify(errorText(err));
    return false;
  }
}

export function toggleReaction(m: Message, e: Pick<EmojiChoice, 'name' | 'code' | 'reactionType'>): Promise<boolean> {
  const mine = m.reactions.some((r) => r.user_id === store.me && r.emoji_code === e.code && r.reaction_type === e.reactionType);
  return attempt(() =>
    api(mine ? 'DELETE' : 'POST', `/messages/${m.id}/reactions`, { emoji_name: e.name, emoji_code: e.code, reaction_type: e.reactionType }),
  );
}

export function toggleStar(m: Message): Promise<boolean> {
  const on = !m.flags.includes('starred');
  return attempt(() => api('POST', '/messages/flags', { messages: [m.id], op: on ? 'add' : 'remove', flag: 'starred' }));
}

export async function rawContent(id: number): Promise<string | null> {
  try {
    const r = await api<{ message: Message }>('GET', `/messages/${id}`, { apply_markdown: false });
    return r.message.content;
  } catch (err) {
    notify(errorText(err));
    return null;
  }
}

export const saveEdit = (id: number, content: string) => attempt(() => api('PATCH', `/messages/${id}`, { content }));

export const deleteMessage = (id: number) => attempt(() => api('DELETE', `/messages/${id}`));

/** Moves a whole topic (Zulip's change_all) to a new name, where the organization allows it. */
export const moveTopic = (id: number, topic: string) =>
  attempt(() => api('PATCH', `/messages/${id}`, { topic, propagate_mode: 'change_all', send_notification_to_old_thread: false, send_notification_to_new_thread: true }));

export const markUnread = (id: number) => attempt(() => api('POST', '/messages/flags', { messages: [id], op: 'remove', flag: 'read' }));
