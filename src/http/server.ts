// The front tier: uWebSockets.js. Parses requests, finds the realm from the Host header,
// hands the request to the router and writes the JSON envelope. The worker matches the path
// against its routes (a front loads no handler). Every response, whatever goes wrong, is the
// envelope.
import { App, type HttpResponse, type TemplatedApp, type us_listen_socket, us_listen_socket_close } from 'uWebSockets.js';
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Metrics } from './metrics.js';
import type { ApiRequest, ApiResponse, Router } from './contract.js';
import { subdomainFromHost } from './urls.js';
import { ApiError } from '../model/errors.js';
import { errorResponse, internalErrorResponse, successBody } from './envelope.js';
import { parseBody, parseQuery, parseWebhookBody } from './body.js';
import type { RawParams } from './params.js';
import { bodyJson } from './bodyText.js';
import { WebAssets } from './static.js';
import { jsonRequestFields } from './session.js';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 413: 'Payload Too Large', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

export interface FrontOptions {
  config: Config;
  router: Router;
  log: Logger;
  metrics: Metrics;
  /** Extra plain-text endpoints outside /api/v1 (health, metrics). */
  health: () => Record<string, unknown>;
}

export const API_PREFIX = '/api/v1';
/** Paths of incoming webhooks (`/api/v1/external/{integration}`). */
const WEBHOOK_PREFIX = `${API_PREFIX}/external/`;
/** The web client's API: the same endpoints, authenticated by session cookie (see session.ts). */
export const JSON_PREFIX = '/json';
/** The path of links in account emails (Zulip's /accounts/confirm_new_email/<key>/). */
export const MAILED_LINK_PREFIX = '/accounts/confirm_new_email/';

interface Pending {
  aborted: boolean;
  res: HttpResponse;
}

/** Status lines, built once: `200 OK`. */
const STATUS_LINE = new Map<number, string>();
const statusLine = (status: number): string => {
  let line = STATUS_LINE.get(status);
  if (line === undefined) STATUS_LINE.set(status, (line = `${status} ${STATUS_TEXT[status] ?? ''}`));
  return line;
};

function send(p: Pending, status: number, body: unknown, headers?: Record<string, string>, contentType = 'application/json', cookies?: string[]): void {
  if (p.aborted) return;
  p.aborted = true;
  const text = typeof body === 'string' ? body : bodyJson(body as Record<string, unknown>) + '\n';
  const res = p.res;
  res.cork(() => {
    res.writeStatus(statusLine(status));
    res.writeHeader('Content-Type', contentType);
    if (headers) for (const k in headers) res.writeHeader(k, headers[k]!);
    if (cookies) for (const c of cookies) res.writeHeader('Set-Cookie', c);
    res.end(text);
  });
}

/**
 * Request ids: unique per process start (a random prefix) and cheap per request (a counter),
 * so that two fronts of a cluster never hand the same id to a worker.
 */
const REQUEST_ID_PREFIX = randomUUID().slice(0, 13);
let requestCounter = 0;
const nextRequestId = () => `${REQUEST_ID_PREFIX}-${(++requestCounter).toString(36)}`;

export class FrontServer {
  private app: TemplatedApp;
  private socket: us_listen_socket | null = null;
  private readonly web = new WebAssets();
  private inFlight = 0;
  private draining = false;
  port = 0;

