// Events about files: a user's uploads (`attachment`, sent to the uploader only) and the
// organization's custom emoji (`realm_emoji`, the whole set, to everyone).
import { z } from 'zod';

export const attachmentObject = z.strictObject({
  id: z.number().int(),
  name: z.string(),
  path_id: z.string(),
  size: z.number().int(),
  create_time: z.number().int(),
  messages: z.array(z.strictObject({ id: z.number().int(), date_sent: z.number().int() })),
});
export type AttachmentObject = z.infer<typeof attachmentObject>;

export const attachmentEventSchema = z.union([
  z.strictObject({ type: z.literal('attachment'), op: z.enum(['add', 'update']), attachment: attachmentObject, upload_space_used: z.number().int() }),
  z.strictObject({ type: z.literal('attachment'), op: z.literal('remove'), attachment: z.strictObject({ id: z.number().int() }), upload_space_used: z.number().int() }),
]);
export type AttachmentEvent = z.infer<typeof attachmentEventSchema>;

export const attachmentChangedEvent = (op: 'add' | 'update', attachment: AttachmentObject, uploadSpaceUsed: number): AttachmentEvent => ({
  type: 'attachment', op, attachment, upload_space_used: uploadSpaceUsed,
});

export const attachmentRemovedEvent = (id: number, uploadSpaceUsed: number): AttachmentEvent => ({
  type: 'attachment', op: 'remove', attachment: { id }, upload_space_used: uploadSpaceUsed,
});


export const realmEmojiObject = z.strictObject({
  id: z.string(),
  name: z.string(),
  source_url: z.string(),
  still_url: z.string().nullable(),
  deactivated: z.boolean(),
  author_id: z.number().int().nullable(),
});

export const realmEmojiEventSchema = z.strictObject({
  type: z.literal('realm_emoji'),
  op: z.literal('update'),
  realm_emoji: z.record(z.string(), realmEmojiObject),
});
export type RealmEmojiEvent = z.infer<typeof realmEmojiEventSchema>;

export const realmEmojiEvent = (realmEmoji: Record<string, unknown>): RealmEmojiEvent =>
  ({ type: 'realm_emoji', op: 'update', realm_emoji: realmEmoji }) as RealmEmojiEvent;

export const fileEventSchemas = [attachmentEventSchema, realmEmojiEventSchema] as const;
