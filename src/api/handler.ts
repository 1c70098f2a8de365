// The worker side of a request: realm, authentication, parameters, handler, envelope.
import { ApiError } from '../http/errors.js';
import { parseParams } from '../http/params.js';
import { authenticate } from '../auth/authenticate.js';
import type { RealmRegistry } from '../realm/registry.js';
import type { ApiRequest, ApiResponse, RequestHandler } from '../realm/router.js';
import type { User } from '../realm/types.js';
import type { Logger } from '../log.js';
import { routeTable } from './routes.js';

export function errorResponse(err: unknown, log: Logger, req?: ApiRequest): ApiResponse {
  if (err instanceof ApiError) {
    return {
      status: err.status,
      body: { result: 'error', msg: err.message, code: err.code, ...err.extra },
      headers: err.headers,
    };
  }
  log.error({ err, reqId: req?.id, route: req?.route }, 'unhandled error');
  return { status: 500, body: { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' } };
}

export class WorkerRequestHandler implements RequestHandler {
  constructor(
    private readonly registry: RealmRegistry,
    private readonly log: Logger,
    /** Catches up on users created by other processes before an unknown key is refused. */
    private readonly refreshUsers: () => Promise<void> = async () => {},
  ) {}

  async handle(req: ApiRequest): Promise<ApiResponse> {
    let user: User | null = null;
    try {
      const endpoint = routeTable.byRoute(req.method, req.route);
      if (!endpoint) throw new ApiError('BAD_REQUEST', 'Not found', 404);
      const actor = await this.registry.get(req.subdomain);
      if (!actor) throw new ApiError('NONEXISTENT_SUBDOMAIN', 'Invalid subdomain', 404);
      actor.lastUsed = Date.now();
      if (endpoint.auth === 'user' || (endpoint.auth === 'optional' && req.authorization)) {
        try {
          user = authenticate(actor, req.authorization);
        } catch (err) {
          if (!(err instanceof ApiError) || err.message !== 'Invalid API key') throw err;
          await this.refreshUsers();
          user = authenticate(actor, req.authorization);
        }
        // Incoming-webhook bots may only send messages (Zulip's allow_incoming_webhooks).
        if (user.botType === 2 && !(req.method === 'POST' && req.route === '/messages')) {
          throw new ApiError('BAD_REQUEST', 'This API is not available to incoming webhook bots.', 400);
        }
      }
      const { args, ignored } = parseParams(endpoint.params, req.params, req.pathParams);
      const body = await endpoint.handler({ actor, user: user as User, args, req });
      const out: Record<string, unknown> = { result: 'success', msg: '', ...body };
      if (ignored.length) out.ignored_parameters_unsupported = ignored;
      return { status: 200, body: out, userId: user?.id };
    } catch (err) {
      return { ...errorResponse(err, this.log, req), userId: user?.id };
    }
  }

  cancel(requestId: string, subdomain: string): void {
    void this.registry.get(subdomain).then((actor) => actor?.events.cancelPoll(requestId));
  }
}
