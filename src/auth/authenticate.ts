// Who is calling: HTTP Basic with the account's real email and its API key.
import { parseBasicAuth } from './basic.js';
import { secretsEqual } from './keys.js';
import { unauthorized } from '../http/errors.js';
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../realm/types.js';

export function authenticate(actor: RealmActor, header: string | undefined): User {
  const creds = parseBasicAuth(header);
  if (!creds) throw unauthorized();
  const key = creds.password;
  if (key.length !== 32) throw unauthorized('Malformed API key');
  const user = actor.state.userByApiKey(key);
  if (!user || !secretsEqual(user.apiKey, key) || user.deliveryEmail.toLowerCase() !== creds.username.trim().toLowerCase()) {
    throw unauthorized('Invalid API key');
  }
  if (actor.realm.deactivated) throw unauthorized('This organization has been deactivated');
  if (!user.isActive) throw unauthorized('Account is deactivated');
  return user;
}
