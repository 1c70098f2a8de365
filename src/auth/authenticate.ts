// Who is calling: HTTP Basic with the account's real email and its API key.
import { parseBasicAuth } from './basic.js';
import { secretsEqual } from './keys.js';
import { unauthorized } from '../model/errors.js';
import type { RealmActor } from '../realm/actor.js';
import { CacheKey } from '../realm/caches.js';
import type { User } from '../model/types.js';

/**
 * Headers that authenticated recently, per realm: the full Authorization value → the user it
 * named, with the key and email it was checked against. A client sends the same header on
 * every request, so a hit skips decoding it and hashing the key. A hit is re-checked against
 * the user as they are now (key compared in constant time, email, active), so a changed key,
 * email or deactivation takes effect on the next request.
 */
interface KnownHeader {
  userId: number;
  apiKey: string;
  deliveryEmail: string;
}

const MAX_KNOWN_HEADERS = 10_000;
const knownHeaders = new CacheKey('authorization headers', () => new Map<string, KnownHeader>());

function knownUser(actor: RealmActor, header: string): User | null {
  const map = actor.caches.get(knownHeaders);
  const known = map.get(header);
  if (!known) return null;
  const user = actor.state.users.get(known.userId);
  if (user && user.deliveryEmail === known.deliveryEmail && secretsEqual(user.apiKey, known.apiKey)) return user;
  map.delete(header);
  return null;
}

function remember(actor: RealmActor, header: string, user: User): void {
  const map = actor.caches.get(knownHeaders);
  if (map.size >= MAX_KNOWN_HEADERS) map.clear();
  map.set(header, { userId: user.id, apiKey: user.apiKey, deliveryEmail: user.deliveryEmail });
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
