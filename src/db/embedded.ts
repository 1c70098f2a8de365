// Embedded Postgres for the zero-configuration mode: PGlite on disk under DATA_DIR, served
// over the Postgres wire protocol on loopback so the same `postgres` driver (and the admin
// CLI, from another process) talk to it exactly as to a real server.
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

interface EndpointFile { port: number; pid: number }

export const endpointFile = (dataDir: string) => path.join(dataDir, 'embedded-postgres.json');

/** The URL of an embedded server already running for this data dir, if its owner is alive. */
export function runningEmbeddedUrl(dataDir: string): string | null {
  try {
    const info = JSON.parse(fs.readFileSync(endpointFile(dataDir), 'utf8')) as EndpointFile;
    process.kill(info.pid, 0);
    return `postgres://postgres@127.0.0.1:${info.port}/postgres`;
  } catch {
    return null;
  }
}

export async function startEmbeddedPostgres(dataDir: string, opts: { publish: boolean }): Promise<EmbeddedPostgres> {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(path.join(dataDir, 'pg'));
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 32 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  if (opts.publish) {
    const info: EndpointFile = { port, pid: process.pid };
    fs.writeFileSync(endpointFile(dataDir), JSON.stringify(info));
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      if (opts.publish) fs.rmSync(endpointFile(dataDir), { force: true });
      await server.stop();
      await db.close();
    },
  };
}
