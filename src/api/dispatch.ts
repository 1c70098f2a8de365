// The worker side of a request: realm, authentication, parameters, handler, envelope.
import { ApiError } from '../model/errors.js';
import { parseParams } from '../http/params.js';
import { authenticate } from '../auth/authenticate.js';
import { authenticateWebhook, INVALID_API_KEY } from '../auth/webhook.js';
import type { RealmRegistry } from '../realm/registry.js';
import type { ApiRequest, ApiResponse, HandlerOutcome, RequestHandler } from '../http/contract.js';
import { errorResponse, internalErrorResponse, successBody, successJson } from '../http/envelope.js';
import { apiErrorForFailure } from '../http/failures.js';
import { RealmNotHereError } from '../realm/services.js';
import { BotType } from '../model/types.js';
import type { User } from '../model/types.js';
import type { Logger } from '../log.js';
import { fileRouteTable, routeTable } from './routes.js';
import type { FileToServe } from '../http/contract.js';
import { hasJsonText, JsonText, spliceJsonBytes } from '../http/jsonText.js';
import { authenticateJsonRequest } from './sessionRequest.js';
import type { SessionRow } from '../db/sessions.js';
import type { Endpoint } from './endpoint.js';
import type { RealmActor } from '../realm/actor.js';
import { MemoryRateLimitStore, parseRateLimits, rateLimitHeaders, rateLimitHit, type RateLimitRules, type RateLimitStore, type RateRule } from '../auth/rateLimit.js';

/** The envelope of a failed request; a failure that is not an API error is logged, not shown. */
function failure(err: unknown, log: Logger, req: ApiRequest, route?: string): ApiResponse {
  if (err instanceof ApiError) return errorResponse(err);
  const known = apiErrorForFailure(err);
  if (known) {
    log.warn({ err, reqId: req.id, route, status: known.status }, 'request failed in a driver');
    return errorResponse(known);
  }
  log.error({ err, reqId: req.id, route }, 'unhandled error');
  return internalErrorResponse();
}

/** GET /events parks until there is something to say: limiting it would only delay events. */
const notLimited = (method: string, route: string) => method === 'GET' && route === '/events';

interface Caller {
  user: User | null;
  session?: SessionRow;
}

/** A caller by API key; incoming-webhook bots may only send messages (Zulip's allow_incoming_webhooks). */
function apiCaller(user: User, req: ApiRequest, route: string): Caller {
  if (user.botType === BotType.INCOMING_WEBHOOK && !(req.method === 'POST' && route === '/messages')) {
    throw new ApiError('BAD_REQUEST', 'This API is not available to incoming webhook bots.', 400);
  }
  return { user };
}

export interface RateLimiting {
  rules: RateLimitRules;
  store: RateLimitStore;
}

export class WorkerRequestHandler implements RequestHandler {
  constructor(
    private readonly registry: RealmRegistry,
    private readonly log: Logger,
    /** Catches up on users created by other processes before an unknown key is refused. */
    private readonly refreshUsers: () => Promise<void> = async () => {},
    private readonly limiting: RateLimiting = { rules: parseRateLimits('off'), store: new MemoryRateLimitStore() },
  ) {}

  /**
   * The rule a request spends from: a user's (Zulip's api_by_user) or, without credentials,
   * the address's (api_by_ip); null when that limit is off, so that nothing is spent, awaited
   * or sent (Zulip sends no X-RateLimit headers with rate limiting off).
   */
  private ruleFor(user: User | null, req: ApiRequest, route: string): RateRule | null {
    if (notLimited(req.method, route)) return null;
    return user ? this.limiting.rules.api_by_user : this.limiting.rules.api_by_ip;
  }

  /**
   * Spends one request of the caller's budget under its rule (see ruleFor). Over budget: 429
   * RATE_LIMIT_HIT. Authenticated answers carry the X-RateLimit headers. A store out of reach
   * lets the request through.
   */
  private async spend(user: User | null, req: ApiRequest, rule: RateRule): Promise<Record<string, string> | undefined> {
    const key = user ? `user:${user.realmId}:${user.id}` : `ip:${req.remoteAddress ?? 'unknown'}`;
    let verdict;
    try {
      verdict = await this.limiting.store.take(key, rule);
    } catch (err) {
      this.log.warn({ err, reqId: req.id }, 'rate limit store unavailable; request allowed');
      return undefined;
    }
    if (!verdict.allowed) {
      const hit = rateLimitHit(verdict.retryAfter);
      throw new ApiError(hit.code, hit.message, hit.status, hit.extra, { ...hit.headers, ...(user ? rateLimitHeaders(verdict) : {}) });
    }
    return user ? rateLimitHeaders(verdict) : undefined;
  }

  /** Requests being handled, by id: a cancel marks them (see ApiRequest.cancelled). */
  private readonly running = new Map<string, ApiRequest>();

  async handle(req: ApiRequest): Promise<HandlerOutcome> {
    this.running.set(req.id, req);
    try {
      return await this.handleRequest(req);
    } finally {
      if (this.running.get(req.id) === req) this.running.delete(req.id);
    }
  }

