// Every job the server runs, by name, with its processor. Both runners take their processors
// from here; the names and data are the catalog's (src/jobs/payloads.ts).
import type { JobDefinition } from '../../jobs/types.js';
import type { JobPayloads } from '../../jobs/payloads.js';
import type { WorkerJobDeps } from './deps.js';
import { pushJob } from './push.js';
import { retentionJob } from './retention.js';
import { outgoingWebhookJob } from './outgoingWebhook.js';

export const jobTable = {
  push: pushJob,
  retention: retentionJob,
  outgoing_webhook: outgoingWebhookJob,
} satisfies { [N in keyof JobPayloads]: JobDefinition<JobPayloads[N], WorkerJobDeps> };

export type ServerJobs = typeof jobTable;
