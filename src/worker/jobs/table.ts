// Every job the server runs, by name, with its processor. Both runners take their processors
// from here; the names and data are the catalog's (src/jobs/payloads.ts).
import type { JobDefinition } from '../../jobs/types.js';
import type { JobPayloads } from '../../jobs/payloads.js';
import type { WorkerJobDeps } from './deps.js';
import { pushJob } from './push.js';
import { retentionJob } from './retention.js';
import { outgoingWebhookJob, outgoingWebhookReplyJob } from './outgoingWebhook.js';
import { scheduledDeliveryJob, scheduledSweepJob } from './scheduled.js';
import { emailSendJob, emailSweepJob } from './email.js';
import { missedMessageEmailJob } from './missedMessages.js';

export const jobTable = {
  push: pushJob,
  retention: retentionJob,
  'outgoing-webhook': outgoingWebhookJob,
  'outgoing-webhook-reply': outgoingWebhookReplyJob,
  'scheduled-delivery': scheduledDeliveryJob,
  'scheduled-sweep': scheduledSweepJob,
  'email-send': emailSendJob,
  'email-sweep': emailSweepJob,
  'missed-message-email': missedMessageEmailJob,
} satisfies { [N in keyof JobPayloads]: JobDefinition<JobPayloads[N], WorkerJobDeps> };

export type ServerJobs = typeof jobTable;