  private async handleRequest(req: ApiRequest): Promise<HandlerOutcome> {
    let user: User | null = null;
    let route: string | undefined;
    let limitHeaders: Record<string, string> | undefined;
    try {
      const isFile = req.prefix === 'file';
      // A HEAD of a file is checked as its GET (the front then sends the headers only).
      const match = isFile ? fileRouteTable.match(req.method === 'HEAD' ? 'GET' : req.method, req.path) : routeTable.match(req.method, req.path);
      if (match.kind === 'found' && match.endpoint.only === 'json' && req.prefix !== 'json') {
        throw new ApiError('BAD_REQUEST', 'Not found', 404);
      }
      // Incoming webhooks live under /api/v1 only (their tools post there, with an API key).
      if (match.kind === 'found' && match.endpoint.auth === 'webhook' && req.prefix === 'json') {
        throw new ApiError('BAD_REQUEST', 'Not found', 404);
      }
      if (match.kind === 'not_found') throw new ApiError('BAD_REQUEST', 'Not found', 404);
      if (match.kind === 'method_not_allowed') {
        throw new ApiError('METHOD_NOT_ALLOWED', 'Method Not Allowed', 405, { allowed_methods: match.allowed });
      }
      const { endpoint, pathParams } = match;
      route = endpoint.path;
      // A realm already in memory is taken without a wait; only loading one is awaited.
      const actor = this.registry.activeBySubdomain(req.subdomain) ?? (await this.registry.get(req.subdomain));
      if (!actor) throw new ApiError('NONEXISTENT_SUBDOMAIN', 'Invalid subdomain', 404);
      actor.lastUsed = Date.now();
      let session: SessionRow | undefined;
      try {
        const caller = this.authenticateFor(endpoint, actor, req, route, isFile);
        ({ user, session } = caller instanceof Promise ? await caller : caller);
      } catch (err) {
        // Failed credentials spend the address's budget: keys cannot be guessed without limit.
        const rule = err instanceof ApiError && err.status === 401 ? this.ruleFor(null, req, route) : null;
        if (rule) await this.spend(null, req, rule);
        throw err;
      }
      const rule = this.ruleFor(user, req, route);
      if (rule) limitHeaders = await this.spend(user, req, rule);
      const { args, ignored } = parseParams(endpoint.params, req.params, pathParams);
      const cookies: string[] = [];
      let file: FileToServe | undefined;
      const serve = (f: FileToServe) => (file = f);
      const answer = endpoint.handler({ actor, user: user as User, args, req, session, cookies, serve });
      const result = answer instanceof Promise ? await answer : answer;
      if (file) return { kind: 'response', res: { status: 200, body: successBody(), file, route, userId: user?.id } };
      // Webhooks take the tool's own options; Zulip reports no ignored parameters for them.
      const reported = ignored.length && endpoint.auth !== 'webhook' ? ignored : undefined;
      let res: ApiResponse;
      if (result instanceof JsonText) {
        res = { status: 200, body: successBody(), bodyJson: successJson(result, reported), route, userId: user?.id };
      } else {
        const body = successBody(result);
        if (reported) body.ignored_parameters_unsupported = reported;
        // Cached JSON in the body: the body travels as UTF-8 pieces from here on.
        res = hasJsonText(body)
          ? { status: 200, body: successBody(), bodyBytes: spliceJsonBytes(body), route, userId: user?.id }
          : { status: 200, body, route, userId: user?.id };
      }
      if (cookies.length) res.cookies = cookies;
      if (limitHeaders) res.headers = { ...res.headers, ...limitHeaders };
      return { kind: 'response', res };
    } catch (err) {
      if (err instanceof RealmNotHereError) return { kind: 'not_here', reason: err.message };
      const res = failure(err, this.log, req, route);
      if (limitHeaders) res.headers = { ...res.headers, ...limitHeaders };
      return { kind: 'response', res: { ...res, route, userId: user?.id } };
    }
  }

  /**
   * Who is calling, as the endpoint's kind of authentication says; an API key known to the
   * realm is checked without a wait.
   */
  private authenticateFor(
    endpoint: Endpoint,
    actor: RealmActor,
    req: ApiRequest,
    route: string,
    isFile: boolean,
  ): Caller | Promise<Caller> {
    if (endpoint.auth === 'webhook') {
      const user = this.withRefresh(() => authenticateWebhook(actor, req.params.api_key, req.authorization));
      return user instanceof Promise ? user.then((u) => ({ user: u })) : { user };
    }
    if (req.prefix === 'json' || (isFile && !req.authorization)) return authenticateJsonRequest(actor, req, endpoint.auth);
    if (endpoint.auth === 'user' || (endpoint.auth === 'optional' && req.authorization)) {
      const user = this.withRefresh(() => authenticate(actor, req.authorization));
      return user instanceof Promise ? user.then((u) => apiCaller(u, req, route)) : apiCaller(user, req, route);
    }
    return { user: null };
  }

  /** Authenticates; an unknown key is tried again after catching up on users made elsewhere. */
  private withRefresh(login: () => User): User | Promise<User> {
    try {
      return login();
    } catch (err) {
      if (!(err instanceof ApiError) || err.message !== INVALID_API_KEY) throw err;
      return this.refreshUsers().then(login);
    }
  }

  /**
   * The client left: its parked poll ends, and a register in progress drops its queue. A
   * register that has not begun yet (its realm still loading, its caller still being
   * authenticated) sees the mark on its request and makes no queue.
   */
  cancel(requestId: string, subdomain: string): void {
    const req = this.running.get(requestId);
    if (req) req.cancelled = true;
    const events = this.registry.activeBySubdomain(subdomain)?.events;
    if (!events) return;
    events.cancelPoll(requestId);
    const dropped = events.abandonRegister(requestId);
    if (dropped) this.log.info({ reqId: requestId, queueId: dropped }, 'client left before its register was answered: queue dropped');
  }
}
