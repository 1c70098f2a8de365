// The API form of custom emoji: a dict by id (as text), deactivated ones included.
import type { RealmActor } from '../realm/actor.js';
import type { RealmEmoji } from '../model/types.js';
import { emojiKey } from '../model/avatars.js';

export const emojiSourceUrl = (realmId: number, e: RealmEmoji) => `/user_avatars/${emojiKey(realmId, e.id)}`;

export function realmEmojiDict(actor: RealmActor): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const e of actor.state.realmEmoji.values()) {
    out[String(e.id)] = {
      id: String(e.id),
      name: e.name,
      source_url: emojiSourceUrl(actor.realm.id, e),
      // Images are stored as still PNGs: there is no separate still frame.
      still_url: null,
      deactivated: e.deactivated,
      author_id: e.authorId,
    };
  }
  return out;
}
