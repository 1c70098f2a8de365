// How the front tier reaches realm actors. A request and its response are plain,
// serializable data, so the same interface works in one process (a function call) and
// across processes (the cluster's transport). The front does not know the routes: it hands
// over the path, and the worker matches it (so a front process loads no handler).

export interface ApiRequest {
  id: string;
  method: string;
  /** The path under /api/v1 (or /json), e.g. `/users/12`. */
  path: string;
  /**
   * `json` for the web client's `/json/...` paths, which authenticate by session cookie and
   * need a CSRF token on every non-GET request; `file` for the files under `/user_uploads/`
   * (outside the API prefixes: HTTP Basic or the session cookie); absent for `/api/v1/...`.
   */
  prefix?: 'json' | 'file';
  params: Record<string, string>;
  subdomain: string;
  authorization?: string;
  userAgent?: string;
  idempotencyKey?: string;
  remoteAddress?: string;
  /**
   * Only for incoming webhooks (paths under `/external/`): every request header, names in
   * lower case, and the body's bytes as a latin1 string (one character per byte), since
   * integrations read their own event headers and payload formats and check signatures over
   * the exact bytes.
   */
  headers?: Record<string, string>;
  rawBody?: string;
  /** Files of a multipart body, already in storage under staging keys (see upload.ts). */
  files?: UploadedFile[];
  /** The session cookie's value (sent only on `/json` and file requests). */
  sessionId?: string;
  /** The X-CSRFToken header. */
  csrfToken?: string;
  /** The Origin and Host headers, for the CSRF origin check of `/json` requests. */
  origin?: string;
  host?: string;
  /**
   * Set once nobody will read the answer: the client left, or (in a cluster) the front gave up
   * waiting. Work that would leave state behind for the answer (a register's queue) checks it,
   * since the news may come before that work has begun.
   */
  cancelled?: boolean;
}

/** A file part of a request, stored by the front before the request reaches the worker. */
export interface UploadedFile {
  /** The form field it came in. */
  field: string;
  /** Its staging key in the uploads area; the worker moves it to keep it. */
  key: string;
  /** The name the client gave it, not yet sanitised. */
  filename: string;
  contentType: string;
  size: number;
}

/** A stored file the front streams to the client in place of a JSON body. */
export interface FileToServe {
  area: 'uploads' | 'avatars';
  key: string;
  contentType: string;
  /** `inline` or `attachment; filename*=…`. */
  disposition: string;
  cacheControl: string;
}

export interface ApiResponse {
  status: number;
  body: Record<string, unknown>;
  /**
   * The whole body as JSON text, when the worker made it ahead (register splices cached
   * text); `body` then holds only the envelope. The front writes this text as is.
   */
  bodyJson?: string;
  /**
   * The whole body as UTF-8 JSON in pieces written one after the other, when the worker made
   * it ahead from bytes it keeps (register's user lists): `body` then holds only the envelope.
   * They end with the newline that ends every response body. The front writes the pieces as
   * they are, without joining them.
   */
  bodyBytes?: readonly Uint8Array[];
  /**
   * Called once bodyBytes were written out: the memory they lie in (a front's pooled receive
   * buffers) may then be used again. Not called when the body was not written whole.
   */
  releaseBody?: () => void;
  headers?: Record<string, string>;
  /** The matched route's pattern, e.g. `/users/{user_id}`, for logs and metrics. */
  route?: string;
  /** For the request log. */
  userId?: number;
  /** Set-Cookie values (login and logout of the web client). */
  cookies?: string[];
  /** A file to serve (a successful GET of `/user_uploads/…`): the front streams it from storage. */
  file?: FileToServe;
}

/**
 * What a worker answers: a response, or that the realm is not held by this process (in a
 * cluster the front then sends the request to the realm's owner; nothing of it committed).
 */
export type HandlerOutcome = { kind: 'response'; res: ApiResponse } | { kind: 'not_here'; reason: string };

/**
 * Who gets a dispatched request's answer: the front's exchange with its client. An object
 * with methods rather than a promise: a parked long-poll waits for its answer up to a
 * heartbeat, and a promise chain over it (its promises, reactions and closures) lives that
 * long, through young collections, for every poll in flight.
 */
export interface AnswerSink {
  answered(res: ApiResponse): void;
  /** The router failed (not an error answer: those come to `answered`). */
  failed(err: unknown): void;
}

export interface Router {
  /** Hands the request to its realm; the answer (or the failure) goes to `sink`, once. */
  dispatch(req: ApiRequest, sink: AnswerSink): void;
  /** The client went away: a parked long-poll for this request is released, a register drops its queue. */
  cancel(requestId: string, subdomain: string): void;
  close(): Promise<void>;
}

/** The worker side of the router: serves requests for the realms this process holds. */
export interface RequestHandler {
  handle(req: ApiRequest): Promise<HandlerOutcome>;
  cancel(requestId: string, subdomain: string): void;
}
