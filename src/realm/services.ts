// What realm actors share within one worker process.
import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import type { Logger } from '../log.js';

export interface Services {
  config: Config;
  sql: Sql;
  log: Logger;
}
