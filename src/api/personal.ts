// A user's own things other than settings: muted users, status, bot storage.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { muteUser, unmuteUser } from '../actions/users/mutedUsers.js';
import { MAX_STATUS_TEXT_LENGTH, statusOfUser, updateUserStatus } from '../actions/users/status.js';
import { readBotStorage, removeBotStorage, writeBotStorage } from '../actions/users/botStorage.js';

const storageKeys = p.json(z.array(z.string())).optional();

export const personalEndpoints = [
  endpoint({
    method: 'POST',
    path: '/users/me/muted_users/{muted_user_id}',
    auth: 'user',
    params: { muted_user_id: p.int() },
    async handler({ actor, user, args }) {
      await muteUser(actor, user, args.muted_user_id);
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/users/me/muted_users/{muted_user_id}',
    auth: 'user',
    params: { muted_user_id: p.int() },
    async handler({ actor, user, args }) {
      await unmuteUser(actor, user, args.muted_user_id);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/users/me/status',
    auth: 'user',
    params: {
      away: p.bool().optional(),
      status_text: z.string().max(MAX_STATUS_TEXT_LENGTH).optional(),
      emoji_name: z.string().optional(),
      emoji_code: z.string().optional(),
      reaction_type: z.string().optional(),
    },
    async handler({ actor, user, args }) {
      await updateUserStatus(actor, user, {
        away: args.away,
        statusText: args.status_text,
        emojiName: args.emoji_name,
        emojiCode: args.emoji_code,
        reactionType: args.reaction_type,
      });
      return {};
    },
  }),
  endpoint({
    method: 'GET',
    path: '/users/{user_id}/status',
    auth: 'user',
    params: { user_id: p.int() },
    async handler({ actor, user, args }) {
      return { status: statusOfUser(actor, user, args.user_id) };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/bot_storage',
    auth: 'user',
    params: { keys: storageKeys },
    async handler({ actor, user, args }) {
      return { storage: await readBotStorage(actor, user, args.keys) };
    },
  }),
  endpoint({
    method: 'PUT',
    path: '/bot_storage',
    auth: 'user',
    params: { storage: p.json(z.record(z.string(), z.string())) },
    async handler({ actor, user, args }) {
      await writeBotStorage(actor, user, args.storage);
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/bot_storage',
    auth: 'user',
    params: { keys: storageKeys },
    async handler({ actor, user, args }) {
      await removeBotStorage(actor, user, args.keys);
      return {};
    },
  }),
];
