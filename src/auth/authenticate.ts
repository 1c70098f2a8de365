// Who is calling: HTTP Basic with the account's real email and its API key.
import { parseBasicAuth } from './basic.js';
import { secretsEqual } from './keys.js';
import { unauthorized } from '../model/errors.js';
import type { RealmActor } from '../realm/actor.js';
import { CacheKey } from '../realm/caches.js';
import type { User } from '../model/types.js';

/**
 * Headers that authenticated recently, per realm: the full Authorization value → the User
 * object it was checked against. A client sends the same header on every request, so a hit
 * skips decoding it and hashing the key. A hit holds only while that object is the user's
 * current one: every change to a user (key, email, deactivation) replaces the object
 * (RealmState.putUser), and the header is then checked in full again on its next request.
 */
const MAX_KNOWN_HEADERS = 10_000;
const knownHeaders = new CacheKey('authorization headers', () => new Map<string, User>());

function knownUser(actor: RealmActor, header: string): User | null {
  const map = actor.caches.get(knownHeaders);
  const known = map.get(header);
  if (!known) return null;
  if (actor.state.users.get(known.id) === known) return known;
  map.delete(header);
  return null;
}

function remember(actor: RealmActor, header: string, user: User): void {
  const map = actor.caches.get(knownHeaders);
  if (map.size >= MAX_KNOWN_HEADERS) map.clear();
  map.set(header, user);
}

function checkUsable(actor: RealmActor, user: User): User {
  if (actor.realm.deactivated) throw unauthorized('This organization has been deactivated');
  if (!user.isActive) throw unauthorized('Account is deactivated');
  return user;
}

export function authenticate(actor: RealmActor, header: string | undefined): User {
  if (header) {
    const known = knownUser(actor, header);
    if (known) return checkUsable(actor, known);
  }
  const creds = parseBasicAuth(header);
  if (!creds) throw unauthorized();
  const key = creds.password;
  if (key.length !== 32) throw unauthorized('Malformed API key');
  const user = actor.state.userByApiKey(key);
  if (!user || !secretsEqual(user.apiKey, key) || user.deliveryEmail.toLowerCase() !== creds.username.trim().toLowerCase()) {
    throw unauthorized('Invalid API key');
  }
  checkUsable(actor, user);
  remember(actor, header!, user);
  return user;
}
