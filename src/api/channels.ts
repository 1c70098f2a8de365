// Channels: list, fetch, look up by name, members, edit, archive, default channels.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { badRequest } from '../model/errors.js';
import type { RealmState } from '../model/realmState.js';
import type { Stream, User } from '../model/types.js';
import { activeSubscriberIds, byName, formatStream } from '../views/channels.js';
import { canAccessChannelContent, canAccessChannelMetadata, canSeeSubscribers } from '../permissions/channelAccess.js';
import { CHANNEL_SETTING_NAMES } from '../permissions/channelSettings.js';
import { groupSettingChangeSchema } from '../permissions/groupPermissions.js';
import { archiveChannel, channelForMetadata, setDefaultChannel } from '../actions/channels/channels.js';
import { updateChannel } from '../actions/channels/update.js';
import { isGuest } from '../model/roles.js';

interface ListFilters {
  include_public: boolean;
  include_web_public: boolean;
  include_subscribed: boolean;
  exclude_archived: boolean;
  include_all: boolean;
  include_owner_subscribed: boolean;
  include_can_access_content: boolean;
}

/** GET /streams: the union of the requested sources, as Zulip's get_streams_for_user. */
function listChannels(state: RealmState, user: User, f: ListFilters): Stream[] {
  const all = [...state.streams.values()].filter((s) => !(f.exclude_archived && s.isArchived));
  if (f.include_all) return all.filter((s) => canAccessChannelMetadata(state, user, s));
  const owner = f.include_owner_subscribed && user.isBot && user.botOwnerId !== null ? state.users.get(user.botOwnerId) : undefined;
  return all.filter((s) => {
    if (owner && state.isSubscribed(owner.id, s.id)) return true;
    if (f.include_can_access_content) return canAccessChannelContent(state, user, s);
    if (f.include_subscribed && state.isSubscribed(user.id, s.id)) return true;
    if (f.include_public && !isGuest(user) && !s.inviteOnly) return true;
    if (f.include_web_public && s.isWebPublic) return true;
    return false;
  });
}

const groupSettingChanges = Object.fromEntries(CHANNEL_SETTING_NAMES.map((n) => [n, p.json(groupSettingChangeSchema).optional()]));

export const channelEndpoints = [
  endpoint({
    method: 'GET',
    path: '/streams',
    auth: 'user',
    params: {
      include_public: p.bool().default(true),
      include_web_public: p.bool().default(false),
      include_subscribed: p.bool().default(true),
      exclude_archived: p.bool().default(true),
      include_all: p.bool().default(false),
      include_all_active: p.bool().default(false),
      include_default: p.bool().default(false),
      include_owner_subscribed: p.bool().default(false),
      include_can_access_content: p.bool().default(false),
    },
    async handler({ actor, user, args }) {
      const streams = listChannels(actor.state, user, { ...args, include_all: args.include_all || args.include_all_active });
      return {
        streams: streams
          .map((s) => {
            const view = formatStream(actor.state, s);
            if (args.include_default) view.is_default = s.isDefault;
            return view;
          })
          .sort(byName),
      };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/streams/{stream_id}',
    auth: 'user',
    params: { stream_id: p.int() },
    async handler({ actor, user, args }) {
      return { stream: formatStream(actor.state, channelForMetadata(actor.state, user, args.stream_id)) };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/get_stream_id',
    auth: 'user',
    params: { stream: p.string() },
    async handler({ actor, user, args }) {
      const stream = actor.state.streamByName(args.stream.trim());
      if (!stream || stream.isArchived || !canAccessChannelContent(actor.state, user, stream)) {
        throw badRequest(`Invalid channel name '${args.stream}'`);
      }
      return { stream_id: stream.id };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/streams/{stream_id}/members',
    auth: 'user',
    params: { stream_id: p.int() },
    async handler({ actor, user, args }) {
      const stream = channelForMetadata(actor.state, user, args.stream_id);
      if (!canSeeSubscribers(actor.state, user, stream)) {
        throw badRequest(stream.inviteOnly ? 'Unable to retrieve subscribers for private channel' : 'Subscriber data is not available for this channel');
      }
      return { subscribers: activeSubscriberIds(actor.state, stream.id) };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/streams/{stream_id}',
    auth: 'user',
    params: {
      stream_id: p.int(),
      description: p.string().max(1024).optional(),
      new_name: p.string().optional(),
      is_private: p.bool().optional(),
      is_web_public: p.bool().optional(),
      history_public_to_subscribers: p.bool().optional(),
      is_default_stream: p.bool().optional(),
      message_retention_days: p.jsonOrString(z.union([z.number().int(), z.string()])).optional(),
      is_archived: p.bool().optional(),
      folder_id: p.json(z.number().int().nullable()).optional(),
      topics_policy: p.jsonOrString(z.string()).optional(),
      ...groupSettingChanges,
    },
    async handler({ actor, user, args }) {
      const groupSettings: Record<string, z.infer<typeof groupSettingChangeSchema>> = {};
      for (const name of CHANNEL_SETTING_NAMES) {
        const change = (args as Record<string, unknown>)[name] as z.infer<typeof groupSettingChangeSchema> | undefined;
        if (change !== undefined) groupSettings[name] = change;
      }
      await updateChannel(actor, user, args.stream_id, {
        description: args.description,
        newName: args.new_name,
        isPrivate: args.is_private,
        isWebPublic: args.is_web_public,
        historyPublicToSubscribers: args.history_public_to_subscribers,
        isDefaultStream: args.is_default_stream,
        messageRetentionDays: args.message_retention_days,
        isArchived: args.is_archived,
        folderId: args.folder_id,
        topicsPolicy: args.topics_policy,
        groupSettings,
      });
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/streams/{stream_id}',
    auth: 'user',
    params: { stream_id: p.int() },
    async handler({ actor, user, args }) {
      await archiveChannel(actor, user, args.stream_id);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/default_streams',
    auth: 'user',
    params: { stream_id: p.int() },
    async handler({ actor, user, args }) {
      await setDefaultChannel(actor, user, args.stream_id, true);
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/default_streams',
    auth: 'user',
    params: { stream_id: p.int() },
    async handler({ actor, user, args }) {
      await setDefaultChannel(actor, user, args.stream_id, false);
      return {};
    },
  }),
];
