// A postgres.js `sql` for one realm whose every query runs in a transaction that first checks
// the realm's lease (owner and epoch) with FOR KEY SHARE. If this worker lost the realm, the
// check fails, which aborts the transaction: nothing commits. Actions keep using `actor.sql`
// unchanged: `sql.begin(fn)` gets the check as its first statement, a top-level tagged
// template runs as a one-statement fenced transaction (BEGIN, the check, the statement and
// COMMIT sent together: one round trip instead of three), and helpers (`sql.json(x)`,
// `sql(array)`, `sql.array(x)`, fragments) pass through.
import type { Sql } from '../src/db/connect.js';
import { sessionLost } from '../src/db/failures.js';

/** How a realm's transactions are fenced (see LeaseManager). */
export interface Fence {
  /** Throws when this process no longer holds the realm by its own reckoning. */
  held(): void;
  /**
   * Issues the check's statement on a transaction at once (before returning). The statement
   * fails when the lease is not (or no longer) ours, aborting the transaction; the promise
   * then rejects with the error to report.
   */
  check(tx: Sql): Promise<void>;
}

type Begin = (...args: unknown[]) => Promise<unknown>;
type Tagged = (strings: TemplateStringsArray, ...values: unknown[]) => unknown;
type Unsafe = (query: string, args?: unknown[], options?: unknown) => unknown;

interface QueryFlags {
  isRaw?: boolean | 'values';
}

// Ways of running a query other than awaiting it; actions do not use them on actor.sql.
const UNSUPPORTED = ['execute', 'cursor', 'forEach', 'describe', 'readable', 'writable'] as const;

function isTemplate(x: unknown): x is TemplateStringsArray {
  return Array.isArray(x) && Array.isArray((x as unknown as { raw?: unknown }).raw);
}

const errorCode = (err: unknown) => (err as { code?: string } | null)?.code ?? '';
// Ended by idle_in_transaction_session_timeout: Postgres was still waiting for the next
// statement, so a COMMIT had not reached it, and the transaction rolled back.
const endedIdle = (err: unknown) => errorCode(err) === '25P03';

/**
 * Runs `fn` inside a transaction whose first statement is the fence check. The check and the
 * first statements of `fn` are pipelined (no extra round trip); whatever `fn` did is rolled
 * back if the check fails, because the error is thrown before the transaction commits.
 *
 * If the session ends while `fn` runs (see LeaseManager.check: a stalled transaction is ended
 * by Postgres), the caller gets the connection error at once, and the transaction's callback
 * never settles: postgres.js would otherwise send COMMIT or ROLLBACK on the closed (or already
 * reused) connection, which throws outside any promise and would end the process.
 */
function fencedBegin(pool: Sql, fence: Fence, interrupted: (err: unknown) => Error): Begin {
  return (...args: unknown[]) => {
    const fn = args.pop() as (tx: Sql) => unknown;
    const begin = pool.begin as unknown as Begin;
    let lost = false;
    let committing = false;
    const outer = begin.call(pool, ...args, async (tx: Sql) => {
      // Issued before fn's statements; settles to the error (or null) so that a failed check
      // is never an unhandled rejection.
      let checking: Promise<void>;
      try {
        fence.held();
        checking = fence.check(tx);
      } catch (err) {
        checking = Promise.reject(err);
      }
      const checked = checking.then(
        () => null,
        (err: unknown) => err,
      );
      let result: unknown;
      try {
        result = await fn(tx);
        if (Array.isArray(result) && result.some((r) => r instanceof Promise)) result = await Promise.all(result);
      } catch (err) {
        const fenceError = await checked;
        if (lost || sessionLost(err) || sessionLost(fenceError)) return NEVER;
        throw fenceError ?? err;
      }
      const fenceError = await checked;
      if (lost || sessionLost(fenceError)) return NEVER;
      if (fenceError) throw fenceError;
      committing = true;
      return result;
    });
    return outer.catch((err: unknown) => {
      if (!sessionLost(err)) throw err;
      lost = true;
      // Ended before COMMIT reached Postgres: nothing committed, the request may be sent
      // again. Ended otherwise during COMMIT: the outcome is unknown, and the error says so.
      throw committing && !endedIdle(err) ? err : interrupted(err);
    });
  };
}

const NEVER = new Promise<never>(() => undefined);

/**
 * Turns a query built by the pool (so it still works as a fragment inside another query)
 * into one that, when awaited, runs through `run` instead of straight on the pool.
 */
