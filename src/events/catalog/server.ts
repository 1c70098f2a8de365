// Events about the server itself: `restart`, sent to open queues when the server they were
// created under was replaced by one of another version or feature level.
import { z } from 'zod';
import { int } from './objects.js';

export const restartEventSchema = z.strictObject({
  type: z.literal('restart'),
  zulip_version: z.string(),
  zulip_merge_base: z.string(),
  zulip_feature_level: int(),
  server_generation: int(),
});
export type RestartEvent = z.infer<typeof restartEventSchema>;

export const restartEvent = (fields: Omit<RestartEvent, 'type'>): RestartEvent => ({ type: 'restart', ...fields });

export const serverEventSchemas = [restartEventSchema] as const;