  constructor(private readonly o: FrontOptions) {
    this.app = App();
    this.app.get('/health', (res) => {
      const p = { res, aborted: false };
      res.onAborted(() => (p.aborted = true));
      if (this.draining) {
        const r = errorResponse(new ApiError('SERVER_NOT_READY', 'Server is shutting down', 503));
        send(p, r.status, { ...r.body, ...o.health() }, r.headers);
      } else {
        send(p, 200, successBody(o.health()));
      }
    });
    this.app.get('/metrics', (res) => {
      const p = { res, aborted: false };
      res.onAborted(() => (p.aborted = true));
      void o.metrics.text().then((t) => send(p, 200, t, {}, 'text/plain; version=0.0.4'));
    });
    // The web client: its page and files; anything else under these paths is a JSON 404.
    const serveWeb = (res: HttpResponse, req: import('uWebSockets.js').HttpRequest) => {
      const asset = this.web.find(req.getUrl());
      if (asset) this.web.write(res, req, asset);
      else this.onRequest(res, req);
    };
    for (const pattern of ['/', '/assets/*', '/static/*']) this.app.get(pattern, serveWeb);
    this.app.any('/*', (res, req) => this.onRequest(res, req));
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (socket) => {
        if (!socket) return reject(new Error(`Cannot listen on ${host}:${port}`));
        this.socket = socket;
        this.port = (this.app as unknown as { getPort?: () => number }).getPort?.() ?? port;
        resolve(this.port);
      });
    });
  }

  /** Stops accepting connections and waits (bounded) for requests in flight. */
  async close(graceMs = 10_000): Promise<void> {
    this.draining = true;
    if (this.socket) us_listen_socket_close(this.socket);
    this.socket = null;
    const deadline = Date.now() + graceMs;
    while (this.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    this.app.close?.();
  }

  private onRequest(res: HttpResponse, req: import('uWebSockets.js').HttpRequest): void {
    const started = performance.now();
    const p: Pending = { res, aborted: false };
    const id = nextRequestId();
    const method = req.getMethod().toUpperCase();
    const url = req.getUrl();
    const query = req.getQuery() ?? '';
    const host = req.getHeader('host');
    const contentType = req.getHeader('content-type');
    const contentLength = Number(req.getHeader('content-length') || 0);
    const authorization = req.getHeader('authorization') || undefined;
    const userAgent = req.getHeader('user-agent') || undefined;
    const idempotencyKey = req.getHeader('idempotency-key') || undefined;
    const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
    const isJson = url.startsWith(JSON_PREFIX + '/');
    const session = isJson ? jsonRequestFields(this.o.config, (name) => req.getHeader(name)) : undefined;
    const subdomain = subdomainFromHost(this.o.config, host);
    // Incoming webhooks read their tool's headers and exact body; other requests need neither.
    const webhook = url.startsWith(WEBHOOK_PREFIX);
    let headers: Record<string, string> | undefined;
    if (webhook) {
      headers = {};
      req.forEach((name, value) => (headers![name] = value));
    }
    let routeLabel = 'unmatched';
    let userId: number | undefined;

    const finish = (r: ApiResponse) => {
      send(p, r.status, r.bodyJson !== undefined ? r.bodyJson + '\n' : r.body, r.headers, undefined, r.cookies);
      const ms = performance.now() - started;
      this.o.metrics.observeRequest(routeLabel, method, r.status, ms / 1000);
      this.o.log.info({ reqId: id, realm: subdomain, user: r.userId ?? userId, method, route: routeLabel, status: r.status, ms: Math.round(ms * 10) / 10 }, 'request');
    };
    const fail = (err: ApiError) => finish(errorResponse(err));

    // Counted from the start of the body until the request is answered or the client is
    // gone, so that a shutdown waits for it; released once, whichever comes first.
    let counted = false;
    const release = () => {
      if (counted) this.inFlight--;
      counted = false;
    };
    res.onAborted(() => {
      p.aborted = true;
      release(); // a client that leaves mid-upload never sends its last chunk
      this.o.router.cancel(id, subdomain);
    });

    // Links mailed to people (an email change confirmation) are routed as API paths.
    const mailedLink = method === 'GET' && url.startsWith(MAILED_LINK_PREFIX);
    if (!isJson && !mailedLink && !url.startsWith(API_PREFIX + '/') && url !== API_PREFIX) {
      return fail(new ApiError('BAD_REQUEST', url === '/' ? 'Not found: the web client is not built (npm run build)' : 'Not found', 404));
    }
    const path = isJson ? url.slice(JSON_PREFIX.length) : mailedLink ? url.replace(/\/$/, '') : url.slice(API_PREFIX.length) || '/';
    if (contentLength > this.o.config.MAX_BODY_BYTES) {
      return fail(new ApiError('BAD_REQUEST', 'Request body too large', 413));
    }

    // Most bodies arrive in one chunk: that one is parsed in place (uWS's buffer is valid
    // during the callback and parsing copies what it keeps); only split bodies are copied.
    let chunks: Buffer[] | null = null;
    let received = 0;
    this.inFlight++;
    counted = true;
    res.onData((chunk, isLast) => {
      if (p.aborted) return;
      received += chunk.byteLength;
      if (received > this.o.config.MAX_BODY_BYTES) {
        release();
        fail(new ApiError('BAD_REQUEST', 'Request body too large', 413));
        return;
      }
      if (!isLast) {
        (chunks ??= []).push(Buffer.from(chunk.slice(0)));
        return;
      }
      let params: RawParams;
      let rawBody: string | undefined;
      try {
        params = parseQuery(query);
        const body = chunks ? Buffer.concat([...chunks, Buffer.from(chunk)]) : Buffer.from(chunk);
        if (webhook) {
          rawBody = body.toString('latin1');
          parseWebhookBody(body, contentType, params);
        } else {
          parseBody(body, contentType, params);
        }
      } catch (err) {
        release();
        return fail(err instanceof ApiError ? err : new ApiError('BAD_REQUEST', 'Malformed request', 400));
      }
      const apiReq: ApiRequest = {
        id, method, path, params, subdomain,
        authorization, userAgent, idempotencyKey, remoteAddress,
        ...session,
        ...(webhook ? { headers, rawBody } : {}),
      };
      this.o.router.dispatch(apiReq).then(
        (r) => {
          release();
          userId = r.userId;
          if (r.route) routeLabel = r.route;
          finish(r);
        },
        (err: unknown) => {
          release();
          this.o.log.error({ err, reqId: id }, 'dispatch failed');
          finish(internalErrorResponse());
        },
      );
    });
  }
}
