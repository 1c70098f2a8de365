// Outgoing webhook calls.
//
// `outgoing-webhook` POSTs the triggering message to the bot's service, on any worker. A
// service that does not answer (timeout, connection error) or answers with a server error is
// tried again, four tries in all as in Zulip (which retries the first two kinds); after the
// last one the bot reports the failure.
//
// What the bot then says must be posted by the realm's actor: on this worker when it holds
// the realm (or may take it up), else by `outgoing-webhook-reply`, passed on from worker to
// worker a bounded number of times until the realm's holder takes it (as scheduled messages
// are). The call itself is never repeated for that.
import { describeError, type JobDefinition } from '../../jobs/types.js';
import type { OutgoingWebhookJob, OutgoingWebhookReplyJob } from '../../jobs/payloads.js';
import { buildRequest, outcomeOf, worthRetrying, type Outcome, type ServiceAnswer } from '../../integrations/outgoing.js';
import { deliverOutgoingOutcome } from '../../actions/integrations/outgoing.js';
import { RealmNotHereError } from '../../realm/services.js';
import { ZULIP_VERSION } from '../../model/version.js';
import { callService } from './outgoingHttp.js';
import type { WorkerJobDeps } from './deps.js';

/** Tries in all (Zulip's MAX_REQUEST_RETRIES, 3, after the first). */
export const OUTGOING_WEBHOOK_ATTEMPTS = 4;
/** The most of a service's answer that is read. */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** Passes of a reply before it is given up (about 30 s), and the wait between them. */
const MAX_HOPS = 150;
const HOP_DELAY_MS = 200;

const describe = (a: ServiceAnswer) => (a.kind === 'response' ? `service answered HTTP ${a.status}` : `service call ended: ${a.kind}`);

/** Posts the reply if this worker holds the realm; otherwise queues it for the worker that does. */
async function replyOrPassOn(reply: OutgoingWebhookReplyJob, deps: WorkerJobDeps): Promise<void> {
  const { call } = reply;
  let actor;
  try {
    actor = await deps.registry.holdForJob(call.realmId);
    const held = actor;
    if (held) return await held.working(() => deliverOutgoingOutcome(held, call, reply.outcome));
  } catch (err) {
    // The realm moved away meanwhile (fenced write refused): its new holder posts it.
    if (!(err instanceof RealmNotHereError)) throw err;
  }
  const hop = (reply.hop ?? 0) + 1;
  if (hop > MAX_HOPS) {
    deps.log.warn({ realm: call.realmId, bot: call.event.botId }, 'outgoing webhook reply given up: no worker holds the realm');
    return;
  }
  await deps.registry.services.jobs.enqueue('outgoing-webhook-reply', { ...reply, hop }, { delayMs: HOP_DELAY_MS });
}

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
    // A failure from here on must not make the runner call the service again.
    await replyOrPassOn({ call: job, outcome }, deps).catch((err: unknown) =>
      log.error({ bot: job.event.botId, err: describeError(err) }, 'outgoing webhook reply not posted'),
    );
  },
};

export const outgoingWebhookReplyJob: JobDefinition<OutgoingWebhookReplyJob, WorkerJobDeps> = {
  // Not retried: a second try could post the reply twice.
  attempts: 1,
  run: (job, { deps }) => replyOrPassOn(job, deps),
};
