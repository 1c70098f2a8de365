// The front tier: uWebSockets.js. Parses requests, finds the realm from the Host header,
// hands the request to the router and writes the JSON envelope. The worker matches the path
// against its routes (a front loads no handler). Every response, whatever goes wrong, is the
// envelope.
import { App, type HttpResponse, type TemplatedApp, type us_listen_socket, us_listen_socket_close } from 'uWebSockets.js';
import { randomUUID } from 'node:crypto';
import nodePath from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Metrics } from './metrics.js';
import type { AnswerSink, ApiRequest, ApiResponse, Router } from './contract.js';
import { subdomainFromHost } from './urls.js';
import { ApiError } from '../model/errors.js';
import { errorResponse, internalErrorResponse, successBody } from './envelope.js';
import { apiErrorForFailure } from './failures.js';
import { parseBody, parseQuery, parseWebhookBody } from './body.js';
import { THUMBNAIL_PATH, thumbnailTarget } from './thumbnailLink.js';
import type { RawParams } from './params.js';
import { bodyBuffer, bodyPayload, isBodyBytes } from './bodyText.js';
import { WebAssets } from './static.js';
import { jsonRequestFields, readCookie, sessionCookieName } from './session.js';
import { createStorage, type FileStorage } from '../storage/index.js';
import { checkKey } from '../storage/types.js';
import { StreamingMultipart } from './upload.js';
import { serveFile } from './fileResponse.js';
import { endHead } from './headAnswer.js';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 302: 'Found', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
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
  /** Where uploaded files go (default: the one the configuration names). */
  storage?: FileStorage;
  /**
   * Whether requests are limited per client address (RATE_LIMITS api_by_ip; default yes).
   * Without that and without request lines in the log, nothing uses the client's address,
   * and the front does not read it (reading it costs uWebSockets a new ArrayBuffer).
   */
  limitsByAddress?: boolean;
}

export const API_PREFIX = '/api/v1';
/** Paths of incoming webhooks (`/api/v1/external/{integration}`). */
const WEBHOOK_PREFIX = `${API_PREFIX}/external/`;
/** The web client's API: the same endpoints, authenticated by session cookie (see session.ts). */
export const JSON_PREFIX = '/json';
/** The path of links in account emails (Zulip's /accounts/confirm_new_email/<key>/). */
export const MAILED_LINK_PREFIX = '/accounts/confirm_new_email/';
/** Uploaded files, served after the worker checked access (outside the API prefixes, as in Zulip). */
const UPLOADS_PREFIX = '/user_uploads/';
/** Avatars, custom emoji, realm icons and logos: public to whoever has the URL, as in Zulip. */
const AVATARS_PREFIX = '/user_avatars/';

interface Pending {
  aborted: boolean;
  res: HttpResponse;
  /** A HEAD request: answered as its GET, with the GET's headers and length but no body. */
  head?: boolean;
  /** Set while a body is being written: the client left before the end. */
  onAbortedWrite?: () => void;
}

/** Status lines, built once: `200 OK`. */
const STATUS_LINE = new Map<number, string>();
const statusLine = (status: number): string => {
  let line = STATUS_LINE.get(status);
  if (line === undefined) STATUS_LINE.set(status, (line = `${status} ${STATUS_TEXT[status] ?? ''}`));
  return line;
};

/**
 * Sends a response; `body` is text, an envelope object (made JSON here, see bodyPayload) or
 * the JSON's UTF-8 bytes in pieces, its final newline included (see writePieces).
 */
function send(
  p: Pending,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
  contentType = 'application/json',
  cookies?: string[],
  written?: () => void,
): void {
  if (p.aborted) {
    written?.(); // the body will never be written: its memory is free now
    return;
  }
  p.aborted = true;
  const res = p.res;
  const made = typeof body === 'string' || Array.isArray(body) ? body : bodyPayload(body as Record<string, unknown>);
  const payload = isBodyBytes(made) ? [bodyBuffer(made)] : made;
  if (typeof payload !== 'string') return writePieces(p, status, payload as Uint8Array[], headers, contentType, cookies, written);
  const text = payload;
  res.cork(() => {
    writeHead(res, status, headers, contentType, cookies);
    if (p.head) {
      endHead(res, Buffer.byteLength(text));
    } else {
      res.end(text);
    }
  });
}

function writeHead(res: HttpResponse, status: number, headers: Record<string, string> | undefined, contentType: string, cookies: string[] | undefined): void {
  res.writeStatus(statusLine(status));
  res.writeHeader('Content-Type', contentType);
  if (headers) for (const k in headers) res.writeHeader(k, headers[k]!);
  if (cookies) for (const c of cookies) res.writeHeader('Set-Cookie', c);
}

