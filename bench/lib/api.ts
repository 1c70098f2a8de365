// A small Zulip API client for seeding and one-off calls (node:http with keep-alive).
// Load itself goes through the agents; this client favours clear errors over speed.

import http from 'node:http';
import https from 'node:https';
import { basicAuth, formEncode, type Credentials } from './request-spec.js';

export class ApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(`${method} ${path} → HTTP ${status}: ${body.slice(0, 300)}`);
  }

  /** The endpoint is not there (yet): 404, or 405 on a route that exists for other methods. */
  get missing(): boolean {
    return this.status === 404 || this.status === 405 || this.status === 501;
  }
}

export interface ApiResponse<T> {
  status: number;
  json: T;
  bytes: number;
  ms: number;
  text: string;
}

export class ApiClient {
  private readonly agent: http.Agent;
  private readonly base: URL;

  /**
   * @param baseUrl where to connect, e.g. http://127.0.0.1:9870
   * @param host    the Host header, which selects the realm
   */
  constructor(
    baseUrl: string,
    readonly host: string,
    readonly credentials?: Credentials,
  ) {
    this.base = new URL(baseUrl);
    const isTls = this.base.protocol === 'https:';
    this.agent = isTls ? new https.Agent({ keepAlive: true, maxSockets: 64 }) : new http.Agent({ keepAlive: true, maxSockets: 64 });
  }

  as(credentials: Credentials): ApiClient {
    return new ApiClient(this.base.toString(), this.host, credentials);
  }

  inRealm(host: string, credentials?: Credentials): ApiClient {
    return new ApiClient(this.base.toString(), host, credentials);
  }

  close(): void {
    this.agent.destroy();
  }

  get<T = Record<string, unknown>>(path: string, query: Record<string, unknown> = {}): Promise<T> {
    const qs = formEncode(query);
    return this.call<T>('GET', qs ? `${path}?${qs}` : path).then((r) => r.json);
  }

  post<T = Record<string, unknown>>(path: string, form: Record<string, unknown> = {}): Promise<T> {
    return this.call<T>('POST', path, formEncode(form)).then((r) => r.json);
  }

  /**
   * Any method; throws ApiError unless the status is 2xx. Paths are relative to /api/v1
   * except /health and /metrics. With `json: false` the body is not parsed (json is {}).
   */
  call<T>(method: string, path: string, body?: string, opts: { timeoutMs?: number; json?: boolean } = {}): Promise<ApiResponse<T>> {
    const timeoutMs = opts.timeoutMs ?? 120_000;
    const fullPath = path.startsWith('/api/') || path === '/health' || path === '/metrics' ? path : `/api/v1${path}`;
    const headers: Record<string, string> = { Host: this.host };
    if (this.credentials) headers.Authorization = basicAuth(this.credentials);
    if (body !== undefined) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const lib = this.base.protocol === 'https:' ? https : http;
    const t0 = performance.now();
    return new Promise((resolve, reject) => {
      const req = lib.request(
        {
          hostname: this.base.hostname,
          port: this.base.port || undefined,
          method,
          path: fullPath,
          headers,
          agent: this.agent,
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const ms = performance.now() - t0;
            const raw = Buffer.concat(chunks);
            const text = raw.toString('utf8');
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300) {
              reject(new ApiError(method, fullPath, status, text));
              return;
            }
            let json = {} as T;
            try {
              if (opts.json !== false && text) json = JSON.parse(text) as T;
            } catch {
              reject(new ApiError(method, fullPath, status, `response is not JSON: ${text.slice(0, 200)}`));
              return;
            }
            resolve({ status, json, bytes: raw.length, ms, text });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${fullPath}: no response within ${timeoutMs} ms`)));
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    });
  }
}

/** Runs `fn` over `items` with at most `concurrency` calls in flight, keeping order. */
export async function mapConcurrent<T, R>(items: T[], concurrency: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
