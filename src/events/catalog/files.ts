// Events about files: a user's uploads (`attachment`, sent to the uploader only) and the
// organization's custom emoji (`realm_emoji`).
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

export const fileEventSchemas = [attachmentEventSchema] as const;
