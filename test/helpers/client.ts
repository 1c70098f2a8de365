// A small HTTP client for black-box tests: form-encoded requests with Basic auth and a Host
// header naming the realm.
import http from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { checkEvent } from '../../src/events/catalog/index.js';

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const run = promisify(execFile);

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export type Params = Record<string, unknown>;

export function encodeForm(params: Params): string {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    form.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return form.toString();
}

export function port(): number {
  return inject('port');
}

export interface RequestOptions {
  method: string;
  path: string;
  host?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** A connection of its own instead of the shared keep-alive pool (for many parked polls). */
  ownConnection?: boolean;
}

/** GET /events (either API prefix): every event it answers is checked against the event catalog. */
const isEventPoll = (opts: RequestOptions) => opts.method === 'GET' && /^\/(api\/v1|json)\/events(\?|$)/.test(opts.path);

/**
 * One HTTP request to a server on this machine; the body is parsed as JSON when it is JSON.
 * Events a poll returns must each match a shape of the event catalog (src/events/catalog),
 * exactly: a field too many or too few fails the request, and with it the test.
 */
export function httpRequest(serverPort: number, opts: RequestOptions): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: serverPort,
        method: opts.method,
        path: opts.path,
        agent: opts.ownConnection ? false : agent,
        headers: { Host: opts.host ?? `localhost:${serverPort}`, ...opts.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: Reply['body'];
          try {
            body = JSON.parse(text);
          } catch {
            body = { __text: text };
          }
          if (isEventPoll(opts) && Array.isArray(body.events)) {
            const problems = (body.events as unknown[]).flatMap((e) => {
              const problem = checkEvent(e);
              return problem ? [`${problem}\n  in ${JSON.stringify(e)}`] : [];
            });
            if (problems.length) return reject(new Error(`events outside the catalog from ${opts.path}:\n${problems.join('\n')}`));
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** A request to the test run's shared server. */
export function rawRequest(opts: RequestOptions): Promise<Reply> {
  return httpRequest(port(), opts);
}

export class Client {
  constructor(
    readonly subdomain: string,
    readonly email?: string,
    readonly apiKey?: string,
    readonly userId?: number,
  ) {}

  get host(): string {
    return this.subdomain ? `${this.subdomain}.localhost:${port()}` : `localhost:${port()}`;
  }

  private authHeader(): Record<string, string> {
    if (!this.email || !this.apiKey) return {};
    return { Authorization: 'Basic ' + Buffer.from(`${this.email}:${this.apiKey}`).toString('base64') };
  }

  request(method: string, path: string, params: Params = {}, headers: Record<string, string> = {}): Promise<Reply> {
    const encoded = encodeForm(params);
    const inQuery = method === 'GET' || method === 'DELETE';
    const url = `/api/v1${path}${inQuery && encoded ? `?${encoded}` : ''}`;
    return rawRequest({
      method,
      path: url,
      host: this.host,
      headers: {
        ...this.authHeader(),
        ...(inQuery ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }),
        ...headers,
      },
      body: inQuery ? undefined : encoded,
    });
  }

  get(path: string, params?: Params) {
    return this.request('GET', path, params);
  }
  post(path: string, params?: Params, headers?: Record<string, string>) {
    return this.request('POST', path, params, headers);
  }
  patch(path: string, params?: Params) {
    return this.request('PATCH', path, params);
  }
  delete(path: string, params?: Params) {
    return this.request('DELETE', path, params);
  }

  /** A client for another user of the same realm. */
  as(user: { email: string; api_key: string; user_id: number }): Client {
    return new Client(this.subdomain, user.email, user.api_key, user.user_id);
  }

  anonymous(): Client {
    return new Client(this.subdomain);
  }
}

export interface CliUser {
  realm_id: number;
  subdomain: string;
  user_id: number;
  email: string;
  api_key: string;
  role: number;
}

export async function admin(args: string[], env: Record<string, string> = {}): Promise<CliUser> {
  const { stdout } = await run(process.execPath, ['dist/scripts/admin.js', ...args], {
    env: { ...process.env, DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'warn', ...env },
  });
  return JSON.parse(stdout) as CliUser;
}

let realmCounter = 0;

/** A new realm with its owner; each test file gets realms of its own (`env`: another DATABASE_URL). */
export async function newRealm(prefix = 'r', env: Record<string, string> = {}): Promise<{ owner: Client; ownerInfo: CliUser; subdomain: string }> {
  const subdomain = `${prefix}${process.pid}x${Date.now().toString(36)}${realmCounter++}`.toLowerCase().slice(0, 40);
  const info = await admin([
    'create-realm', '--subdomain', subdomain, '--name', `Realm ${subdomain}`,
    '--owner-email', `owner@${subdomain}.test`, '--owner-password', 'owner-password-1', '--owner-name', 'Olivia Owner',
  ], env);
  return { owner: new Client(subdomain, info.email, info.api_key, info.user_id), ownerInfo: info, subdomain };
}

/** Adds a user through the admin CLI (any role). */
export async function newUser(subdomain: string, name: string, role = 400, env: Record<string, string> = {}): Promise<Client> {
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}@${subdomain}.test`;
  const info = await admin([
    'create-user', '--realm', subdomain, '--email', email, '--password', 'user-password-1',
    '--full-name', name, '--role', String(role),
  ], env);
  return new Client(subdomain, info.email, info.api_key, info.user_id);
}