function deferToFence<Q extends object>(query: Q, run: () => Promise<unknown>): Q {
  let started: Promise<unknown> | null = null;
  const start = () => (started ??= run());
  Object.defineProperties(query, {
    then: { value: (ok?: (v: unknown) => unknown, fail?: (e: unknown) => unknown) => start().then(ok, fail) },
    catch: { value: (fail?: (e: unknown) => unknown) => start().catch(fail) },
    finally: { value: (f?: () => void) => start().finally(f) },
  });
  for (const name of UNSUPPORTED) {
    Object.defineProperty(query, name, {
      value: () => {
        throw new Error(`${name}() is not available on a realm's fenced connection; use sql.begin(tx => tx\`…\`.${name}(…))`);
      },
    });
  }
  return query;
}

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };
const settle = (p: PromiseLike<unknown>): Promise<Settled> =>
  Promise.resolve(p.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error })));

/**
 * Runs one statement as a fenced transaction in one round trip: BEGIN, the fence check, the
 * statement and COMMIT are issued together on a reserved connection, without waiting for
 * each other's answers. A failed check aborts the transaction, so the statement then fails
 * too and COMMIT ends it without committing anything. If the session ends meanwhile, the
 * outcome is unknown (COMMIT went out with the rest), unless the check or the statement had
 * already failed; the session's error says so, as for a COMMIT under way (see fencedBegin).
 */
async function fencedStatement(pool: Sql, fence: Fence, issue: (conn: Sql) => PromiseLike<unknown>): Promise<unknown> {
  fence.held();
  const conn = (await (pool as unknown as { reserve(): Promise<Sql & { release(): void }> }).reserve());
  try {
    fence.held();
  } catch (err) {
    conn.release();
    throw err;
  }
  // Each is issued (then'd) in this order before the next, so they go out in this order.
  const begun = settle(conn.unsafe('BEGIN'));
  const checked = settle(fence.check(conn));
  const done = settle(issue(conn));
  const committed = settle(conn.unsafe('COMMIT'));
  const [b, f, d, c] = await Promise.all([begun, checked, done, committed]);
  const ended = (s: Settled) => !s.ok && sessionLost(s.error);
  // A connection whose session ended is back with the pool already (to connect again).
  if (![b, f, d, c].some(ended)) conn.release();
  // A failed check or statement: nothing committed, whatever became of the session after.
  if (!f.ok && !ended(f)) throw f.error;
  if (!d.ok && !ended(d)) throw d.error;
  for (const s of [b, f, d, c]) if (!s.ok) throw s.error;
  return d.ok ? d.value : undefined;
}

/**
 * `interrupted` makes the error for a transaction whose session ended before it tried to
 * commit (so nothing of it committed).
 */
export function fencedSql(pool: Sql, fence: Fence, interrupted: (err: unknown) => Error): Sql {
  const begin = fencedBegin(pool, fence, interrupted);
  const tagged = (strings: TemplateStringsArray, values: unknown[]) => {
    const query = (pool as unknown as Tagged)(strings, ...values) as object;
    return deferToFence(query, () =>
      fencedStatement(pool, fence, (conn) => {
        const q = (conn as unknown as Tagged)(strings, ...values) as QueryFlags & Promise<unknown>;
        q.isRaw = (query as QueryFlags).isRaw;
        return q;
      }),
    );
  };
  const unsafe: Unsafe = (text, args, options) => {
    const query = (pool.unsafe as unknown as Unsafe)(text, args, options) as object;
    return deferToFence(query, () =>
      fencedStatement(pool, fence, (conn) => {
        const q = (conn.unsafe as unknown as Unsafe)(text, args, options) as QueryFlags & Promise<unknown>;
        q.isRaw = (query as QueryFlags).isRaw;
        return q;
      }),
    );
  };
  return new Proxy(pool, {
    apply(target, thisArg, args: unknown[]) {
      if (isTemplate(args[0])) return tagged(args[0], args.slice(1));
      // sql(array), sql(object, ...columns), sql('identifier'): builders, no query of their own.
      return Reflect.apply(target as unknown as (...a: unknown[]) => unknown, thisArg, args);
    },
    get(target, prop, receiver) {
      if (prop === 'begin') return begin;
      if (prop === 'unsafe') return unsafe;
      if (prop === 'file' || prop === 'reserve' || prop === 'listen' || prop === 'subscribe') {
        return () => {
          throw new Error(`sql.${String(prop)} is not available on a realm's fenced connection`);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}
