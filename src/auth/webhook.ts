// Who posts to an incoming webhook: the `api_key` parameter (any active account's key, as in
// Zulip's webhook views, with their error codes), or else HTTP Basic credentials.
import { ApiError, missingArgument } from '../model/errors.js';
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';
import { secretsEqual } from './keys.js';
import { authenticate } from './authenticate.js';

export const INVALID_API_KEY = 'Invalid API key';

export function authenticateWebhook(actor: RealmActor, apiKey: string | undefined, authorization: string | undefined): User {
  if (apiKey === undefined) {
    if (authorization) return authenticate(actor, authorization);
    throw missingArgument('api_key');
  }
  const key = apiKey.trim();
  if (!/^[A-Za-z0-9]{32}$/.test(key)) throw new ApiError('INVALID_API_KEY', 'Malformed API key', 401);
  const user = actor.state.userByApiKey(key);
  if (!user || !secretsEqual(user.apiKey, key)) throw new ApiError('INVALID_API_KEY', INVALID_API_KEY, 401);
  if (actor.realm.deactivated) throw new ApiError('REALM_DEACTIVATED', 'This organization has been deactivated', 401);
  if (!user.isActive) throw new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
  return user;
}
