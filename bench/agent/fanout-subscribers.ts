// The subscribers of one big channel: registers an event queue for each (one connection
// each), long-polls them all without pause, and registers a queue again when the server says
// it is gone (BAD_EVENT_QUEUE_ID, as after its queue shard's worker died), as a real client
// does. For every send carrying a fanout marker it records how many subscribers received it
// and when the last one did, so the runner can tell when all of them had it.

import type { EventEmitter } from 'node:events';
import type {
  Command,
  FanoutCollectReport,
  FanoutRegisteredReport,
  FanoutSend,
  FanoutShardCounts,
  FanoutSubscribersJob,
} from '../lib/agent-protocol.js';
import { HttpConnection, type HttpResult } from '../lib/http-conn.js';
import { renderRequest } from '../lib/request-spec.js';
import { FANOUT_MARKERS, readPollAnswer, type FanoutMarker, type PollAnswer } from '../lib/pollAnswer.js';
import { Samples, monotonicMs } from '../lib/stats.js';

/** Which sends (by sequence number) one subscriber received in one phase. */
class SeqSet {
  private bits = new Uint8Array(64);

  /** Adds a sequence number; false when it was already there. */
  add(seq: number): boolean {
    const byte = seq >> 3;
    if (byte >= this.bits.length) {
      const grown = new Uint8Array(Math.max(byte + 1, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (seq & 7);
    if (this.bits[byte]! & mask) return false;
    this.bits[byte]! |= mask;
    return true;
  }

  has(seq: number): boolean {
    const byte = seq >> 3;
    return byte < this.bits.length && (this.bits[byte]! & (1 << (seq & 7))) !== 0;
  }
}

interface Subscriber {
  authorization: string;
  shard: number;
  conn: HttpConnection;
  queueId: string;
  lastEventId: number;
  /** Monotonic ms: when the server last said the queue was gone, and when it was registered again. */
  badQueueAt: number | null;
  reRegisteredAt: number | null;
  received: Map<string, SeqSet>;
}

function call(conn: HttpConnection, request: string, timeoutMs: number): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    conn.request(request, (err, res) => (err || !res ? reject(err ?? new Error('no response')) : resolve(res)), timeoutMs);
  });
}

