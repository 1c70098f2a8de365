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

// Extended-query messages that leave a sequence open until the client's Sync.
const OPENS_SEQUENCE = new Set(['P', 'B', 'D', 'E', 'C', 'H'].map((c) => c.charCodeAt(0)));

/**
 * PGlite is one session, and pglite-socket multiplexes client connections onto it message by
 * message, keeping a connection exclusive only inside an explicit transaction. An extended
 * query (Parse, Bind, Execute … Sync) from one connection can then interleave with another
 * connection's, so one client executes the other's unnamed portal ("portal does not exist",
 * wrong rows). The multiplexer consults `isInTransaction()` to keep one connection exclusive:
 * this view of the database also reports an open extended-query sequence as such, so every
 * sequence runs whole.
 */
function sequenceAwareSession(db: PGlite): PGlite {
  let sequenceOpen = false;
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'isInTransaction') return () => sequenceOpen || target.isInTransaction();
      if (prop === 'execProtocolRawStream') {
        return (message: Uint8Array, opts: Parameters<PGlite['execProtocolRawStream']>[1]) => {
          const type = message[0]!;
          if (OPENS_SEQUENCE.has(type)) sequenceOpen = true;
          else if (type !== 0) sequenceOpen = false; // Sync, simple Query, Terminate, …
          return target.execProtocolRawStream(message, opts);
        };
      }
      if (prop === 'exec') {
        // The multiplexer rolls back with exec() when a connection drops mid-transaction.
        return (query: string, opts?: Parameters<PGlite['exec']>[1]) => {
          sequenceOpen = false;
          return target.exec(query, opts);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export async function startEmbeddedPostgres(dataDir: string, opts: { publish: boolean }): Promise<EmbeddedPostgres> {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(path.join(dataDir, 'pg'));
  const server = new PGLiteSocketServer({ db: sequenceAwareSession(db), host: '127.0.0.1', port: 0, maxConnections: 32 });
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
