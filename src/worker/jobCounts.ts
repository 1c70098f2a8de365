// Counts of job runs per job name, whichever runner (BullMQ, in-process) runs them: every
// definition of the table is wrapped before the runner gets it.
import type { JobTable } from '../jobs/types.js';

export interface JobCount {
  /** Tries started (a retried job counts once per try). */
  runs: number;
  /** Tries that threw. */
  failures: number;
  /** Time the tries took, summed, in seconds. */
  seconds: number;
}

export type JobCounts = Map<string, JobCount>;

export function countedJobTable<T extends JobTable>(table: T, counts: JobCounts): T {
  const out: JobTable = {};
  for (const [name, def] of Object.entries(table)) {
    const count: JobCount = { runs: 0, failures: 0, seconds: 0 };
    counts.set(name, count);
    out[name] = {
      ...def,
      async run(data, ctx) {
        count.runs++;
        const started = performance.now();
        try {
          await def.run(data, ctx);
        } catch (err) {
          count.failures++;
          throw err;
        } finally {
          count.seconds += (performance.now() - started) / 1000;
        }
      },
    };
  }
  return out as T;
}
