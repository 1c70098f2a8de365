// Custom emoji: the list, upload (multipart, one image) and deactivation.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { addRealmEmoji, removeRealmEmoji } from '../actions/realm/emoji.js';
import { realmEmojiDict } from '../views/realmEmoji.js';

export const realmEmojiEndpoints = [
  endpoint({
    method: 'GET',
    path: '/realm/emoji',
    auth: 'user',
    params: {},
    async handler({ actor }) {
      return { emoji: realmEmojiDict(actor) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/realm/emoji/{emoji_name}',
    auth: 'user',
    params: { emoji_name: p.string() },
    async handler({ actor, user, args, req }) {
      await addRealmEmoji(actor, user, args.emoji_name, req.files);
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/realm/emoji/{emoji_name}',
    auth: 'user',
    params: { emoji_name: p.string() },
    async handler({ actor, user, args }) {
      await removeRealmEmoji(actor, user, args.emoji_name);
      return {};
    },
  }),
];
