// Starts one server for the test run against a fresh Postgres database, and drops the
// database afterwards. Test files create their own realms, so they run in parallel.
// Postgres must be reachable (TEST_PG_URL, default the local server): tests fail, not skip,
// when it is not.
import { spawn, type ChildProcess } from 'node:child_process';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { freePort } from '../../scripts/freePort.js';

export const ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function createDatabase(prefix: string): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: databaseUrl(name),
    async drop() {
      const a = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
      try {
        await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}

export async function startServer(env: Record<string, string>, deadlineMs = 30_000): Promise<{ proc: ChildProcess; port: number; output: () => string }> {
  const port = await freePort();
  let out = '';
  const proc = spawn(process.execPath, ['dist/src/main.js'], {
    // API rate limits off unless a test turns them on (failed logins stay limited).
    env: { ...process.env, PORT: String(port), EXTERNAL_HOST: `localhost:${port}`, LOG_LEVEL: 'warn', HEARTBEAT_SECONDS: '2', RATE_LIMITS: process.env.RATE_LIMITS ?? 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      if (r.ok) return { proc, port, output: () => out };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGKILL');
  throw new Error(`server did not become healthy:\n${out}`);
}

export async function stopServer(proc: ChildProcess): Promise<void> {
  // Already gone (exited, or killed by a signal: then exitCode stays null).
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

declare module 'vitest' {
  export interface ProvidedContext {
    port: number;
    databaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const db = await createDatabase('chat_test');
  const server = await startServer({ DATABASE_URL: db.url, DEMO_REALM: 'false' });
  project.provide('port', server.port);
  project.provide('databaseUrl', db.url);
  return async () => {
    await stopServer(server.proc);
    await db.drop();
  };
}
