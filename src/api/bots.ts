// Bots: create, list, edit, deactivate, rotate their keys.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { badRequest } from '../model/errors.js';
import { createBot, regenerateBotApiKey, updateBot } from '../actions/users/bots.js';
import { deactivateBot } from '../actions/users/lifecycle.js';
import { apiEmail, avatarUrl } from '../views/users.js';
import { BotType } from '../model/types.js';
import { formatBot } from '../views/bots.js';
import { checkUrl } from '../actions/users/botServices.js';
import { botAvatarImages, saveAvatarImages } from '../actions/users/avatar.js';

const optionalStreamName = () => p.jsonOrString(z.union([z.string(), z.null()])).optional();

export const botEndpoints = [
  endpoint({
    method: 'POST',
    path: '/bots',
    auth: 'user',
    params: {
      full_name: p.string(),
      short_name: p.string(),
      bot_type: p.int().default(BotType.GENERIC),
      default_sending_stream: p.string().optional(),
      default_events_register_stream: p.string().optional(),
      default_all_public_streams: p.bool().default(false),
      // Outgoing webhook bots (bot_type 3): where to POST, and in which format.
      payload_url: p.jsonOrString(z.string()).default(''),
      service_name: p.string().optional(),
      interface_type: p.int().default(1),
    },
    async handler({ actor, user, args, req }) {
      const payloadUrl = args.payload_url === '' ? '' : checkUrl('payload_url', args.payload_url);
      const avatar = await botAvatarImages(actor, req.files);
      let bot = await createBot(actor, user, {
        fullName: args.full_name,
        shortName: args.short_name,
        botType: args.bot_type,
        defaultSendingStream: args.default_sending_stream ?? null,
        defaultEventsRegisterStream: args.default_events_register_stream ?? null,
        defaultAllPublicStreams: args.default_all_public_streams,
        payloadUrl,
        serviceName: args.service_name ?? null,
        interfaceType: args.interface_type,
      });
      if (avatar) {
        await saveAvatarImages(actor, bot, avatar);
        bot = actor.user(bot.id)!;
      }
      const view = formatBot(actor, bot);
      return {
        user_id: bot.id,
        api_key: bot.apiKey,
        avatar_url: avatarUrl(bot),
        default_sending_stream: view.default_sending_stream,
        default_events_register_stream: view.default_events_register_stream,
        default_all_public_streams: view.default_all_public_streams,
      };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/bots',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      // Like Zulip: the caller's own active bots, even for administrators.
      const bots = [...actor.state.users.values()].filter((b) => b.isBot && b.isActive && b.botOwnerId === user.id);
      return {
        bots: bots.map((b) => {
          const v = formatBot(actor, b);
          return {
            username: b.deliveryEmail,
            user_id: b.id,
            full_name: b.fullName,
            api_key: b.apiKey,
            avatar_url: v.avatar_url,
            default_sending_stream: v.default_sending_stream,
            default_events_register_stream: v.default_events_register_stream,
            default_all_public_streams: v.default_all_public_streams,
          };
        }),
      };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/bots/{bot_id}',
    auth: 'user',
    params: {
      bot_id: p.int(),
      full_name: p.string().optional(),
      role: p.int().optional(),
      bot_owner_id: p.int().optional(),
      default_sending_stream: optionalStreamName(),
      default_events_register_stream: optionalStreamName(),
      default_all_public_streams: p.bool().optional(),
      service_payload_url: p.jsonOrString(z.string()).optional(),
      service_interface: p.int().default(1),
    },
    async handler({ actor, user, args, req }) {
      const servicePayloadUrl =
        args.service_payload_url === undefined ? undefined : checkUrl('service_payload_url', args.service_payload_url);
      const avatar = await botAvatarImages(actor, req.files);
      await updateBot(actor, user, args.bot_id, {
        fullName: args.full_name,
        role: args.role,
        botOwnerId: args.bot_owner_id,
        defaultSendingStream: args.default_sending_stream,
        defaultEventsRegisterStream: args.default_events_register_stream,
        defaultAllPublicStreams: args.default_all_public_streams,
        servicePayloadUrl,
        serviceInterface: args.service_interface,
      });
      if (avatar) await saveAvatarImages(actor, actor.user(args.bot_id)!, avatar);
      const bot = actor.user(args.bot_id);
      if (!bot) throw badRequest('No such bot');
      const v = formatBot(actor, bot);
      const owner = bot.botOwnerId === null ? undefined : actor.user(bot.botOwnerId);
      return {
        full_name: bot.fullName,
        avatar_url: v.avatar_url,
        default_sending_stream: v.default_sending_stream,
        default_events_register_stream: v.default_events_register_stream,
        default_all_public_streams: v.default_all_public_streams,
        bot_owner: owner ? apiEmail(actor.services.config, actor.realm, owner) : null,
        // Like Zulip, the service fields echo what was asked (`service_interface` defaults to 1).
        service_interface: args.service_interface,
        service_payload_url: servicePayloadUrl ?? null,
        config_data: null,
      };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/bots/{bot_id}',
    auth: 'user',
    params: { bot_id: p.int() },
    async handler({ actor, user, args }) {
      await deactivateBot(actor, user, args.bot_id);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/bots/{bot_id}/api_key/regenerate',
    auth: 'user',
    params: { bot_id: p.int() },
    async handler({ actor, user, args }) {
      return { api_key: await regenerateBotApiKey(actor, user, args.bot_id) };
    },
  }),
];
