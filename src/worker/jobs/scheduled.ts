// Scheduled messages and reminders coming due.
//
// `scheduled-delivery` is a wake-up for one row. It must run in the realm's actor, and in a
// cluster the realm may be held by another worker, or by none (nobody uses it now): the
// registry hands the job the active actor, or activates the realm here if this worker may
// hold it (placement and lease, as a request would). Otherwise the job is passed on: queued
// again shortly, to be picked up by any worker, a bounded number of times. What a bound or a
// lost job leaves behind, the sweep finds again.
//
// `scheduled-sweep` runs on every worker at start and then every SCHEDULED_SWEEP_SECONDS: it
// queues a job for each row due before the next sweep. Job ids make the queueing idempotent
// across workers and sweeps; a row found overdue (its job lost with a restart or a crash)
// gets a job of its own per sweep interval.
import type { JobDefinition } from '../../jobs/types.js';
import type { ScheduledDeliveryJob, ScheduledSweepJob } from '../../jobs/payloads.js';
import { RealmNotHereError } from '../../realm/services.js';
import { pendingDeliveries } from '../../db/scheduledMessages.js';
import { deliverDue } from '../../actions/later/delivery.js';
import { deliveryJobId, queueDelivery } from '../../actions/later/wakeUp.js';
import type { WorkerJobDeps } from './deps.js';

/**
 * Passes before a job is left to the sweep (about 30 s), and the wait between them. A pass
 * lands on any worker, so with N workers the realm's holder gets it after about N/2 passes.
 */
const MAX_HOPS = 150;
const HOP_DELAY_MS = 200;
/** A row this late has lost its job (it would have run by now). */
const OVERDUE_MS = 2000;
const SWEEP_BATCH = 5000;

async function passOn(job: ScheduledDeliveryJob, deps: WorkerJobDeps, why: string): Promise<void> {
  const hop = (job.hop ?? 0) + 1;
  if (hop > MAX_HOPS) {
    deps.log.warn({ realm: job.realmId, scheduledMessage: job.scheduledMessageId, why }, 'scheduled delivery left to the sweep');
    return;
  }
  // Any worker may take it; the one holding the realm (or allowed to take it up) delivers it.
  const id = `${deliveryJobId(job.scheduledMessageId, job.dueMs)}-hop${hop}-${Date.now()}`;
  await deps.registry.services.jobs.enqueue('scheduled-delivery', { ...job, hop }, { delayMs: HOP_DELAY_MS, jobId: id });
}

export const scheduledDeliveryJob: JobDefinition<ScheduledDeliveryJob, WorkerJobDeps> = {
  // Refusals are recorded on the row, not retried; a failure of the database is.
  attempts: 5,
  backoffMs: 1000,
  async run(job, { deps, log }) {
    let actor;
    try {
      actor = await deps.registry.holdForJob(job.realmId);
    } catch (err) {
      if (!(err instanceof RealmNotHereError)) throw err;
      actor = null;
    }
    if (!actor) return passOn(job, deps, 'realm not held here');
    try {
      const held = actor;
      const outcome = await held.working(() => deliverDue(held, job.scheduledMessageId, job.dueMs));
      log.debug({ realm: actor.realm.stringId, scheduledMessage: job.scheduledMessageId, outcome }, 'scheduled delivery');
    } catch (err) {
      // The realm moved away while the delivery ran (fenced write refused): its new holder finishes it.
      if (err instanceof RealmNotHereError) return passOn(job, deps, 'realm moved');
      throw err;
    }
  },
};

export const scheduledSweepJob: JobDefinition<ScheduledSweepJob, WorkerJobDeps> = {
  attempts: 1,
  async run(_data, { deps, log }) {
    const intervalMs = deps.config.SCHEDULED_SWEEP_SECONDS * 1000;
    const now = Date.now();
    // Rows due before the sweep after next get their job now.
    const rows = await pendingDeliveries(deps.sql, new Date(now + 2 * intervalMs), SWEEP_BATCH);
    const round = Math.floor(now / intervalMs);
    let overdue = 0;
    for (const row of rows) {
      const late = now - row.scheduledAt.getTime() > OVERDUE_MS;
      if (late) overdue++;
      await queueDelivery(deps.registry.services.jobs, row, late ? `sweep${round}` : undefined);
    }
    if (overdue > 0) log.info({ overdue }, 'scheduled deliveries queued again');
  },
};