/**
 * Writes a body given as byte pieces (a large register answer, some 34 MB) as they are: each
 * piece goes to the socket as far as the socket takes it, and the rest waits for the socket
 * to drain (onWritable), from the offset uWebSockets reports. Nothing is joined, copied into
 * a string or buffered by hand (end() of one large body would copy what the socket cannot
 * take at once).
 */
function writePieces(
  p: Pending,
  status: number,
  pieces: readonly Uint8Array[],
  headers: Record<string, string> | undefined,
  contentType: string,
  cookies: string[] | undefined,
  written?: () => void,
): void {
  const res = p.res;
  let total = 0;
  for (const piece of pieces) total += piece.byteLength;
  let i = 0;
  /** Where pieces[i] starts in the body. */
  let pieceStart = 0;
  /**
   * Writes on from uWebSockets' offset; true once all is written, false while the socket is
   * full. uWebSockets keeps no reference to a piece after tryEnd returns (what the socket did
   * not take is not buffered), so once all is written the pieces' memory is free.
   */
  const pump = (): boolean => {
    for (;;) {
      const offset = res.getWriteOffset();
      while (i < pieces.length && pieceStart + pieces[i]!.byteLength <= offset) pieceStart += pieces[i++]!.byteLength;
      if (i >= pieces.length) return finished();
      const piece = pieces[i]!;
      const [ok, done] = res.tryEnd(offset > pieceStart ? piece.subarray(offset - pieceStart) : piece, total);
      if (done) return finished();
      if (!ok) return false;
    }
  };
  let released = false;
  const finished = (): true => {
    if (!released) written?.();
    released = true;
    return true;
  };
  res.cork(() => {
    writeHead(res, status, headers, contentType, cookies);
    if (p.head) {
      endHead(res, total);
      finished();
    } else if (!pump()) {
      res.onWritable(() => pump());
      // A client gone mid-body: the rest is never written (and uWebSockets holds none of it).
      p.onAbortedWrite = finished;
    }
  });
}

/**
 * Request ids: unique per process start (a random prefix) and cheap per request (a counter),
 * so that two fronts of a cluster never hand the same id to a worker.
 */
const REQUEST_ID_PREFIX = randomUUID().slice(0, 13);
let requestCounter = 0;
const nextRequestId = () => `${REQUEST_ID_PREFIX}-${(++requestCounter).toString(36)}`;

/** `::ffff:127.0.0.1` and `127.0.0.1` are one address. */
const normalizeAddress = (a: string) => {
  const lower = a.toLowerCase();
  return lower.startsWith('::ffff:') ? lower.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1') : lower;
};

/**
 * The client's address: the connection's peer, unless the peer is a trusted reverse proxy;
 * then the nearest address in X-Forwarded-For that is not itself a trusted proxy (the ones to
 * its left were written by the client and prove nothing).
 */
export function clientAddress(peer: string, forwardedFor: string, trusted: Set<string>): string {
  let address = normalizeAddress(peer);
  if (!trusted.has(address) || !forwardedFor) return address;
  const hops = forwardedFor.split(',').map((h) => normalizeAddress(h.trim())).filter(Boolean);
  while (hops.length) {
    address = hops.pop()!;
    if (!trusted.has(address)) break;
  }
  return address;
}

/** What an exchange knows from its request line and headers. */
interface ExchangeFacts {
  id: string;
  started: number;
  /** The method as sent (HEAD included). */
  requested: string;
  /** The method routed (HEAD as GET). */
  method: string;
  subdomain: string;
  remoteAddress: string | undefined;
  logged: boolean;
  range: string;
}

/**
 * One request from its headers to its answer. What lives while the router works (a parked
 * long-poll, for up to a heartbeat) is this one object, with methods, rather than a dozen
 * closures over one large context: it survives young collections, and each copies it.
 */
class Exchange implements Pending, AnswerSink {
  aborted = false;
  readonly head: boolean;
  onAbortedWrite?: () => void;
  /** What to stop when the client leaves mid-body (a multipart upload being spooled). */
  onAbort: (() => void) | null = null;
  private counted = false;
  private routeLabel = 'unmatched';
  private userId: number | undefined;
  private cleanup: (() => Promise<void>) | undefined;

  constructor(
    private readonly o: FrontOptions,
    private readonly storage: FileStorage,
    private readonly flight: { count: number },
    readonly res: HttpResponse,
    private readonly facts: ExchangeFacts,
  ) {
    this.head = facts.requested === 'HEAD';
  }

