// Subscriptions: list, subscribe (and create channels), unsubscribe, per-user settings,
// and whether another user is subscribed.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { canAccessUser } from '../permissions/userAccess.js';
import { p } from '../http/params.js';
import { badRequest, insufficientPermission } from '../model/errors.js';
import { byName, formatSubscription } from '../views/channels.js';
import { CHANNEL_SETTING_NAMES } from '../permissions/channelSettings.js';
import { groupSettingValueSchema } from '../permissions/groupPermissions.js';
import type { GroupSettingValue } from '../permissions/groups.js';
import { channelForMetadata } from '../actions/channels/channels.js';
import { subscribe, unsubscribe } from '../actions/channels/subscriptions.js';
import { changeSubscriptionProperties } from '../actions/channels/subscriptionProperties.js';

const principalsSchema = p.json(z.union([z.array(z.number().int()), z.array(z.string())]));
/** Booleans arrive as `true`/`false`; other text may be JSON-quoted. */
const boolOrText = (v: unknown) => {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (t === 'true' || t === 'false') return t === 'true';
  return t.startsWith('"') && t.endsWith('"') && t.length >= 2 ? t.slice(1, -1) : t;
};
/** A boolean at our feature level ("partial" came at 412). */
const includeSubscribersSchema = p.bool();
const groupSettingParams = Object.fromEntries(CHANNEL_SETTING_NAMES.map((n) => [n, p.json(groupSettingValueSchema).optional()]));

export const subscriptionEndpoints = [
  endpoint({
    method: 'GET',
    path: '/users/me/subscriptions',
    auth: 'user',
    params: { include_subscribers: includeSubscribersSchema.default(false) },
    async handler({ actor, user, args }) {
      const { state } = actor;
      const subscriptions = [];
      for (const sub of state.subsByUser.get(user.id)?.values() ?? []) {
        const stream = state.streams.get(sub.streamId);
        if (!sub.active || !stream || stream.isArchived) continue;
        subscriptions.push(
          formatSubscription(state, user, stream, sub, { includeSubscribers: args.include_subscribers, notificationSettingsNull: true }),
        );
      }
      return { subscriptions: subscriptions.sort(byName) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/users/me/subscriptions',
    auth: 'user',
    params: {
      subscriptions: p.json(
        z.array(z.object({ name: z.string(), description: z.string().max(1024).optional(), color: z.string().optional() })),
      ),
      principals: principalsSchema.optional(),
      authorization_errors_fatal: p.bool().default(true),
      invite_only: p.bool().default(false),
      is_web_public: p.bool().default(false),
      is_default_stream: p.bool().default(false),
      history_public_to_subscribers: p.json(z.boolean().nullable()).optional(),
      message_retention_days: p.jsonOrString(z.union([z.number().int(), z.string()])).default('realm_default'),
      topics_policy: p.jsonOrString(z.string()).optional(),
      folder_id: p.json(z.number().int().nullable()).optional(),
      announce: p.bool().default(false),
      send_new_subscription_messages: p.bool().default(true),
      ...groupSettingParams,
    },
    async handler({ actor, user, args }) {
      const groupSettings: Record<string, GroupSettingValue> = {};
      for (const name of CHANNEL_SETTING_NAMES) {
        const value = (args as Record<string, unknown>)[name] as GroupSettingValue | undefined;
        if (value !== undefined) groupSettings[name] = value;
      }
      return {
        ...(await subscribe(actor, user, {
          subscriptions: args.subscriptions,
          principals: args.principals,
          authorizationErrorsFatal: args.authorization_errors_fatal,
          inviteOnly: args.invite_only,
          isWebPublic: args.is_web_public,
          isDefaultStream: args.is_default_stream,
          historyPublicToSubscribers: args.history_public_to_subscribers,
          messageRetentionDays: args.message_retention_days,
          topicsPolicy: args.topics_policy,
          folderId: args.folder_id,
          announce: args.announce,
          sendNewSubscriptionMessages: args.send_new_subscription_messages,
          groupSettings,
        })),
      };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/users/me/subscriptions',
    auth: 'user',
    params: { subscriptions: p.stringList(), principals: principalsSchema.optional() },
    async handler({ actor, user, args }) {
      return unsubscribe(actor, user, args.subscriptions, args.principals);
    },
  }),
  endpoint({
    method: 'POST',
    path: '/users/me/subscriptions/properties',
    auth: 'user',
    params: {
      subscription_data: p.json(
        z.array(z.object({ stream_id: z.number().int(), property: z.string(), value: z.union([z.boolean(), z.string()]) })),
      ),
    },
    async handler({ actor, user, args }) {
      await changeSubscriptionProperties(actor, user, args.subscription_data);
      return {};
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/users/me/subscriptions/{stream_id}',
    auth: 'user',
    params: { stream_id: p.int(), property: p.string(), value: z.preprocess(boolOrText, z.union([z.boolean(), z.string()])) },
    async handler({ actor, user, args }) {
      await changeSubscriptionProperties(actor, user, [{ stream_id: args.stream_id, property: args.property, value: args.value }]);
      return {};
    },
  }),
  endpoint({
    method: 'GET',
    path: '/users/{user_id}/subscriptions/{stream_id}',
    auth: 'user',
    params: { user_id: p.int(), stream_id: p.int() },
    async handler({ actor, user, args }) {
      const target = actor.user(args.user_id);
      if (!target) throw badRequest('No such user');
      if (!canAccessUser(actor.state, user, target)) throw insufficientPermission();
      const stream = channelForMetadata(actor.state, user, args.stream_id);
      return { is_subscribed: actor.state.isSubscribed(target.id, stream.id) };
    },
  }),
];
