// The worker side of a /json request (the web client): the session cookie names the user
// (an Authorization header is ignored there, as in Zulip), and every request that is not a
// GET passes Django's CSRF checks: an Origin header, when sent, must be this site, and a
// session-authenticated request must carry its session's token in X-CSRFToken.
import { ApiError } from '../model/errors.js';
import type { RealmActor } from '../realm/actor.js';
import type { ApiRequest } from '../http/contract.js';
import type { User } from '../model/types.js';
import type { SessionRow } from '../db/sessions.js';
import { authenticateSession } from '../auth/session.js';
import { secretsEqual } from '../auth/keys.js';
import type { AuthMode } from './endpoint.js';

/** Zulip's answer on /json without a usable session (json_unauthorized with www_authenticate="session"). */
export const sessionRequired = () =>
  new ApiError('UNAUTHORIZED', 'Not logged in: API authentication or user session required', 401, {}, {
    'WWW-Authenticate': 'Session realm="zulip"',
  });

/** Zulip's CsrfFailureError: 403 CSRF_FAILED with the reason Django gives. */
export const csrfFailed = (reason: string) => new ApiError('CSRF_FAILED', `CSRF error: ${reason}`, 403, { reason });

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Django's origin check: an Origin header, when sent, must be this site. */
export function checkOrigin(uriScheme: string, req: Pick<ApiRequest, 'origin' | 'host'>): void {
  if (req.origin === undefined) return;
  const expected = `${uriScheme}${(req.host ?? '').toLowerCase()}`;
  if (req.origin.toLowerCase() !== expected) throw csrfFailed(`Origin checking failed - ${req.origin} does not match any trusted origins.`);
}

function checkToken(req: ApiRequest, session: SessionRow): void {
  if (!req.csrfToken) throw csrfFailed('CSRF token missing.');
  if (!secretsEqual(req.csrfToken, session.csrfToken)) throw csrfFailed("CSRF token from the 'X-Csrftoken' HTTP header incorrect.");
}

export interface JsonCaller {
  user: User | null;
  session?: SessionRow;
}

export async function authenticateJsonRequest(actor: RealmActor, req: ApiRequest, auth: AuthMode): Promise<JsonCaller> {
  const found = auth === 'none' ? null : await authenticateSession(actor, req.sessionId);
  if (!found && auth === 'user') throw sessionRequired();
  if (!SAFE_METHODS.has(req.method)) {
    checkOrigin(actor.services.config.EXTERNAL_URI_SCHEME, req);
    if (found) checkToken(req, found.session);
  }
  return found ? { user: found.user, session: found.session } : { user: null };
}
