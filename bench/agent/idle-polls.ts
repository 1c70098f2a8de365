// Registers event queues, parks one long-poll per queue (one connection each, as real
// clients do) and checks that every poll is answered by a heartbeat in time, round after
// round. The first `unjudgedRounds` rounds are reported but not judged: while tens of
// thousands of polls are still being parked, their wait includes the server working
// through that connection storm, which is not what holding idle polls costs.

import type { EventEmitter } from 'node:events';
import type {
  Command,
  IdlePollsJob,
  IdleResult,
  IdleRound,
  ParkedReport,
  RegisteredReport,
} from '../lib/agent-protocol.js';
import { HttpConnection, type HttpResult } from '../lib/http-conn.js';
import { formEncode, renderRequest } from '../lib/request-spec.js';
import { Samples, monotonicMs } from '../lib/stats.js';

interface Poll {
  index: number;
  authorization: string;
  queueId: string;
  lastEventId: number;
  conn: HttpConnection | null;
  sentAt: number;
  round: number;
  onTimeEveryRound: boolean;
  done: boolean;
}

function call(conn: HttpConnection, request: string, timeoutMs: number): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    conn.request(request, (err, res) => (err || !res ? reject(err ?? new Error('no response')) : resolve(res)), timeoutMs);
  });
}

async function registerQueues(job: IdlePollsJob): Promise<{ polls: Poll[]; report: RegisteredReport }> {
  const wanted = job.authorizations;
  const polls: Poll[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  let next = 0;
  const body = formEncode({ event_types: ['message'] });
  const worker = async (_: unknown, w: number) => {
    const conn = new HttpConnection(job.endpoints[w % job.endpoints.length]);
    while (next < wanted.length) {
      const authorization = wanted[next++];
      const request = renderRequest({ method: 'POST', path: '/api/v1/register', host: job.host, authorization, body });
      try {
        const res = await call(conn, request, 60_000);
        const json = JSON.parse(res.body.toString('utf8')) as { queue_id?: string; last_event_id?: number };
        if (res.status !== 200 || !json.queue_id) throw new Error(`HTTP ${res.status}: ${res.body.toString('utf8', 0, 300)}`);
        polls.push({
          index: polls.length,
          authorization,
          queueId: json.queue_id,
          lastEventId: json.last_event_id ?? -1,
          conn: null,
          sentAt: 0,
          round: 0,
          onTimeEveryRound: true,
          done: false,
        });
      } catch (err) {
        failed++;
        firstFailure ??= (err as Error).message;
      }
    }
    conn.destroy();
  };
  await Promise.all(Array.from({ length: job.registerConcurrency }, worker));
  return { polls, report: { queues: polls.length, failed, firstFailure } };
}

export async function runIdlePolls(
  job: IdlePollsJob,
  commands: EventEmitter,
  emit: (name: string, data: unknown) => void,
): Promise<IdleResult> {
  const { polls, report } = await registerQueues(job);
  emit('registered', report);
  await new Promise<void>((resolve) => {
    const onCommand = (command: Command) => {
      if (command.cmd !== 'park') return;
      commands.off('command', onCommand);
      resolve();
    };
    commands.on('command', onCommand);
  });

  const limitMs = (job.heartbeatSeconds + job.jitterSeconds + 2) * 1000;
  const rounds: { samples: Samples; responses: number; heartbeats: number; onTime: number }[] = [];
  for (let r = 0; r < job.rounds; r++) rounds.push({ samples: new Samples(), responses: 0, heartbeats: 0, onTime: 0 });
  let failed = 0;
  let pending = polls.length;
  let firstFailure: string | undefined;
  let resolveAll: () => void = () => {};
  const allDone = new Promise<void>((resolve) => (resolveAll = resolve));

  const finishPoll = (poll: Poll, failure?: string) => {
    if (poll.done) return;
    poll.done = true;
    if (failure) {
      failed++;
      poll.onTimeEveryRound = false;
      firstFailure ??= failure;
    }
    poll.conn?.destroy();
    if (--pending === 0) resolveAll();
  };

  const send = (poll: Poll) => {
    const conn = poll.conn as HttpConnection;
    const path = `/api/v1/events?queue_id=${encodeURIComponent(poll.queueId)}&last_event_id=${poll.lastEventId}`;
    poll.sentAt = monotonicMs();
    conn.request(
      renderRequest({ method: 'GET', path, host: job.host, authorization: poll.authorization }),
      (err, res) => {
        const waited = monotonicMs() - poll.sentAt;
        if (err || !res) return finishPoll(poll, err?.message ?? 'no response');
        if (res.status !== 200) return finishPoll(poll, `HTTP ${res.status}: ${res.body.toString('utf8', 0, 300)}`);
        const events = (JSON.parse(res.body.toString('utf8')) as { events?: { id: number; type: string }[] }).events ?? [];
        const round = rounds[poll.round];
        round.responses++;
        round.samples.add(waited);
        const heartbeat = events.some((e) => e.type === 'heartbeat');
        if (heartbeat) round.heartbeats++;
        if (heartbeat && waited <= limitMs) round.onTime++;
        else if (poll.round >= job.unjudgedRounds) poll.onTimeEveryRound = false;
        for (const e of events) if (e.id > poll.lastEventId) poll.lastEventId = e.id;
        poll.round++;
        if (poll.round >= job.rounds) finishPoll(poll);
        else send(poll);
      },
      limitMs + 30_000,
      true, // the body is read before the callback returns
    );
  };

  // Connect in batches: opening tens of thousands of sockets at once overflows the
  // listen backlog and the SYN retries would show up as late heartbeats.
  let parkFailed = 0;
  for (let i = 0; i < polls.length; i += job.connectBatch) {
    const batch = polls.slice(i, i + job.connectBatch);
    await Promise.all(
      batch.map(async (poll) => {
        poll.conn = new HttpConnection(job.endpoints[poll.index % job.endpoints.length]);
        try {
          await poll.conn.connect();
          send(poll);
        } catch (err) {
          parkFailed++;
          finishPoll(poll, `connect: ${(err as Error).message}`);
        }
      }),
    );
  }
  const parked: ParkedReport = { parked: polls.length - parkFailed, failed: parkFailed, firstFailure };
  emit('parked', parked);

  const deadline = setTimeout(() => {
    for (const poll of polls) finishPoll(poll, 'no answer before the deadline');
  }, job.rounds * (limitMs + 10_000) + 5_000);
  if (polls.length > 0) await allDone;
  clearTimeout(deadline);

  const roundReports: IdleRound[] = rounds.map((r) => ({
    responses: r.responses,
    heartbeats: r.heartbeats,
    onTime: r.onTime,
    wait: r.samples.summary(),
  }));
  return {
    queues: polls.length,
    parked: parked.parked,
    onTimeJudgedRounds: polls.filter((p) => p.onTimeEveryRound && p.round >= job.rounds).length,
    rounds: roundReports,
    failed,
    firstFailure,
  };
}
