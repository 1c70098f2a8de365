// Emoji reactions on a message.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { addReaction, removeReaction } from '../actions/messages/reactions.js';

const emojiParams = {
  message_id: p.int(),
  emoji_code: p.string().optional(),
  reaction_type: p.string().optional(),
};

export const reactionEndpoints = [
  endpoint({
    method: 'POST',
    path: '/messages/{message_id}/reactions',
    auth: 'user',
    params: { ...emojiParams, emoji_name: p.string() },
    async handler({ actor, user, args }) {
      await addReaction(actor, user, args.message_id, { emojiName: args.emoji_name, emojiCode: args.emoji_code, reactionType: args.reaction_type });
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/messages/{message_id}/reactions',
    auth: 'user',
    params: { ...emojiParams, emoji_name: p.string().optional() },
    async handler({ actor, user, args }) {
      await removeReaction(actor, user, args.message_id, { emojiName: args.emoji_name, emojiCode: args.emoji_code, reactionType: args.reaction_type });
      return {};
    },
  }),
];
