// One pino logger for the process; request logs are one line each (see http/server.ts).
import { pino } from 'pino';

export const log = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: { pid: process.pid },
  timestamp: pino.stdTimeFunctions.isoTime,
});
export type Logger = typeof log;
