// Scheduled messages and reminders are delivered by delayed jobs that only wake the realm up:
// the row in the database decides whether there is anything to deliver, and for which time.
// A row gets its job when it is scheduled or moved; the sweep (worker/jobs/scheduled.ts)
// queues jobs again for rows whose job was lost (a restart of the one-process mode, a crash).
import { log } from '../../log.js';
import type { RealmActor } from '../../realm/actor.js';
import type { ScheduledMessage } from '../../model/later.js';
import type { ServerJobQueue } from '../../jobs/payloads.js';
import { CacheKey } from '../../realm/caches.js';

/** Rows due later than this get no job yet; the sweep queues them as they come near. */
export const LONGEST_WAKE_UP_MS = 24 * 3600 * 1000;

/** The job of one row at one delivery time: queued once however often it is asked for. */
export const deliveryJobId = (id: number, dueMs: number, suffix?: string) => `sm-${id}-${dueMs}${suffix ? `-${suffix}` : ''}`;

/** Queues the delivery of a row at its time (now when it is due); an unreachable queue is left to the sweep. */
export async function queueDelivery(jobs: ServerJobQueue, m: Pick<ScheduledMessage, 'id' | 'realmId' | 'scheduledAt'>, suffix?: string): Promise<void> {
  const dueMs = m.scheduledAt.getTime();
  const delay = dueMs - Date.now();
  if (delay > LONGEST_WAKE_UP_MS) return;
  try {
    await jobs.enqueue(
      'scheduled-delivery',
      { realmId: m.realmId, scheduledMessageId: m.id, dueMs },
      { delayMs: Math.max(0, delay), jobId: deliveryJobId(m.id, dueMs, suffix) },
    );
  } catch (err) {
    log.warn({ scheduledMessage: m.id, err: (err as Error).message }, 'could not queue a scheduled delivery; the sweep will');
  }
}

export const wakeUpAt = (actor: RealmActor, m: ScheduledMessage) => queueDelivery(actor.services.jobs, m);

/**
 * Deliveries under way in this actor, by row id; each promise settles (never rejects) when its
 * delivery is over. An edit or deletion waits for it instead of changing a row being sent.
 */
const inFlightKey = new CacheKey('scheduled deliveries in flight', () => new Map<number, Promise<void>>());

export const deliveriesInFlight = (actor: RealmActor) => actor.caches.get(inFlightKey);

/** Waits, outside the mailbox, until no delivery of the row is under way. */
export async function deliverySettled(actor: RealmActor, id: number): Promise<void> {
  for (let running = deliveriesInFlight(actor).get(id); running; running = deliveriesInFlight(actor).get(id)) await running;
}
