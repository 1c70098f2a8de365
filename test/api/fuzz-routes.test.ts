// Property-based fuzzing of the whole route table (src/api/routes.ts): for every parameter of
// every route, values that must be refused (NUL in text, NUL inside JSON, integers past the
// exact range, malformed JSON, wrong types) are sent with type-correct values for the other
// parameters. Each must get a 4xx JSON envelope with a `code`, within a deadline, and the
// database must be byte-for-byte what it was (a digest of every table before and after).
// Then hostile values a parameter's type accepts (very long text, huge numbers, control
// characters, lone surrogates, deep JSON) go to every route: none may answer 5xx or hang, and
// the server must still be alive at the end. Runs its own server on its own database, so the
// digest sees no other test's writes.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import postgres from 'postgres';
import type { z } from 'zod';
import { endpoints } from '../../src/api/routes.js';
import type { Endpoint } from '../../src/api/endpoint.js';
import { createDatabase, startServer, stopServer } from '../helpers/globalSetup.js';
import { admin, encodeForm } from '../helpers/client.js';

/** Random values per parameter and phase (after the fixed examples); FUZZ_RUNS=20 for a longer local run. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1);
const DEADLINE_MS = 15_000;

let db: Awaited<ReturnType<typeof createDatabase>>;
let server: Awaited<ReturnType<typeof startServer>>;
let sql: postgres.Sql;
let auth = '';
let host = '';
const subdomain = 'fuzz';

interface Answer {
  status: number;
  text: string;
  /** The request line's length: a head past the documented limit gets uWebSockets' own 431. */
  headBytes: number;
}

/** The front's documented limit on a request head (README, UWS_HTTP_MAX_HEADERS_SIZE). */
const MAX_HEAD_BYTES = 64 * 1024;

