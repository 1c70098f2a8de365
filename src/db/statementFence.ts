// A realm's write fence carried by a single statement. Where a realm's `sql` is fenced (in a
// cluster, see cluster/fencedSql.ts), every top-level statement runs in a transaction that
// first checks the realm's lease: BEGIN, the check, the statement and COMMIT. A hot write
// (a batch of sends) can instead carry the check itself, as a scalar subquery of its own
// result, and run alone, with no transaction around it: one statement instead of four.
import type { PendingQuery, Row } from 'postgres';
import type { Sql } from './connect.js';

export interface StatementFence {
  /**
   * A scalar subquery that is 1 while the lease is held, and otherwise fails the statement
   * (a division by zero), which then takes no effect. It locks the lease row as the check of
   * a transaction does, so a takeover waits until the statement has committed. The statement
   * must make Postgres evaluate it whatever the rest yields: as a column of a query that
   * always returns one row (an aggregate without GROUP BY), not of rows that may be none.
   */
  condition(): PendingQuery<Row[]>;
  /**
   * Runs a statement that carries `condition()`: refused at once when the lease is known to
   * be gone, and a failed condition reported as for a fenced transaction (the realm is not
   * here, nothing was written). The statement is given the pool to run on (not the fenced
   * sql, which would wrap it in a transaction). It must not divide by zero for another reason.
   */
  run<T>(statement: (pool: Sql) => Promise<T>): Promise<T>;
}

/** Where a fenced `sql` keeps its statement fence. */
export const STATEMENT_FENCE = Symbol('statementFence');

/** The statement fence of a realm's `sql`; null where writes are not fenced (one process). */
export function statementFence(sql: Sql): StatementFence | null {
  return ((sql as unknown as Record<symbol, StatementFence | undefined>)[STATEMENT_FENCE]) ?? null;
}
