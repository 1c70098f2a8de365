// A server of a test's own (for settings that are per process: jobs, timers, limits), a
// client bound to it, Redis keys under its prefix, and waiting for a condition.
import { Redis } from 'ioredis';
import type { ChildProcess } from 'node:child_process';
import { inject } from 'vitest';
import { startServer, stopServer } from './globalSetup.js';
import { encodeForm, httpRequest, type Client, type Params, type Reply } from './client.js';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface OwnServer {
  port: number;
  /** REDIS_PREFIX of the server. */
  prefix: string;
  proc: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * A server on the test database with extra settings. With `redis`, jobs go through BullMQ
 * under a prefix of its own, whose keys are removed on stop.
 */
export async function startOwnServer(env: Record<string, string>, redis: boolean): Promise<OwnServer> {
  const prefix = `jobs-e2e-${process.pid}-${Date.now().toString(36)}:`;
  const s = await startServer({
    DATABASE_URL: inject('databaseUrl'),
    DEMO_REALM: 'false',
    REDIS_URL: redis ? REDIS_URL : '',
    REDIS_PREFIX: prefix,
    ...env,
  });
  return {
    ...s,
    prefix,
    async stop() {
      await stopServer(s.proc);
      if (redis) await removeRedisKeys(prefix);
    },
  };
}

/** Every Redis key that starts with the prefix. */
export async function redisKeys(prefix: string): Promise<string[]> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const out: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      out.push(...keys);
    } while (cursor !== '0');
    return out;
  } finally {
    await redis.quit();
  }
}

export async function removeRedisKeys(prefix: string): Promise<void> {
  const keys = await redisKeys(prefix);
  if (keys.length === 0) return;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}

/** A test client's user, speaking to another server than the shared one. */
export class OwnClient {
  constructor(
    readonly port: number,
    readonly user: Client,
  ) {}

  get userId(): number {
    return this.user.userId!;
  }

  request(method: string, path: string, params: Params = {}): Promise<Reply> {
    const encoded = encodeForm(params);
    const inQuery = method === 'GET' || method === 'DELETE';
    const headers: Record<string, string> = {
      Host: `${this.user.subdomain}.localhost:${this.port}`,
      Authorization: 'Basic ' + Buffer.from(`${this.user.email}:${this.user.apiKey}`).toString('base64'),
    };
    if (!inQuery) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    const path_ = `/api/v1${path}${inQuery && encoded ? `?${encoded}` : ''}`;
    return httpRequest(this.port, { method, path: path_, host: headers.Host, headers, body: inQuery ? undefined : encoded });
  }

  get(path: string, params?: Params) {
    return this.request('GET', path, params);
  }
  post(path: string, params?: Params) {
    return this.request('POST', path, params);
  }
  patch(path: string, params?: Params) {
    return this.request('PATCH', path, params);
  }
  delete(path: string, params?: Params) {
    return this.request('DELETE', path, params);
  }

  /** Succeeds or throws with the reply. */
  async ok(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, params?: Params): Promise<Reply['body']> {
    const r = await this.request(method, path, params);
    if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }
}

export async function until<T>(probe: () => T | Promise<T>, what: string, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