/** One request with a deadline: a hang fails the test instead of stalling it. */
function send(method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1', port: server.port, method, path, agent: false,
        headers: {
          Host: host, Authorization: auth,
          ...(body !== undefined ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), headBytes: path.length }));
      },
    );
    req.setTimeout(DEADLINE_MS, () => req.destroy(new Error(`no answer within ${DEADLINE_MS} ms: ${method} ${path.slice(0, 200)}`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** A digest of every row of every table. */
async function digest(): Promise<Record<string, string>> {
  const tables = await sql<{ name: string }[]>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`;
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    const [row] = await sql.unsafe<{ d: string | null }[]>(`SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS d FROM "${name}" t`);
    out[name] = row?.d ?? 'empty';
  }
  return out;
}

const accepts = (schema: z.ZodType, v: unknown) => schema.safeParse(v).success;
const deepNul = (v: unknown): boolean =>
  typeof v === 'string' ? v.includes('\0')
    : Array.isArray(v) ? v.some(deepNul)
      : v !== null && typeof v === 'object' ? Object.entries(v).some(([k, x]) => k.includes('\0') || deepNul(x)) : false;
/** NUL as sent, or in what the parameter's schema makes of the value (JSON decoded). */
function hasNul(schema: z.ZodType, v: string): boolean {
  if (v.includes('\0')) return true;
  const parsed = schema.safeParse(v);
  return parsed.success && deepNul(parsed.data);
}

/** A value the parameter's schema takes, or undefined to leave an optional one out. */
const FILLERS = ['1', 'true', 'x', '[]', '{}', '[1]', '"x"', 'stream', 'private', 'add', 'newest', '0'];
function filler(schema: z.ZodType, inPath: boolean): string | undefined {
  if (!inPath && accepts(schema, undefined)) return undefined;
  return FILLERS.find((v) => accepts(schema, v)) ?? '1';
}

/** A lone surrogate has no UTF-8: it goes as the bytes of one (%ED%A0%80), malformed on purpose. */
function encodeSegment(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return v.replace(/[\ud800-\udfff]/g, '\ud800').split('\ud800').map(encodeURIComponent).join('%ED%A0%80');
  }
}

const pathParams = (ep: Endpoint) => [...ep.path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1]!);

function request(ep: Endpoint, values: Record<string, string | undefined>): Promise<Answer> {
  const inPath = new Set(pathParams(ep));
  const path = ep.path.replace(/\{(\w+)\+?\}/g, (_, name: string) => encodeSegment(values[name] ?? '1'));
  const form: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined && !inPath.has(k)) form[k] = v;
  const encoded = encodeForm(form);
  const inQuery = ep.method === 'GET' || ep.method === 'DELETE';
  return send(ep.method, `/api/v1${path}${inQuery && encoded ? `?${encoded}` : ''}`, inQuery ? undefined : encoded);
}

function fillersFor(ep: Endpoint, except: string): Record<string, string | undefined> {
  const inPath = new Set(pathParams(ep));
  const values: Record<string, string | undefined> = {};
  for (const [name, schema] of Object.entries(ep.params)) if (name !== except) values[name] = filler(schema, inPath.has(name));
  return values;
}

const nulText = fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 })).map(([a, b]) => `${a}\0${b}`);
const badRaw = fc.oneof(
  nulText,
  nulText.map((s) => JSON.stringify([s])),
  nulText.map((s) => JSON.stringify({ name: s, value: s })),
  nulText.map((s) => JSON.stringify(s)),
  fc.tuple(fc.bigInt({ min: 2n ** 53n + 1n, max: 2n ** 80n }), fc.boolean()).map(([n, neg]) => String(neg ? -n : n)),
  fc.constantFrom('1e400', 'NaN', '-', '[', '{"a":', '[1,', 'truex', '1.5', '0x10', ' ', '[[[[[[', '{"a":{"b":['),
  fc.string({ maxLength: 30 }),
);
/** A value this parameter must refuse: NUL somewhere, or not of its type. */
/** An empty path segment would name another route (`/streams/` is `/streams`). */
const mustRefuse = (schema: z.ZodType, inPath: boolean) =>
  badRaw.filter((v) => (!inPath || v.trim() !== '') && (hasNul(schema, v) || !accepts(schema, v)));

/** Tried on every parameter before the random ones (fast-check `examples`). */
const HOSTILE_EXAMPLES: [string][] = [
  ['x'.repeat(200_000)], [String(Number.MAX_SAFE_INTEGER)], ['\u0001\u001f\u007f\u0085\u2028'], ['['.repeat(5000) + ']'.repeat(5000)],
];

const hostile = fc.oneof(
  fc.constantFrom(
    'x'.repeat(200_000), '😀'.repeat(20_000), '\u0001\u001f\u007f\u0085\u2028', '\ud800', 'a\udfffb',
    String(Number.MAX_SAFE_INTEGER), String(-Number.MAX_SAFE_INTEGER), '-1', '0', '2147483648', '-2147483649',
    '['.repeat(5000) + ']'.repeat(5000), JSON.stringify(Array.from({ length: 5000 }, (_, i) => i)),
    JSON.stringify(['x'.repeat(100_000)]), '{"__proto__":{"x":1}}', '(((((((((((a*)*)*)*)*)*)*)*)*)*)*)$',
    'https://example.com/{code}', '#(?P<id>[0-9]+)', '\\', '%', '../../etc/passwd',
  ),
  fc.string({ unit: 'binary', maxLength: 50 }).filter((s) => !s.includes('\0')),
);

/** Would undo the test's own footing (its credentials, its realm's owner) or park for long. */
const NOT_HOSTILE = new Set([
  'DELETE /users/me', 'POST /users/me/api_key/regenerate', 'POST /logout', 'GET /events',
  'DELETE /users/{user}', 'PATCH /users/{user}', 'PATCH /settings', 'PATCH /realm',
]);

function expectRefused(a: Answer, what: string): void {
  expect(a.status, `${what} → ${a.status} ${a.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(a.status, `${what} → ${a.status} ${a.text.slice(0, 300)}`).toBeLessThan(500);
  const body = JSON.parse(a.text) as Record<string, unknown>;
  expect(body.result, what).toBe('error');
  expect(typeof body.code, what).toBe('string');
}

function expectAnswered(a: Answer, what: string): void {
  if (a.status === 431 && a.headBytes > MAX_HEAD_BYTES) return;
  expect(a.status, `${what} → ${a.status} ${a.text.slice(0, 300)}`).toBeLessThan(500);
  const body = JSON.parse(a.text) as Record<string, unknown>;
  if (a.status >= 400) expect(typeof body.code, `${what}: ${a.text.slice(0, 300)}`).toBe('string');
  else expect(body.result, what).toBe('success');
}

const describeCase = (ep: Endpoint, name: string, v: string) => `${ep.method} ${ep.path} ${name}=${JSON.stringify(v.slice(0, 60))}`;

beforeAll(async () => {
  db = await createDatabase('chat_fuzz');
  server = await startServer({ DATABASE_URL: db.url, DEMO_REALM: 'false', LOG_LEVEL: 'fatal' });
  sql = postgres(db.url, { max: 2, onnotice: () => undefined });
  const owner = await admin(
    ['create-realm', '--subdomain', subdomain, '--name', 'Fuzz', '--owner-email', `owner@${subdomain}.test`,
      '--owner-password', 'owner-password-1', '--owner-name', 'Olivia Owner'],
    { DATABASE_URL: db.url },
  );
  auth = 'Basic ' + Buffer.from(`${owner.email}:${owner.api_key}`).toString('base64');
  host = `${subdomain}.localhost:${server.port}`;
  // Something to aim at: a message, a group, a linkifier, a draft.
  const post = (path: string, params: Record<string, unknown>) => send('POST', `/api/v1${path}`, encodeForm(params));
  expect((await post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }] })).status).toBe(200);
  expect((await post('/messages', { type: 'stream', to: 'general', topic: 'fuzz', content: 'hello' })).status).toBe(200);
  expect((await post('/user_groups/create', { name: 'fuzzers', description: 'd', members: [owner.user_id] })).status).toBe(200);
  expect((await post('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://x.example/{id}' })).status).toBe(200);
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  if (server) await stopServer(server.proc);
  await db?.drop();
});

