// A postgres.js `sql` for one realm whose every query runs in a transaction that first checks
// the realm's lease (owner and epoch) with FOR KEY SHARE. If this worker lost the realm, the check
// fails, which aborts the transaction: nothing commits. Actions keep using `actor.sql`
// unchanged: `sql.begin(fn)` gets the check as its first statement, a top-level tagged
// template runs as a one-statement fenced transaction, and helpers (`sql.json(x)`,
// `sql(array)`, `sql.array(x)`, fragments) pass through.
import type { Sql } from '../src/db/connect.js';
import { sessionLost } from '../src/db/failures.js';
import { STATEMENT_FENCE, type StatementFence } from '../src/db/statementFence.js';

/** Issues the fence check on a transaction; rejects when the lease is not (or no longer) ours. */
export type FenceCheck = (tx: Sql) => Promise<void>;

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
function fencedBegin(pool: Sql, check: FenceCheck, interrupted: (err: unknown) => Error): Begin {
  return (...args: unknown[]) => {
    const fn = args.pop() as (tx: Sql) => unknown;
    const begin = pool.begin as unknown as Begin;
    let lost = false;
    let committing = false;
    const outer = begin.call(pool, ...args, async (tx: Sql) => {
      // Settles to the error (or null) so a failed check is never an unhandled rejection.
      const fence = check(tx).then(
        () => null,
        (err: unknown) => err,
      );
      let result: unknown;
      try {
        result = await fn(tx);
        if (Array.isArray(result) && result.some((r) => r instanceof Promise)) result = await Promise.all(result);
      } catch (err) {
        const fenceError = await fence;
        if (lost || sessionLost(err) || sessionLost(fenceError)) return NEVER;
        throw fenceError ?? err;
      }
      const fenceError = await fence;
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

/**
 * `interrupted` makes the error for a transaction whose session ended before it tried to
 * commit (so nothing of it committed). `fence` is what a single statement can carry instead of
 * the transaction (see statementFence.ts).
 */
export function fencedSql(pool: Sql, check: FenceCheck, interrupted: (err: unknown) => Error, fence?: StatementFence): Sql {
  const begin = fencedBegin(pool, check, interrupted);
  const tagged = (strings: TemplateStringsArray, values: unknown[]) => {
    const query = (pool as unknown as Tagged)(strings, ...values) as object;
    return deferToFence(query, () =>
      begin(async (tx: Sql) => {
        const q = (tx as unknown as Tagged)(strings, ...values) as QueryFlags & Promise<unknown>;
        q.isRaw = (query as QueryFlags).isRaw;
        return await q;
      }),
    );
  };
  const unsafe: Unsafe = (text, args, options) => {
    const query = (pool.unsafe as unknown as Unsafe)(text, args, options) as object;
    return deferToFence(query, () =>
      begin(async (tx: Sql) => {
        const q = (tx.unsafe as unknown as Unsafe)(text, args, options) as QueryFlags & Promise<unknown>;
        q.isRaw = (query as QueryFlags).isRaw;
        return await q;
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
      if (prop === STATEMENT_FENCE) return fence;
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
