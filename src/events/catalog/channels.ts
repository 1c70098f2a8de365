// Events about channels, subscriptions, default channels and channel folders.
import { z } from 'zod';
import { folderObject, groupSettingValue, ids, int, streamObject, subscriptionObject, type ApiObject } from './objects.js';

export const streamEventSchema = z.union([
  z.strictObject({ type: z.literal('stream'), op: z.literal('create'), streams: z.array(streamObject), for_unarchiving: z.boolean() }),
  z.strictObject({
    type: z.literal('stream'), op: z.literal('delete'),
    streams: z.array(z.strictObject({ stream_id: int() })), stream_ids: ids(), for_archiving: z.boolean(),
  }),
  z.strictObject({
    type: z.literal('stream'), op: z.literal('update'), stream_id: int(), name: z.string(), property: z.string(),
    value: z.union([z.string(), z.number(), z.boolean(), z.null(), groupSettingValue]),
    // With `invite_only`: the other privacy settings; with `description`: its HTML.
    history_public_to_subscribers: z.boolean().optional(),
    is_web_public: z.boolean().optional(),
    rendered_description: z.string().optional(),
  }),
]);
export type StreamEvent = z.infer<typeof streamEventSchema>;
export type StreamUpdate = Extract<StreamEvent, { op: 'update' }>;

export const streamCreateEvent = (stream: ApiObject, forUnarchiving = false): StreamEvent => ({
  type: 'stream', op: 'create', streams: [stream], for_unarchiving: forUnarchiving,
});

export const streamDeleteEvent = (streamId: number, forArchiving = false): StreamEvent => ({
  type: 'stream', op: 'delete', streams: [{ stream_id: streamId }], stream_ids: [streamId], for_archiving: forArchiving,
});

export const streamUpdateEvent = (
  streamId: number,
  name: string,
  property: string,
  value: StreamUpdate['value'],
  extra: Pick<StreamUpdate, 'history_public_to_subscribers' | 'is_web_public' | 'rendered_description'> = {},
): StreamEvent => ({ type: 'stream', op: 'update', stream_id: streamId, name, property, value, ...extra });

export const subscriptionEventSchema = z.union([
  z.strictObject({ type: z.literal('subscription'), op: z.literal('add'), subscriptions: z.array(subscriptionObject) }),
  z.strictObject({
    type: z.literal('subscription'), op: z.literal('remove'),
    subscriptions: z.array(z.strictObject({ name: z.string(), stream_id: int() })),
  }),
  z.strictObject({
    type: z.literal('subscription'), op: z.literal('update'), stream_id: int(), property: z.string(),
    value: z.union([z.string(), z.boolean(), z.null()]),
  }),
  z.strictObject({ type: z.literal('subscription'), op: z.enum(['peer_add', 'peer_remove']), stream_ids: ids(), user_ids: ids() }),
]);
export type SubscriptionEvent = z.infer<typeof subscriptionEventSchema>;

export const subscriptionAddEvent = (subscriptions: ApiObject[]): SubscriptionEvent => ({ type: 'subscription', op: 'add', subscriptions });

export const subscriptionRemoveEvent = (streams: Array<{ name: string; stream_id: number }>): SubscriptionEvent => ({
  type: 'subscription', op: 'remove', subscriptions: streams,
});

export const subscriptionUpdateEvent = (streamId: number, property: string, value: string | boolean | null): SubscriptionEvent => ({
  type: 'subscription', op: 'update', stream_id: streamId, property, value,
});

export const subscriptionPeerEvent = (op: 'peer_add' | 'peer_remove', streamIds: number[], userIds: number[]): SubscriptionEvent => ({
  type: 'subscription', op, stream_ids: streamIds, user_ids: userIds,
});

export const defaultStreamsEventSchema = z.strictObject({ type: z.literal('default_streams'), default_streams: ids() });
export type DefaultStreamsEvent = z.infer<typeof defaultStreamsEventSchema>;

export const defaultStreamsEvent = (streamIds: number[]): DefaultStreamsEvent => ({ type: 'default_streams', default_streams: streamIds });

const folderChange = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  rendered_description: z.string().optional(),
  is_archived: z.boolean().optional(),
});
export type FolderChange = z.infer<typeof folderChange>;

export const channelFolderEventSchema = z.union([
  z.strictObject({ type: z.literal('channel_folder'), op: z.literal('add'), channel_folder: folderObject }),
  z.strictObject({ type: z.literal('channel_folder'), op: z.literal('update'), channel_folder_id: int(), data: folderChange }),
]);
export type ChannelFolderEvent = z.infer<typeof channelFolderEventSchema>;

export const channelFolderAddEvent = (folder: ApiObject): ChannelFolderEvent => ({ type: 'channel_folder', op: 'add', channel_folder: folder });

export const channelFolderUpdateEvent = (folderId: number, data: FolderChange): ChannelFolderEvent => ({
  type: 'channel_folder', op: 'update', channel_folder_id: folderId, data,
});


export const channelEventSchemas = [streamEventSchema, subscriptionEventSchema, defaultStreamsEventSchema, channelFolderEventSchema] as const;
