// The metrics every process that runs realm actors exports (the one-process server and a
// cluster's workers): actors, queues and parked polls, sends and deliveries, the render pool
// and the jobs. Names and meanings are listed in cluster/README.md ("Monitoring"); the
// dashboard and alerting rules under cluster/monitoring/ use them.
import type { Metrics } from '../http/metrics.js';
import type { Worker } from './index.js';

/** Queues held outside the actors (a cluster worker's queue shards). */
export interface QueueHolder {
  queueCount: number;
  parkedCount: number;
}

export function registerWorkerMetrics(metrics: Metrics, worker: Worker, shards: QueueHolder | null = null): void {
  const { registry, counters, render, jobCounts } = worker;
  metrics.gauge('chat_realm_actors_active', 'Realm actors active in this process', () => registry.activeCount);
  metrics.gauge('chat_event_queues', 'Event queues held in this process', () => {
    let n = shards?.queueCount ?? 0;
    for (const a of registry.actors()) if (a.events.holdsQueues) n += a.events.queueCount;
    return n;
  });
  metrics.gauge('chat_event_polls_parked', 'Long-polls parked in this process', () => {
    let n = shards?.parkedCount ?? 0;
    for (const a of registry.actors()) n += a.events.parkedCount;
    return n;
  });
  metrics.counter('chat_messages_sent_total', 'Messages committed and announced by this process', () => counters.messagesCommitted);
  metrics.counter('chat_sends_failed_total', 'Sends whose database write failed', () => counters.sendsFailed);
  metrics.counter('chat_send_batches_total', 'Group-commit statements run for sends (each commits one or more messages)', () => counters.batches);
  metrics.counter('chat_send_commit_seconds_total', 'Time the group-commit statements took, summed', () => counters.commitSeconds);
  metrics.counter('chat_events_delivered_total', 'Events put into event queues (one per receiving queue)', () => counters.eventsDelivered);
  metrics.counter('chat_event_queues_overflowed_total', 'Event queues dropped for outgrowing their limits', () => counters.queuesOverflowed);
  metrics.counter('chat_render_tasks_total', 'Render pool tasks run (each renders one or more messages)', () => render.stats().tasks);
  metrics.counter('chat_render_messages_total', 'Messages rendered by the render pool', () => render.stats().renders);
  metrics.counter('chat_render_timeouts_total', 'Renders that ran out of their time budget', () => render.stats().timeouts);
  metrics.gauge('chat_render_queued', 'Renders waiting for a render thread', () => render.stats().queued);
  metrics.gauge('chat_render_threads', 'Render pool threads', () => render.stats().threads);
  const perJob = (pick: 'runs' | 'failures' | 'seconds') => () => Object.fromEntries([...jobCounts].map(([name, c]) => [name, c[pick]]));
  metrics.counter('chat_job_runs_total', 'Job tries started, by job', perJob('runs'), 'job_name');
  metrics.counter('chat_job_failures_total', 'Job tries that failed, by job', perJob('failures'), 'job_name');
  metrics.counter('chat_job_seconds_total', 'Time job tries took, summed, by job', perJob('seconds'), 'job_name');
}
