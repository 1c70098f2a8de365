// Helpers for the event-queue tests: register a queue, read it without blocking, and run a
// server of our own (for settings the shared test server must not have, like tiny queues).
import type { ChildProcess } from 'node:child_process';
import { inject } from 'vitest';
import { Client, encodeForm, httpRequest, type Params, type Reply } from '../helpers/client.js';
import { startServer, stopServer } from '../helpers/globalSetup.js';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export async function register(c: Client, params: Params = {}): Promise<Body> {
  const r = await c.post('/register', params);
  if (r.status !== 200) throw new Error(`register failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A queue for event tests: no initial state, so registering stays cheap. */
export async function queueFor(c: Client, params: Params = {}): Promise<string> {
  return (await register(c, { fetch_event_types: [], ...params })).queue_id as string;
}

/** Every event waiting in the queue (non-blocking, nothing acknowledged). */
export async function eventsNow(c: Client, queueId: string): Promise<Body[]> {
  const r = await c.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  if (r.status !== 200) throw new Error(`poll failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.events as Body[];
}

export async function eventsOfType(c: Client, queueId: string, type: string): Promise<Body[]> {
  return (await eventsNow(c, queueId)).filter((e) => e.type === type);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A client of another server: same API, its own port. */
export class PortClient extends Client {
  constructor(
    readonly serverPort: number,
    subdomain: string,
    email?: string,
    apiKey?: string,
    userId?: number,
  ) {
    super(subdomain, email, apiKey, userId);
  }

  static of(port: number, c: Client): PortClient {
    return new PortClient(port, c.subdomain, c.email, c.apiKey, c.userId);
  }

  override get host(): string {
    return this.subdomain ? `${this.subdomain}.localhost:${this.serverPort}` : `localhost:${this.serverPort}`;
  }

  override request(method: string, path: string, params: Params = {}): Promise<Reply> {
    const encoded = encodeForm(params);
    const inQuery = method === 'GET' || method === 'DELETE';
    const auth: Record<string, string> = this.email && this.apiKey ? { Authorization: 'Basic ' + Buffer.from(`${this.email}:${this.apiKey}`).toString('base64') } : {};
    const headers: Record<string, string> = { ...auth, ...(inQuery ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }) };
    const url = `/api/v1${path}${inQuery && encoded ? `?${encoded}` : ''}`;
    return httpRequest(this.serverPort, { method, path: url, host: this.host, headers, body: inQuery ? undefined : encoded, ownConnection: true });
  }
}

/** A server of our own on the test database (realms made with newRealm work on it too). */
export async function ownServer(
  env: Record<string, string>,
): Promise<{ port: number; proc: ChildProcess; output: () => string; stop: () => Promise<void> }> {
  const { proc, port, output } = await startServer({ DATABASE_URL: inject('databaseUrl'), DEMO_REALM: 'false', ...env });
  return { port, proc, output, stop: () => stopServer(proc) };
}

// A small inspector client, run in a child process (Node 20 has WebSocket behind a flag): it
// collects garbage in the server and evaluates an expression there.
const INSPECT_SCRIPT = `
const [url, expression] = process.argv.slice(1);
const ws = new WebSocket(url);
let next = 1;
const pending = new Map();
const call = (method, params = {}) => new Promise((resolve) => {
  const id = next++;
  pending.set(id, resolve);
  ws.send(JSON.stringify({ id, method, params }));
});
ws.onmessage = (m) => {
  const msg = JSON.parse(m.data);
  if (pending.has(msg.id)) pending.get(msg.id)(msg.result);
};
ws.onopen = async () => {
  await call('HeapProfiler.collectGarbage');
  await call('HeapProfiler.collectGarbage');
  const r = await call('Runtime.evaluate', { expression, returnByValue: true });
  process.stdout.write(JSON.stringify(r.result.value));
  ws.close();
  process.exit(0);
};
`;

/** The inspector address a server started with `--inspect=127.0.0.1:0` printed. */
export async function inspectorUrl(output: () => string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const m = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(output());
    if (m) return m[0];
    await sleep(100);
  }
  throw new Error(`no inspector address in server output:\n${output()}`);
}

/** Forces a full garbage collection in the server, then evaluates `expression` there. */
export async function evaluateAfterGc(url: string, expression: string): Promise<unknown> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--experimental-websocket', '--no-warnings', '-e', INSPECT_SCRIPT, url, expression], { timeout: 20_000 }, (err, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout)),
    );
  });
}
