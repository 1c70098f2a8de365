// How the front tier reaches realm actors. A request and its response are plain,
// serializable data, so the same interface works in one process (a function call) and
// across processes (the cluster's transport).

export interface ApiRequest {
  id: string;
  method: string;
  /** The route's pattern, e.g. `/users/{user_id}`; the front has matched it already. */
  route: string;
  pathParams: Record<string, string>;
  params: Record<string, string>;
  subdomain: string;
  authorization?: string;
  userAgent?: string;
  idempotencyKey?: string;
  remoteAddress?: string;
}

export interface ApiResponse {
  status: number;
  body: Record<string, unknown>;
  /**
   * The whole body as JSON text, when the worker made it ahead (register splices cached
   * text); `body` then holds only the envelope. The front writes this text as is.
   */
  bodyJson?: string;
  headers?: Record<string, string>;
  /** For the request log. */
  userId?: number;
}

export interface Router {
  dispatch(req: ApiRequest): Promise<ApiResponse>;
  /** The client went away: a parked long-poll for this request is released. */
  cancel(requestId: string, subdomain: string): void;
  close(): Promise<void>;
}

/** The worker side of the router: serves requests for the realms this process holds. */
export interface RequestHandler {
  handle(req: ApiRequest): Promise<ApiResponse>;
  cancel(requestId: string, subdomain: string): void;
}

export class InProcessRouter implements Router {
  constructor(private readonly handler: RequestHandler) {}

  dispatch(req: ApiRequest): Promise<ApiResponse> {
    return this.handler.handle(req);
  }

  cancel(requestId: string, subdomain: string): void {
    this.handler.cancel(requestId, subdomain);
  }

  async close(): Promise<void> {}
}
