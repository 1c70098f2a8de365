// Events about what a user keeps for later: scheduled messages, reminders, drafts, saved
// snippets and navigation views. Each goes to its owner only.
import { z } from 'zod';
import { apiObject, ids, int, type ApiObject } from './objects.js';

const scheduledMessageObject = z.union([
  apiObject({
    scheduled_message_id: int(),
    type: z.literal('stream'),
    to: int(),
    topic: z.string(),
    content: z.string(),
    rendered_content: z.string(),
    scheduled_delivery_timestamp: int(),
    failed: z.boolean(),
  }),
  apiObject({
    scheduled_message_id: int(),
    type: z.literal('private'),
    to: ids(),
    content: z.string(),
    rendered_content: z.string(),
    scheduled_delivery_timestamp: int(),
    failed: z.boolean(),
  }),
]);

const reminderObject = apiObject({
  reminder_id: int(),
  type: z.literal('private'),
  to: ids(),
  content: z.string(),
  rendered_content: z.string(),
  scheduled_delivery_timestamp: int(),
  failed: z.boolean(),
  reminder_target_message_id: int(),
});

const draftObject = apiObject({
  id: int(),
  type: z.enum(['', 'stream', 'private']),
  to: ids(),
  topic: z.string(),
  content: z.string(),
  timestamp: int(),
});

const savedSnippetObject = apiObject({ id: int(), title: z.string(), content: z.string(), date_created: int() });

const navigationViewObject = apiObject({ fragment: z.string(), is_pinned: z.boolean(), name: z.string().nullable() });

export const scheduledMessagesEventSchema = z.union([
  z.strictObject({ type: z.literal('scheduled_messages'), op: z.literal('add'), scheduled_messages: z.array(scheduledMessageObject) }),
  z.strictObject({ type: z.literal('scheduled_messages'), op: z.literal('update'), scheduled_message: scheduledMessageObject }),
  z.strictObject({ type: z.literal('scheduled_messages'), op: z.literal('remove'), scheduled_message_id: int() }),
]);
export type ScheduledMessagesEvent = z.infer<typeof scheduledMessagesEventSchema>;

export const scheduledMessagesAddEvent = (messages: ApiObject[]): ScheduledMessagesEvent => ({ type: 'scheduled_messages', op: 'add', scheduled_messages: messages });

export const scheduledMessagesUpdateEvent = (message: ApiObject): ScheduledMessagesEvent => ({ type: 'scheduled_messages', op: 'update', scheduled_message: message });

export const scheduledMessagesRemoveEvent = (id: number): ScheduledMessagesEvent => ({ type: 'scheduled_messages', op: 'remove', scheduled_message_id: id });

export const remindersEventSchema = z.union([
  z.strictObject({ type: z.literal('reminders'), op: z.literal('add'), reminders: z.array(reminderObject) }),
  z.strictObject({ type: z.literal('reminders'), op: z.literal('remove'), reminder_id: int() }),
]);
export type RemindersEvent = z.infer<typeof remindersEventSchema>;

export const remindersAddEvent = (reminders: ApiObject[]): RemindersEvent => ({ type: 'reminders', op: 'add', reminders });

export const remindersRemoveEvent = (id: number): RemindersEvent => ({ type: 'reminders', op: 'remove', reminder_id: id });

export const draftsEventSchema = z.union([
  z.strictObject({ type: z.literal('drafts'), op: z.literal('add'), drafts: z.array(draftObject) }),
  z.strictObject({ type: z.literal('drafts'), op: z.literal('update'), draft: draftObject }),
  z.strictObject({ type: z.literal('drafts'), op: z.literal('remove'), draft_id: int() }),
]);
export type DraftsEvent = z.infer<typeof draftsEventSchema>;

export const draftsAddEvent = (drafts: ApiObject[]): DraftsEvent => ({ type: 'drafts', op: 'add', drafts });

export const draftsUpdateEvent = (draft: ApiObject): DraftsEvent => ({ type: 'drafts', op: 'update', draft });

export const draftsRemoveEvent = (id: number): DraftsEvent => ({ type: 'drafts', op: 'remove', draft_id: id });

export const savedSnippetsEventSchema = z.union([
  z.strictObject({ type: z.literal('saved_snippets'), op: z.enum(['add', 'update']), saved_snippet: savedSnippetObject }),
  z.strictObject({ type: z.literal('saved_snippets'), op: z.literal('remove'), saved_snippet_id: int() }),
]);
export type SavedSnippetsEvent = z.infer<typeof savedSnippetsEventSchema>;

export const savedSnippetsAddEvent = (snippet: ApiObject): SavedSnippetsEvent => ({ type: 'saved_snippets', op: 'add', saved_snippet: snippet });

export const savedSnippetsUpdateEvent = (snippet: ApiObject): SavedSnippetsEvent => ({ type: 'saved_snippets', op: 'update', saved_snippet: snippet });

export const savedSnippetsRemoveEvent = (id: number): SavedSnippetsEvent => ({ type: 'saved_snippets', op: 'remove', saved_snippet_id: id });

/** What an edit of a navigation view changed. */
const navigationViewChange = z.strictObject({ is_pinned: z.boolean().optional(), name: z.string().optional() });
export type NavigationViewChange = z.infer<typeof navigationViewChange>;

export const navigationViewEventSchema = z.union([
  z.strictObject({ type: z.literal('navigation_view'), op: z.literal('add'), navigation_view: navigationViewObject }),
  z.strictObject({ type: z.literal('navigation_view'), op: z.literal('update'), fragment: z.string(), data: navigationViewChange }),
  z.strictObject({ type: z.literal('navigation_view'), op: z.literal('remove'), fragment: z.string() }),
]);
export type NavigationViewEvent = z.infer<typeof navigationViewEventSchema>;

export const navigationViewAddEvent = (view: ApiObject): NavigationViewEvent => ({ type: 'navigation_view', op: 'add', navigation_view: view });

export const navigationViewUpdateEvent = (fragment: string, data: NavigationViewChange): NavigationViewEvent => ({
  type: 'navigation_view', op: 'update', fragment, data,
});

export const navigationViewRemoveEvent = (fragment: string): NavigationViewEvent => ({ type: 'navigation_view', op: 'remove', fragment });

export const laterEventSchemas = [
  scheduledMessagesEventSchema, remindersEventSchema, draftsEventSchema, savedSnippetsEventSchema, navigationViewEventSchema,
] as const;
