// The worker side of a request: realm, authentication, parameters, handler, envelope.
import { ApiError } from '../model/errors.js';
import { parseParams, type ParamSpec, type RawParams } from '../http/params.js';
import { authenticate } from '../auth/authenticate.js';
import type { RealmRegistry } from '../realm/registry.js';
import type { ApiRequest, ApiResponse, RequestHandler } from '../http/contract.js';
import type { User } from '../model/types.js';
import type { Logger } from '../log.js';
import { routeTable } from './routes.js';
import { hasJsonText, spliceJson } from '../http/jsonText.js';

/**
 * Per parameter spec: the values of the parameters whose absence parses to a plain value
 * (undefined, a default number, boolean or string). Computed once, so that a request sending
 * three of an endpoint's thirty parameters (a GET /events poll) parses three.
 */
const absentValues = new WeakMap<ParamSpec, Map<string, unknown>>();

function absentValuesOf(spec: ParamSpec): Map<string, unknown> {
  let values = absentValues.get(spec);
  if (values) return values;
  values = new Map();
  for (const [name, schema] of Object.entries(spec)) {
    const parsed = schema.safeParse(undefined);
    if (parsed.success && (parsed.data === null || (typeof parsed.data !== 'object' && typeof parsed.data !== 'function'))) {
      values.set(name, parsed.data);
    }
  }
  absentValues.set(spec, values);
  return values;
}

function parseRequestParams(spec: ParamSpec, raw: RawParams, pathParams: Record<string, string>): { args: Record<string, unknown>; ignored: string[] } {
  const absent = absentValuesOf(spec);
  if (absent.size === 0) return parseParams(spec, raw, pathParams);
  // What was sent, and what has no plain absent value, is parsed as usual; every parameter
  // sent is in `sent`, so the unknown ones reported are the same as with the full spec.
  const sent: ParamSpec = {};
  for (const name in spec) if (!absent.has(name) || name in raw || name in pathParams) sent[name] = spec[name]!;
  const { args, ignored } = parseParams(sent, raw, pathParams) as { args: Record<string, unknown>; ignored: string[] };
  for (const [name, value] of absent) if (!(name in sent)) args[name] = value;
  return { args, ignored };
}

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
      const { args, ignored } = parseRequestParams(endpoint.params, req.params, req.pathParams);
      const body = await endpoint.handler({ actor, user: user as User, args, req });
      const out: Record<string, unknown> = { result: 'success', msg: '' };
      for (const k in body) out[k] = body[k];
      if (ignored.length) out.ignored_parameters_unsupported = ignored;
      // Cached JSON text in the body: the body travels as text from here on.
      if (hasJsonText(out)) return { status: 200, body: { result: 'success', msg: '' }, bodyJson: spliceJson(out), userId: user?.id };
      return { status: 200, body: out, userId: user?.id };
    } catch (err) {
      return { ...errorResponse(err, this.log, req), userId: user?.id };
    }
  }

  cancel(requestId: string, subdomain: string): void {
    void this.registry.get(subdomain).then((actor) => actor?.events.cancelPoll(requestId));
  }
}