export function runFanoutSubscribers(
  job: FanoutSubscribersJob,
  commands: EventEmitter,
  emit: (name: string, data: unknown) => void,
): Promise<{ polls: number; failedPolls: number }> {
  const subs: Subscriber[] = job.subscribers.map((s, i) => ({
    authorization: s.authorization,
    shard: s.shard,
    conn: new HttpConnection(job.endpoints[i % job.endpoints.length]),
    queueId: '',
    lastEventId: -1,
    badQueueAt: null,
    reRegisteredAt: null,
    received: new Map(),
  }));
  const sends = new Map<string, Map<number, FanoutSend>>();
  const samples = new Map<string, Samples>();
  const deliveries = new Map<string, number>();
  let stopped = false;
  let polls = 0;
  let failedPolls = 0;
  let firstFailure: string | undefined;

  const register = async (sub: Subscriber): Promise<void> => {
    const request = renderRequest({ method: 'POST', path: '/api/v1/register', host: job.host, authorization: sub.authorization, body: job.registerBody });
    const res = await call(sub.conn, request, 60_000);
    const json = JSON.parse(res.body.toString('utf8')) as { queue_id?: string; last_event_id?: number };
    if (res.status !== 200 || !json.queue_id) throw new Error(`HTTP ${res.status}: ${res.body.toString('utf8', 0, 300)}`);
    sub.queueId = json.queue_id;
    sub.lastEventId = json.last_event_id ?? -1;
  };

  const onAnswer = (sub: Subscriber, answer: PollAnswer<FanoutMarker>, receivedMicros: number) => {
    if (answer.lastEventId !== null && answer.lastEventId > sub.lastEventId) sub.lastEventId = answer.lastEventId;
    for (const { phase, sentAt, scheduledAt, seq } of answer.markers) {
      let seen = sub.received.get(phase);
      if (!seen) sub.received.set(phase, (seen = new SeqSet()));
      if (!seen.add(seq)) continue; // a duplicate is not a second receipt
      let perSeq = sends.get(phase);
      if (!perSeq) sends.set(phase, (perSeq = new Map()));
      let send = perSeq.get(seq);
      if (!send) perSeq.set(seq, (send = { seq, sentAt, scheduledAt, receipts: 0, lastReceiptAt: 0 }));
      send.receipts++;
      if (receivedMicros > send.lastReceiptAt) send.lastReceiptAt = receivedMicros;
      deliveries.set(phase, (deliveries.get(phase) ?? 0) + 1);
      let s = samples.get(phase);
      if (!s) samples.set(phase, (s = new Samples()));
      s.add((receivedMicros - sentAt) / 1000);
    }
  };

  const registerAgain = (sub: Subscriber) => {
    if (stopped) return;
    register(sub).then(
      () => {
        sub.reRegisteredAt = monotonicMs();
        poll(sub);
      },
      (err: unknown) => {
        failedPolls++;
        firstFailure ??= `register again: ${(err as Error).message}`;
        setTimeout(() => registerAgain(sub), 250);
      },
    );
  };

  const poll = (sub: Subscriber) => {
    if (stopped) return;
    const path = `/api/v1/events?queue_id=${encodeURIComponent(sub.queueId)}&last_event_id=${sub.lastEventId}`;
    sub.conn.request(
      renderRequest({ method: 'GET', path, host: job.host, authorization: sub.authorization }),
      (err, res) => {
        const receivedMicros = Number(process.hrtime.bigint() / 1000n);
        if (stopped) return;
        polls++;
        if (err || !res || res.status !== 200) {
          if (res && res.status === 400 && res.body.includes('BAD_EVENT_QUEUE_ID')) {
            sub.badQueueAt = monotonicMs();
            registerAgain(sub);
            return;
          }
          failedPolls++;
          firstFailure ??= err ? err.message : `HTTP ${res?.status}: ${res?.body.toString('utf8', 0, 300)}`;
          setTimeout(() => poll(sub), 100);
          return;
        }
        onAnswer(sub, readPollAnswer(res.body, FANOUT_MARKERS), receivedMicros);
        poll(sub);
      },
      job.pollTimeoutMs,
      true, // the body is read before the callback returns
    );
  };

  const registerAll = async (): Promise<void> => {
    const report: FanoutRegisteredReport = { queues: 0, failed: 0, byQueueShard: {} };
    let next = 0;
    const worker = async () => {
      while (next < subs.length) {
        const sub = subs[next++]!;
        try {
          await register(sub);
          report.queues++;
          const shard = /^s(\d+)-/.exec(sub.queueId)?.[1] ?? 'none';
          report.byQueueShard[shard] = (report.byQueueShard[shard] ?? 0) + 1;
          poll(sub);
        } catch (err) {
          report.failed++;
          report.firstFailure ??= (err as Error).message;
        }
      }
    };
    await Promise.all(Array.from({ length: job.registerConcurrency }, worker));
    emit('registered', report);
  };

  /** Whether a subscriber has every acknowledged send it should have (see the collect command). */
  const missing = (sub: Subscriber, phase: string, acked: number[], sentAt: Map<number, number>): number => {
    const seen = sub.received.get(phase);
    if (sub.badQueueAt !== null && (sub.reRegisteredAt === null || sub.reRegisteredAt < sub.badQueueAt)) return acked.length;
    const since = sub.reRegisteredAt === null ? -Infinity : sub.reRegisteredAt * 1000;
    let n = 0;
    for (const seq of acked) {
      // A send made before the new queue existed is not owed to it; one nobody received is.
      if ((sentAt.get(seq) ?? Infinity) <= since) continue;
      if (!seen?.has(seq)) n++;
    }
    return n;
  };

  const collect = (command: Extract<Command, { cmd: 'collect' }>) => {
    const startedAt = monotonicMs();
    const check = () => {
      const perSeq = sends.get(command.phase) ?? new Map<number, FanoutSend>();
      const sentAt = new Map([...perSeq.values()].map((s) => [s.seq, s.sentAt]));
      const gaps = subs.map((sub) => missing(sub, command.phase, command.acked, sentAt));
      const complete = gaps.every((n) => n === 0);
      const waitedMs = monotonicMs() - startedAt;
      if (!complete && waitedMs < command.timeoutMs) {
        setTimeout(check, 500);
        return;
      }
      const byShard = new Map<number, FanoutShardCounts>();
      subs.forEach((sub, i) => {
        let c = byShard.get(sub.shard);
        if (!c) byShard.set(sub.shard, (c = { shard: sub.shard, subscribers: 0, badQueue: 0, reRegistered: 0, withGaps: 0, missedAfterReRegister: 0 }));
        c.subscribers++;
        if (sub.badQueueAt !== null) c.badQueue++;
        if (sub.reRegisteredAt !== null) c.reRegistered++;
        if (gaps[i]! > 0) {
          if (sub.badQueueAt === null) c.withGaps++;
          else c.missedAfterReRegister++;
        }
      });
      const bad = subs.map((s) => s.badQueueAt).filter((t): t is number => t !== null);
      const again = subs.map((s) => s.reRegisteredAt).filter((t): t is number => t !== null);
      const report: FanoutCollectReport = {
        phase: command.phase,
        waitedMs,
        complete,
        subscribers: subs.length,
        deliveries: deliveries.get(command.phase) ?? 0,
        sends: [...perSeq.values()],
        samples: command.samples ? Float64Array.from((samples.get(command.phase) ?? new Samples()).values()) : undefined,
        byShard: [...byShard.values()].sort((a, b) => a.shard - b.shard),
        firstBadQueueAt: bad.length ? Math.min(...bad) : null,
        lastReRegisteredAt: again.length ? Math.max(...again) : null,
        pollsSoFar: polls,
        failedPolls,
        firstFailure,
      };
      emit('collected', report);
    };
    check();
  };

  return new Promise((resolve) => {
    commands.on('command', (command: Command) => {
      if (command.cmd === 'collect') collect(command);
      if (command.cmd !== 'stop') return;
      stopped = true;
      for (const sub of subs) sub.conn.destroy();
      resolve({ polls, failedPolls });
    });
    void registerAll();
  });
}
