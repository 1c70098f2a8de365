// Database connection: a real Postgres from DATABASE_URL, or the embedded one under DATA_DIR.
import postgres from 'postgres';
import { runningEmbeddedUrl, startEmbeddedPostgres, type EmbeddedPostgres } from './embedded.js';
import { migrate } from './migrate.js';

export type Sql = postgres.Sql;

export interface Database {
  sql: Sql;
  embedded: boolean;
  close(): Promise<void>;
}

export interface ConnectOptions {
  databaseUrl?: string;
  dataDir: string;
  /** Connections in the pool (the embedded server executes one statement at a time anyway). */
  max?: number;
  /** The server publishes its embedded endpoint; tools connect to it instead of opening the files. */
  role: 'server' | 'tool';
}

export async function connectDatabase(opts: ConnectOptions): Promise<Database> {
  let embedded: EmbeddedPostgres | null = null;
  let url = opts.databaseUrl;
  if (!url) {
    const running = runningEmbeddedUrl(opts.dataDir);
    // PGlite files opened by two processes at once get corrupted: a second server refuses.
    if (running && opts.role === 'server') {
      throw new Error(`The embedded database in ${opts.dataDir} is in use by another server process; stop it or choose another DATA_DIR`);
    }
    url = running ?? undefined;
    if (!url) {
      embedded = await startEmbeddedPostgres(opts.dataDir, { publish: opts.role === 'server' });
      url = embedded.url;
    }
  }
  const sql = postgres(url, {
    max: opts.max ?? (embedded || !opts.databaseUrl ? 4 : 10),
    onnotice: () => undefined,
    // bigint counts come back as strings by default; ids here fit in int4.
    types: {},
  });
  await migrate(sql);
  return {
    sql,
    embedded: !opts.databaseUrl,
    async close() {
      await sql.end({ timeout: 5 });
      if (embedded) await embedded.stop();
    },
  };
}
