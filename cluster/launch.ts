// A local cluster in one command, for development and tests:
//   npm run cluster -- --fronts 2 --workers 3 [--port 9991]
// Starts W workers and F fronts as child processes of this one, against DATABASE_URL (required)
// and REDIS_URL (default redis://127.0.0.1:6379), prints where to connect, forwards SIGINT and
// SIGTERM, and exits when the children have exited. It restarts nothing: a process that dies
// stays dead (kill one to watch its realms move).
import { spawn, type ChildProcess } from 'node:child_process';
import { SERVER_NODE_FLAGS } from '../src/nodeFlags.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { connectDatabase } from '../src/db/connect.js';
import { createDemoRealmIfEmpty } from '../src/worker/bootstrap.js';

const USAGE = 'usage: npm run cluster -- --fronts F --workers W [--port P]   (needs DATABASE_URL; REDIS_URL defaults to redis://127.0.0.1:6379)';

function intArg(argv: string[], name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(argv[i + 1]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} needs a whole number\n${USAGE}`);
  return n;
}

interface Child {
  name: string;
  proc: ChildProcess;
}

function start(name: string, role: 'front' | 'worker', env: NodeJS.ProcessEnv, onLine: (line: string) => void): Child {
  const main = path.join(path.dirname(fileURLToPath(import.meta.url)), 'main.js');
  // The server's flags, then those given to the launcher (--cpu-prof, --max-old-space-size …),
  // which win where both set one: they apply to every process it starts.
  // (A launcher started with the same flags, as `npm start` does, passes them on once.)
  const flags = [...SERVER_NODE_FLAGS.filter((f) => !process.execArgv.includes(f)), ...process.execArgv];
  const proc = spawn(process.execPath, [...flags, main, '--role', role], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [proc.stdout!, proc.stderr!]) {
    let rest = '';
    stream.on('data', (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop()!;
      for (const line of lines) onLine(line);
    });
  }
  return { name, proc };
}

/** Resolves with the first line matching `re` (the child printing where it listens). */
function waitForLine(child: Child, lines: string[], re: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      for (const line of lines) {
        const m = re.exec(line);
        if (m) {
          clearInterval(timer);
          resolve(m);
          return;
        }
      }
      if (child.proc.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`${child.name} exited during start (code ${child.proc.exitCode})`));
      }
    }, 50);
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help')) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const fronts = intArg(argv, 'fronts', 1);
  const workers = intArg(argv, 'workers', 2);
  if (fronts < 1 || workers < 1) throw new Error(`a cluster needs at least one front and one worker\n${USAGE}`);
  if (!process.env.DATABASE_URL) throw new Error(`DATABASE_URL is not set: a cluster shares one PostgreSQL\n${USAGE}`);
  const env: NodeJS.ProcessEnv = { ...process.env, REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
  const config = loadConfig(env);
  const basePort = intArg(argv, 'port', config.PORT);

  // Migrate once and create the demo organization (first start) before the processes start.
  const db = await connectDatabase({ databaseUrl: env.DATABASE_URL, dataDir: config.dataDir, role: 'tool' });
  if (config.DEMO_REALM) {
    const banner = await createDemoRealmIfEmpty(db.sql, { ...config, externalHost: env.EXTERNAL_HOST ?? `localhost:${basePort}` });
    if (banner) process.stdout.write(banner);
  }
  await db.close();

  const children: Child[] = [];
  let stopping = false;
  const relay = (name: string, lines: string[]) => (line: string) => {
    lines.push(line);
    if (lines.length > 50) lines.shift();
    process.stdout.write(`[${name}] ${line}\n`);
  };
  const watch = (child: Child) => {
    child.proc.on('exit', (code, signal) => {
      process.stdout.write(`[launcher] ${child.name} exited (${signal ?? `code ${code}`})${stopping ? '' : '; not restarted'}\n`);
      if (children.every((c) => c.proc.exitCode !== null || c.proc.signalCode !== null)) process.exit(stopping ? 0 : 1);
    });
  };
  const workerInfo: string[] = [];
  for (let i = 1; i <= workers; i++) {
    const name = `worker-${i}`;
    const lines: string[] = [];
    const child = start(name, 'worker', { ...env, WORKER_ID: name, WORKER_HOST: env.WORKER_HOST ?? '127.0.0.1', WORKER_METRICS_PORT: env.WORKER_METRICS_PORT ?? '0', DEMO_REALM: 'false' }, relay(name, lines));
    children.push(child);
    watch(child);
    const m = await waitForLine(child, lines, /serving realms on (\S+) \(health and metrics on port (\d+)\)/);
    workerInfo.push(`${name} at ${m[1]}, health and metrics on http://127.0.0.1:${m[2]}/metrics`);
  }
  const urls: string[] = [];
  for (let i = 0; i < fronts; i++) {
    const name = `front-${i + 1}`;
    const port = basePort + i;
    const lines: string[] = [];
    const child = start(name, 'front', { ...env, PORT: String(port), EXTERNAL_HOST: env.EXTERNAL_HOST ?? `localhost:${port}`, DEMO_REALM: 'false' }, relay(name, lines));
    children.push(child);
    watch(child);
    await waitForLine(child, lines, /Front listening/);
    urls.push(`http://localhost:${port}`);
  }
  process.stdout.write(
    ['', 'Cluster running:', ...urls.map((u) => `  front   ${u}  (health: ${u}/health)`), ...workerInfo.map((w) => `  ${w}`),
      `  Redis prefix ${env.REDIS_PREFIX ?? 'chat:'}; Ctrl-C stops everything.`, ''].join('\n'),
  );
  const forward = (sig: NodeJS.Signals) => {
    stopping = true;
    for (const c of children) if (c.proc.exitCode === null) c.proc.kill(sig);
  };
  process.on('SIGINT', () => forward('SIGINT'));
  process.on('SIGTERM', () => forward('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
