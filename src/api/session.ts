// The web client's login and logout, served only under /json (Zulip's web app logs in with a
// form POST to /accounts/login/; a single-page client wants JSON instead):
// - POST /json/login with `username` (the email) and `password`: checked and rate limited
//   exactly as POST /fetch_api_key; sets the session cookie (HttpOnly) and the CSRF token
//   cookie, and returns the user's id, email and the CSRF token.
// - POST /json/logout: ends the caller's session and clears both cookies.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { checkPasswordLogin, endSession, startSession } from '../actions/users/login.js';
import { clearedSessionCookies, sessionCookies } from '../http/session.js';
import { notifyNewLogin } from '../actions/email/account.js';
import { clientName } from '../actions/messages/input.js';

export const sessionEndpoints = [
  endpoint({
    method: 'POST',
    path: '/login',
    auth: 'none',
    only: 'json',
    params: { username: p.string(), password: p.string() },
    async handler({ actor, args, cookies, req }) {
      const user = await checkPasswordLogin(actor, args.username, args.password);
      notifyNewLogin(actor, user, clientName(req.userAgent));
      const { sessionId, csrfToken } = await startSession(actor, user);
      cookies.push(...sessionCookies(actor.services.config, sessionId, csrfToken));
      return { user_id: user.id, email: user.deliveryEmail, csrf_token: csrfToken };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/logout',
    auth: 'user',
    only: 'json',
    params: {},
    async handler({ actor, session, cookies }) {
      if (session) await endSession(actor, session);
      cookies.push(...clearedSessionCookies(actor.services.config));
      return {};
    },
  }),
];
