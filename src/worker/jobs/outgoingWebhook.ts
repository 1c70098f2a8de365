// Outgoing webhook calls: POSTs the triggering message to the bot's service and posts what the
// bot says back. A service that does not answer (timeout, connection error) or answers with a
// server error is tried again, four tries in all as in Zulip (which retries the first two
// kinds); after the last one the bot reports the failure in the conversation and to its owner.
import type { JobDefinition } from '../../jobs/types.js';
import type { OutgoingWebhookJob } from '../../jobs/payloads.js';
import { buildRequest, outcomeOf, worthRetrying, type Outcome, type ServiceAnswer } from '../../integrations/outgoing.js';
import { deliverOutgoingOutcome } from '../../actions/integrations/outgoing.js';
import { ZULIP_VERSION } from '../../model/version.js';
import { callService } from './outgoingHttp.js';
import type { WorkerJobDeps } from './deps.js';

/** Tries in all (Zulip's MAX_REQUEST_RETRIES, 3, after the first). */
export const OUTGOING_WEBHOOK_ATTEMPTS = 4;
/** The most of a service's answer that is read. */
const MAX_ANSWER_BYTES = 1024 * 1024;

const describe = (a: ServiceAnswer) => (a.kind === 'response' ? `service answered HTTP ${a.status}` : `service call ended: ${a.kind}`);

export const outgoingWebhookJob: JobDefinition<OutgoingWebhookJob, WorkerJobDeps> = {
  attempts: OUTGOING_WEBHOOK_ATTEMPTS,
  backoffMs: 250,
  async run(job, { deps, attempt, log }) {
    const request = buildRequest(job.event);
    let outcome: Outcome;
    if ('failure' in request) {
      outcome = { reply: `Failure! ${request.failure}`, ownerDetails: null };
    } else {
      const { config } = deps;
      const answer = await callService(job.url, request, {
        timeoutMs: config.OUTGOING_WEBHOOK_TIMEOUT_SECONDS * 1000,
        allowPrivate: config.OUTGOING_WEBHOOK_ALLOW_PRIVATE,
        userAgent: `ZulipOutgoingWebhook/${ZULIP_VERSION}`,
        maxBytes: MAX_ANSWER_BYTES,
      });
      // Thrown: the runner tries again after a pause.
      if (worthRetrying(answer) && attempt < OUTGOING_WEBHOOK_ATTEMPTS) throw new Error(describe(answer));
      log.debug({ bot: job.event.botId, answer: describe(answer) }, 'outgoing webhook called');
      outcome = outcomeOf(job.event, answer, config.OUTGOING_WEBHOOK_TIMEOUT_SECONDS);
    }
    if (outcome.reply === null && outcome.ownerDetails === null) return;
    const actor = await deps.registry.get(job.subdomain);
    if (!actor || actor.realm.id !== job.realmId) return;
    await deliverOutgoingOutcome(actor, job, outcome);
  },
};
