// Long-polls a set of event queues without pause and measures, for every message event
// whose content carries a bench marker, the time from send to receipt. Answers are read
// from their bytes (pollAnswer.ts): at a few thousand sends a second, 50 subscribers get
// 200,000 events a second, and parsing each into objects took this agent about half a core
// of the two the server it measures runs on.

import type { EventEmitter } from 'node:events';
import type { Command, DrainReport, SubscribersJob, SubscribersResult } from '../lib/agent-protocol.js';
import { HttpConnection } from '../lib/http-conn.js';
import { renderRequest } from '../lib/request-spec.js';
import { readPollAnswer, SEND_MARKERS, type SendMarker } from '../lib/pollAnswer.js';
import { Samples, monotonicMs } from '../lib/stats.js';

export function runSubscribers(
  job: SubscribersJob,
  commands: EventEmitter,
  emit: (name: string, data: unknown) => void,
): Promise<SubscribersResult> {
  const delivered = new Map<string, number>();
  const latencies = new Map<string, Samples>();
  const connections: HttpConnection[] = [];
  let stopped = false;
  let polls = 0;
  let failedPolls = 0;
  let firstFailure: string | undefined;

  const onMarkers = (markers: SendMarker[], receivedMicros: number) => {
    for (const { phase, sentAt } of markers) {
      delivered.set(phase, (delivered.get(phase) ?? 0) + 1);
      let samples = latencies.get(phase);
      if (!samples) latencies.set(phase, (samples = new Samples()));
      samples.add((receivedMicros - sentAt) / 1000);
    }
  };

  for (const [i, queue] of job.queues.entries()) {
    const conn = new HttpConnection(job.endpoints[i % job.endpoints.length]);
    connections.push(conn);
    let lastEventId = queue.lastEventId;
    const poll = () => {
      if (stopped) return;
      const path = `/api/v1/events?queue_id=${encodeURIComponent(queue.queueId)}&last_event_id=${lastEventId}`;
      const request = renderRequest({ method: 'GET', path, host: queue.host, authorization: queue.authorization });
      conn.request(
        request,
        (err, res) => {
          const receivedMicros = Number(process.hrtime.bigint() / 1000n);
          if (stopped) return;
          polls++;
          if (err || !res || res.status !== 200) {
            failedPolls++;
            const reason = err ? err.message : `HTTP ${res?.status}: ${res?.body.toString('utf8', 0, 300)}`;
            firstFailure ??= reason;
            // An unknown queue will not come back; anything else is retried.
            if (res && res.status === 400 && res.body.includes('BAD_EVENT_QUEUE_ID')) return;
            setTimeout(poll, 100);
            return;
          }
          const answer = readPollAnswer(res.body, SEND_MARKERS);
          if (answer.lastEventId !== null && answer.lastEventId > lastEventId) lastEventId = answer.lastEventId;
          onMarkers(answer.markers, receivedMicros);
          poll();
        },
        job.pollTimeoutMs,
        true, // the body is read before the callback returns
      );
    };
    poll();
  }

  commands.on('command', (command: Command) => {
    if (command.cmd !== 'drain') return;
    const startedAt = monotonicMs();
    const check = () => {
      const count = delivered.get(command.phase) ?? 0;
      const waited = monotonicMs() - startedAt;
      if (count >= command.expected || waited >= command.timeoutMs) {
        const report: DrainReport = {
          phase: command.phase,
          delivered: count,
          expected: command.expected,
          waitedMs: waited,
          latency: (latencies.get(command.phase) ?? new Samples()).summary(),
          pollsSoFar: polls,
        };
        emit('drained', report);
      } else {
        setTimeout(check, 20);
      }
    };
    check();
  });

  return new Promise((resolve) => {
    commands.on('command', (command: Command) => {
      if (command.cmd !== 'stop') return;
      stopped = true;
      for (const conn of connections) conn.destroy();
      resolve({ polls, failedPolls, firstFailure });
    });
  });
}
