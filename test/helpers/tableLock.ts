// A table locked by the test (ACCESS EXCLUSIVE, in a transaction of its own): whatever reads
// it waits until the test releases the lock, or fails when the test cancels its query. Used to
// hold a request at a known point, or to make it fail there, on a database of the test's own.
import postgres from 'postgres';

export interface TableLock {
  /** Backends waiting for the lock. */
  waiting(): Promise<number[]>;
  /** Cancels the queries waiting for the lock (they fail with query_canceled). */
  cancelWaiting(): Promise<void>;
  /** Ends the transaction: the waiting queries go on. */
  release(): Promise<void>;
}

export async function lockTable(databaseUrl: string, table: string): Promise<TableLock> {
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => undefined });
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: (pid: number) => void;
  const holder = new Promise<number>((r) => (locked = r));
  const tx = sql.begin(async (tx) => {
    await tx.unsafe(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    const [row] = await tx<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
    locked(row!.pid);
    await released;
  });
  const pid = await Promise.race([holder, tx.then(() => Promise.reject(new Error(`the lock on ${table} ended early`)))]);
  const waiting = async () => (await sql<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE ${pid} = ANY(pg_blocking_pids(pid))`).map((r) => r.pid);
  return {
    waiting,
    async cancelWaiting() {
      for (const p of await waiting()) await sql`SELECT pg_cancel_backend(${p})`;
    },
    async release() {
      release();
      try {
        await tx;
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}
