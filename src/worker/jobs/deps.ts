// What job processors of a worker may use: its configuration, database, logger, the realm
// actors it holds, and the outgoing mail transport (null without SMTP_HOST).
import type { Config } from '../../config.js';
import type { Sql } from '../../db/connect.js';
import type { Logger } from '../../log.js';
import type { RealmRegistry } from '../../realm/registry.js';
import type { MailTransport } from '../mail.js';

export interface WorkerJobDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  registry: RealmRegistry;
  mailer: MailTransport | null;
}
