// GET /users/me's answer: the caller as they see themselves, kept as JSON text between requests.
import type { RealmActor } from '../realm/actor.js';
import type { RealmRecord, User } from '../model/types.js';
import { CacheKey } from '../realm/caches.js';
import { JsonText } from '../http/jsonText.js';
import { formatUser } from '../views/users.js';
import { profileDataFor } from '../views/profileFields.js';
import { newestReceivedMessageId } from './messages.js';

/** GET /users/me's answer for one user, with what it was made from. */
interface OwnUserAnswer {
  user: User;
  realm: RealmRecord;
  published: number;
  upTo: number;
  json: JsonText;
}

const ownUserAnswers = new CacheKey('GET /users/me answers', () => new Map<number, OwnUserAnswer>());

/**
 * GET /users/me's answer as JSON text: the user as they see themselves, with custom profile
 * fields and `max_message_id`. Kept per user until anything is published (every change a
 * user can see is) or the User object or realm record is replaced, so that polling GET
 * /users/me costs neither a query nor a serialization.
 */
export function ownUserJson(actor: RealmActor, user: User): JsonText | Promise<JsonText> {
  const known = actor.caches.get(ownUserAnswers).get(user.id);
  if (known && known.user === user && known.realm === actor.realm && known.published === actor.events.published && known.upTo === actor.state.messaging.publishedUpTo) {
    return known.json;
  }
  return freshOwnUserJson(actor, user);
}

async function freshOwnUserJson(actor: RealmActor, user: User): Promise<JsonText> {
  const upTo = actor.state.messaging.publishedUpTo;
  const published = actor.events.published;
  const maxMessageId = await newestReceivedMessageId(actor, user, upTo);
  const view = formatUser(actor.services.config, actor.realm, user, user, {
    clientGravatar: false,
    includeCustomProfileFields: true,
    profileData: profileDataFor(actor.state, user.id),
  });
  view.max_message_id = maxMessageId;
  const json = new JsonText(JSON.stringify(view));
  // Kept only if nothing was published while the query ran.
  if (actor.state.messaging.publishedUpTo === upTo && actor.events.published === published) {
    actor.caches.get(ownUserAnswers).set(user.id, { user, realm: actor.realm, published, upTo, json });
  }
  return json;
}
