// Every job the server runs, by name. Both runners take their processors from here.
import type { JobTable } from './types.js';
import { pushJob } from './processors/push.js';
import { retentionJob } from './processors/retention.js';

export const jobTable = {
  push: pushJob,
  retention: retentionJob,
} satisfies JobTable;

export type ServerJobs = typeof jobTable;
