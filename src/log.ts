// One pino logger for the process; request logs are one line each (see http/server.ts).
// Lines go out through an asynchronous destination so that logging a request never blocks
// the event loop on a write; pino flushes it synchronously when the process exits.
import { destination, pino } from 'pino';

export const log = pino(
  {
    level: process.env.LOG_LEVEL ?? 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  },
  destination({ dest: 1, sync: false }),
);
export type Logger = typeof log;
