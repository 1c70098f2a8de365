// Scheduled messages, reminders, drafts, saved snippets and navigation views as the API shows
// them to their owner.
import { otherParticipants, type Draft, type NavigationView, type SavedSnippet, type ScheduledMessage } from '../model/later.js';

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Zulip's ScheduledMessage.to_dict: a channel message names its channel and topic, a direct one its other participants. */
export function formatScheduledMessage(m: ScheduledMessage): Record<string, unknown> {
  const common = {
    scheduled_message_id: m.id,
    content: m.content,
    rendered_content: m.renderedContent,
    scheduled_delivery_timestamp: seconds(m.scheduledAt),
    failed: m.failed,
  };
  if (m.streamId !== null) return { ...common, type: 'stream', to: m.streamId, topic: m.topic };
  return { ...common, type: 'private', to: otherParticipants(m.dmUserIds ?? [], m.senderId) };
}

/** Zulip's ScheduledMessage.to_reminder_dict: always a direct message to the user themself. */
export function formatReminder(m: ScheduledMessage): Record<string, unknown> {
  return {
    reminder_id: m.id,
    type: 'private',
    to: [m.senderId],
    content: m.content,
    rendered_content: m.renderedContent,
    scheduled_delivery_timestamp: seconds(m.scheduledAt),
    failed: m.failed,
    reminder_target_message_id: m.reminderTargetMessageId,
  };
}

/** Zulip's Draft.to_dict. */
export function formatDraft(d: Draft): Record<string, unknown> {
  const base = { id: d.id, topic: d.topic, content: d.content, timestamp: seconds(d.lastEditTime) };
  if (d.streamId !== null) return { ...base, type: 'stream', to: [d.streamId] };
  if (d.dmUserIds !== null) return { ...base, type: 'private', to: otherParticipants(d.dmUserIds, d.userId) };
  return { ...base, type: '', to: [] };
}

export function formatSavedSnippet(s: SavedSnippet): Record<string, unknown> {
  return { id: s.id, title: s.title, content: s.content, date_created: seconds(s.dateCreated) };
}

export function formatNavigationView(v: NavigationView): Record<string, unknown> {
  return { fragment: v.fragment, is_pinned: v.isPinned, name: v.name };
}
