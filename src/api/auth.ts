// POST /fetch_api_key: exchanges an email and password for the account's API key.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { checkPasswordLogin } from '../actions/users/login.js';
import { notifyNewLogin } from '../actions/email/account.js';
import { clientName } from '../actions/messages/input.js';

export const authEndpoints = [
  endpoint({
    method: 'POST',
    path: '/fetch_api_key',
    auth: 'none',
    params: { username: p.string(), password: p.string() },
    async handler({ actor, args, req }) {
      // The same check and failure limit as the web client's login (actions/users/login.ts).
      const user = await checkPasswordLogin(actor, args.username, args.password);
      notifyNewLogin(actor, user, clientName(req.userAgent));
      return { api_key: user.apiKey, email: user.deliveryEmail, user_id: user.id };
    },
  }),
];