  /** Counted from the start of the body until answered or the client is gone, once. */
  count(): void {
    this.flight.count++;
    this.counted = true;
  }

  private release(): void {
    if (this.counted) this.flight.count--;
    this.counted = false;
  }

  /** For uWS's onAborted: a closure over this object only, not over the request handler's scope. */
  readonly abortHandler = (): void => this.abort();

  /** The client went away. */
  abort(): void {
    this.aborted = true;
    this.onAbortedWrite?.();
    this.onAbort?.();
    this.release(); // a client that leaves mid-upload never sends its last chunk
    this.o.router.cancel(this.facts.id, this.facts.subdomain);
  }

  fail(err: ApiError): void {
    this.finish(errorResponse(err));
  }

  /** Answers the request; it no longer counts as in flight. */
  finish(r: ApiResponse): void {
    this.release();
    const f = this.facts;
    if (r.file && r.status === 200) {
      r.releaseBody?.(); // the file is served instead of the body
      serveFile(this.storage, this, r.file, { method: f.requested, range: f.range }, () => send(this, 404, errorResponse(fileNotFound()).body)).catch((err: unknown) => {
        this.o.log.error({ err, reqId: f.id }, 'serving a file failed');
        const e = internalErrorResponse();
        send(this, e.status, e.body);
      });
    } else {
      const body = r.bodyBytes !== undefined ? r.bodyBytes : r.bodyJson !== undefined ? r.bodyJson + '\n' : r.body;
      send(this, r.status, body, r.headers, undefined, r.cookies, r.releaseBody);
    }
    const ms = performance.now() - f.started;
    this.o.metrics.observeRequest(this.routeLabel, f.method, r.status, ms / 1000);
    // The line's object is not even built when request lines are not logged.
    if (f.logged) {
      this.o.log.info({ reqId: f.id, realm: f.subdomain, user: r.userId ?? this.userId, ip: f.remoteAddress, method: f.method, route: this.routeLabel, status: r.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  }

  /**
   * Hands the request to the router; `cleanup` (staged uploads of a multipart body) runs
   * before the answer goes out, so that a refused upload has left nothing once it is answered.
   */
  dispatch(apiReq: ApiRequest, cleanup?: () => Promise<void>): void {
    this.cleanup = cleanup;
    this.o.router.dispatch(apiReq, this);
  }

  /** The router's answer (AnswerSink). */
  answered(r: ApiResponse): void {
    this.settle(() => {
      this.userId = r.userId;
      if (r.route) this.routeLabel = r.route;
      return r;
    });
  }

  /** The router failed (AnswerSink). */
  failed(err: unknown): void {
    this.settle(() => {
      const known = apiErrorForFailure(err);
      if (!known) this.o.log.error({ err, reqId: this.facts.id }, 'dispatch failed');
      return known ? errorResponse(known) : internalErrorResponse();
    });
  }

  private settle(answer: () => ApiResponse): void {
    const done = () => this.finish(answer());
    const cleanup = this.cleanup;
    if (!cleanup) return done();
    cleanup()
      .catch((err: unknown) => this.o.log.warn({ err, reqId: this.facts.id }, 'removing staged uploads failed'))
      .finally(done);
  }
}

export class FrontServer {
  private app: TemplatedApp;
  private socket: us_listen_socket | null = null;
  private readonly web = new WebAssets();
  private readonly storage: FileStorage;
  /** Requests counted from the start of their body until answered (a shutdown waits for them). */
  private readonly flight = { count: 0 };
  private draining = false;
  private readonly trustedProxies: Set<string>;
  port = 0;

  constructor(private readonly o: FrontOptions) {
    this.trustedProxies = new Set(o.config.TRUSTED_PROXIES.split(',').map((a) => normalizeAddress(a.trim())).filter(Boolean));
    this.storage = o.storage ?? createStorage(o.config);
    this.app = App();
    const health = (res: HttpResponse, req: import('uWebSockets.js').HttpRequest) => {
      const p: Pending = { res, aborted: false, head: req.getMethod() === 'head' };
      res.onAborted(() => (p.aborted = true));
      if (this.draining) {
        const r = errorResponse(new ApiError('SERVER_NOT_READY', 'Server is shutting down', 503));
        send(p, r.status, { ...r.body, ...o.health() }, r.headers);
      } else {
        send(p, 200, successBody(o.health()));
      }
    };
    this.app.get('/health', health);
    this.app.head('/health', health);
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
    // HEAD as GET without the body, as for every other path (mail scanners and link
    // previews check an invitation's link first).
    for (const pattern of ['/', '/assets/*', '/static/*', '/join/*']) {
      this.app.get(pattern, serveWeb);
      this.app.head(pattern, serveWeb);
    }
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
    while (this.flight.count > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    this.app.close?.();
  }

  private onRequest(res: HttpResponse, req: import('uWebSockets.js').HttpRequest): void {
    const started = performance.now();
    const requested = req.getMethod().toUpperCase();
    const id = nextRequestId();
    // HEAD is GET without the body (as Django answers it for Zulip).
    const method = requested === 'HEAD' ? 'GET' : requested;
    const url = req.getUrl();
    const query = req.getQuery() ?? '';
    const host = req.getHeader('host');
    const contentType = req.getHeader('content-type');
    const contentLength = Number(req.getHeader('content-length') || 0);
    const authorization = req.getHeader('authorization') || undefined;
    const userAgent = req.getHeader('user-agent') || undefined;
    const idempotencyKey = req.getHeader('idempotency-key') || undefined;
    const logged = this.o.log.isLevelEnabled('info');
    const remoteAddress = this.o.limitsByAddress !== false || logged
      ? clientAddress(
          Buffer.from(res.getRemoteAddressAsText()).toString('latin1'),
          this.trustedProxies.size ? req.getHeader('x-forwarded-for') : '',
          this.trustedProxies,
        )
      : undefined;
    const isJson = url.startsWith(JSON_PREFIX + '/');
    const isFile = url.startsWith(UPLOADS_PREFIX);
    const range = isFile ? req.getHeader('range') : '';
    const session = isJson
      ? jsonRequestFields(this.o.config, (name) => req.getHeader(name))
      : isFile
        ? { prefix: 'file' as const, sessionId: readCookie(req.getHeader('cookie'), sessionCookieName(this.o.config)) }
        : undefined;
    const subdomain = subdomainFromHost(this.o.config, host);
    // Incoming webhooks read their tool's headers and exact body; other requests need neither.
    const webhook = url.startsWith(WEBHOOK_PREFIX);
    let headers: Record<string, string> | undefined;
    if (webhook) {
      headers = {};
      req.forEach((name, value) => (headers![name] = value));
    }
    const x = new Exchange(this.o, this.storage, this.flight, res, {
      id, started, requested, method, subdomain, remoteAddress, logged, range,
    });
    res.onAborted(x.abortHandler);

    if (url.startsWith(AVATARS_PREFIX) && method === 'GET') {
      return this.serveAvatar(x, url.slice(AVATARS_PREFIX.length), requested);
    }
    if (url === THUMBNAIL_PATH && method === 'GET') {
      let target: string | null = null;
      try {
        target = thumbnailTarget(parseQuery(query));
      } catch {
        // a malformed query names nothing
      }
      if (target === null) return x.fail(new ApiError('BAD_REQUEST', 'Not found', 404));
      return send(x, 302, '', { Location: target, 'Cache-Control': 'private, max-age=300' }, 'text/plain');
    }
    // Links mailed to people (an email change confirmation) are routed as API paths.
    const mailedLink = method === 'GET' && url.startsWith(MAILED_LINK_PREFIX);
    if (!isJson && !isFile && !mailedLink && !url.startsWith(API_PREFIX + '/') && url !== API_PREFIX) {
      return x.fail(new ApiError('BAD_REQUEST', url === '/' ? 'Not found: the web client is not built (npm run build)' : 'Not found', 404));
    }
    const path = isJson ? url.slice(JSON_PREFIX.length) : isFile ? url : mailedLink ? url.replace(/\/$/, '') : url.slice(API_PREFIX.length) || '/';
    const multipart = !webhook && !isFile && /^multipart\/form-data\b/i.test(contentType);
    // A multipart body may carry a file: room for the largest file and the other parts.
    const maxBody = multipart ? this.o.config.MAX_BODY_BYTES + this.o.config.MAX_FILE_UPLOAD_SIZE_MIB * 1024 * 1024 + 64 * 1024 : this.o.config.MAX_BODY_BYTES;
    if (contentLength > maxBody) {
      return x.fail(new ApiError('BAD_REQUEST', 'Request body too large', 413));
    }

    x.count();
    const apiRequest = (params: RawParams): ApiRequest => {
      const r: ApiRequest = { id, method, path, params, subdomain, authorization, userAgent, idempotencyKey, remoteAddress };
      return session ? Object.assign(r, session) : r;
    };
    if (multipart) {
      let form: StreamingMultipart;
      try {
        form = new StreamingMultipart(this.storage, contentType, parseQuery(query), {
          fileBytes: this.o.config.MAX_FILE_UPLOAD_SIZE_MIB * 1024 * 1024,
          fieldBytes: this.o.config.MAX_BODY_BYTES,
        }, nodePath.join(this.o.config.dataDir, 'spool'));
      } catch (err) {
        return x.fail(err instanceof ApiError ? err : new ApiError('BAD_REQUEST', 'Malformed request', 400));
      }
      x.onAbort = () => {
        form.abort();
        void form.cleanup();
      };
      let received = 0;
      res.onData((chunk, isLast) => {
        if (x.aborted) return;
        received += chunk.byteLength;
        if (received > maxBody) {
          form.abort();
          void form.cleanup();
          return x.fail(new ApiError('BAD_REQUEST', 'Request body too large', 413));
        }
        try {
          form.write(new Uint8Array(chunk));
        } catch (err) {
          form.abort();
          void form.cleanup();
          this.o.log.error({ err, reqId: id }, 'spooling an upload failed');
          return x.fail(new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', 500));
        }
        if (!isLast) return;
        form.end().then(
          () => {
            if (x.aborted) return void form.cleanup();
            x.dispatch(Object.assign(apiRequest(form.params), { files: form.files }), () => form.cleanup());
          },
          (err: unknown) => {
            void form.cleanup();
            if (err instanceof ApiError) return x.fail(err);
            this.o.log.error({ err, reqId: id }, 'storing an upload failed');
            x.fail(new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', 500));
          },
        );
      });
      return;
    }
    // Without a body (most GETs, and every long-poll) the request goes at once: no body
    // callback for uWebSockets to make, call and keep until the answer is written.
    if (!webhook && contentLength === 0 && !req.getHeader('transfer-encoding')) {
      x.dispatch(apiRequest(parseQuery(query)));
      return;
    }
    this.readBody(res, x, apiRequest({}), { query, contentType, webhook, headers });
  }

  /**
   * Reads a body that is not multipart, then dispatches the request. Most bodies arrive in one
   * chunk: that one is parsed in place (uWS's buffer is valid during the callback and parsing
   * copies what it keeps); only split bodies are copied. The callback is made here, not in
   * onRequest: uWebSockets keeps it until the answer is written (a parked long-poll's
   * heartbeat), and with it the scope it closes over.
   */
  private readBody(
    res: HttpResponse,
    x: Exchange,
    apiReq: ApiRequest,
    body: { query: string; contentType: string; webhook: boolean; headers: Record<string, string> | undefined },
  ): void {
    let chunks: Buffer[] | null = null;
    let received = 0;
    res.onData((chunk, isLast) => {
      if (x.aborted) return;
      received += chunk.byteLength;
      if (received > this.o.config.MAX_BODY_BYTES) {
        x.fail(new ApiError('BAD_REQUEST', 'Request body too large', 413));
        return;
      }
      if (!isLast) {
        (chunks ??= []).push(Buffer.from(chunk.slice(0)));
        return;
      }
      let rawBody: string | undefined;
      try {
        const params = parseQuery(body.query);
        // An empty body needs no Buffer (a webhook's raw body is one all the same).
        const bytes = chunks ? Buffer.concat([...chunks, Buffer.from(chunk)]) : chunk.byteLength || body.webhook ? Buffer.from(chunk) : null;
        if (body.webhook) {
          rawBody = bytes!.toString('latin1');
          parseWebhookBody(bytes!, body.contentType, params);
        } else if (bytes) {
          parseBody(bytes, body.contentType, params);
        }
        apiReq.params = params;
      } catch (err) {
        return x.fail(err instanceof ApiError ? err : new ApiError('BAD_REQUEST', 'Malformed request', 400));
      }
      chunks = null;
      if (body.webhook) Object.assign(apiReq, { headers: body.headers, rawBody });
      x.dispatch(apiReq);
    });
  }

  /** A public image (avatar, emoji, realm icon or logo): served straight from storage. */
  private serveAvatar(x: Exchange, rest: string, method: string): void {
    let key: string;
    try {
      key = rest.split('/').map(decodeURIComponent).join('/');
      checkKey(key);
    } catch {
      return x.fail(fileNotFound());
    }
    const ext = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
    const file = {
      area: 'avatars' as const,
      key,
      contentType: IMAGE_TYPES[ext] ?? 'application/octet-stream',
      disposition: 'inline',
      cacheControl: 'public, max-age=31536000, immutable',
    };
    serveFile(this.storage, x, file, { method, range: '' }, () => x.fail(fileNotFound())).catch((err: unknown) => {
      this.o.log.error({ err }, 'serving an avatar failed');
      x.fail(new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', 500));
    });
  }
}

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', gif: 'image/gif', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp' };

const fileNotFound = () => new ApiError('BAD_REQUEST', 'File not found', 404);