describe('every route refuses bad values and changes nothing', () => {
  it('covers every parameter of every route', async () => {
    const before = await digest();
    let cases = 0;
    for (const ep of endpoints) {
      for (const [name, schema] of Object.entries(ep.params)) {
        const others = fillersFor(ep, name);
        await fc.assert(
          fc.asyncProperty(mustRefuse(schema, pathParams(ep).includes(name)), async (bad) => {
            cases++;
            expectRefused(await request(ep, { ...others, [name]: bad }), describeCase(ep, name, bad));
          }),
          // A NUL in the raw value is refused whatever the parameter's type.
          { numRuns: RUNS, examples: [['a\u0000b']] },
        );
      }
    }
    expect(cases).toBeGreaterThan(endpoints.length);
    expect(await digest()).toEqual(before);
  }, 300_000);
});

describe('hostile values of the right type', () => {
  it('never answer 5xx nor hang, and the server lives on', async () => {
    for (const ep of endpoints) {
      if (NOT_HOSTILE.has(`${ep.method} ${ep.path}`)) continue;
      for (const name of Object.keys(ep.params)) {
        const others = fillersFor(ep, name);
        await fc.assert(
          fc.asyncProperty(hostile, async (value) => {
            expectAnswered(await request(ep, { ...others, [name]: value }), describeCase(ep, name, value));
          }),
          { numRuns: RUNS, examples: HOSTILE_EXAMPLES },
        );
      }
    }
    expect(server.proc.exitCode).toBeNull();
    const health = await send('GET', '/health');
    expect(health.status).toBe(200);
  }, 300_000);
});
