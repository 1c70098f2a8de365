// POST /fetch_api_key: exchanges an email and password for the account's API key.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { ApiError } from '../model/errors.js';
import { verifyPassword } from '../auth/passwords.js';
import { FailureLimiter } from '../auth/failures.js';
import { userForLogin } from '../actions/users/create.js';

// Zulip's authenticate_by_username rule: 5 failures per 30 minutes per username.
const failures = new FailureLimiter(5, 1800);

export const authEndpoints = [
  endpoint({
    method: 'POST',
    path: '/fetch_api_key',
    auth: 'none',
    params: { username: p.string(), password: p.string() },
    async handler({ actor, args }) {
      const key = `${actor.realm.id}:${args.username.trim().toLowerCase()}`;
      failures.check(key);
      // Counted before the slow password check, so that tries sent all at once cannot all
      // pass the check above; a successful login clears the count.
      failures.record(key);
      const user = await userForLogin(actor, args.username.trim());
      const ok = await verifyPassword(args.password, user?.passwordHash ?? null);
      if (!ok || !user) {
        throw new ApiError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401);
      }
      if (actor.realm.deactivated) throw new ApiError('REALM_DEACTIVATED', 'This organization has been deactivated', 401);
      if (!user.isActive) throw new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
      failures.clear(key);
      return { api_key: user.apiKey, email: user.deliveryEmail, user_id: user.id };
    },
  }),
];
