// The front's Router in a cluster: each request goes to the worker that owns its realm
// (rendezvous hashing over the live workers), over one multiplexed connection per worker. A
// bounce (the worker does not hold the realm, e.g. while it moves) or an unreachable worker
// is retried after re-reading membership, for up to REROUTE_BUDGET_MS, so a client does not
// notice a realm moving. A request that may have reached a worker which then vanished is
// retried only if it is a GET; a write gets 502 (it may or may not have been applied).
// Long-polls travel on a connection of their own to each worker: under a fan-out, their
// answers fill that connection's buffers and would otherwise hold a send and its answer
// behind them.
import type { Logger } from '../src/log.js';
import type { AnswerSink, ApiRequest, ApiResponse, Router } from '../src/http/contract.js';
import { errorResponse } from '../src/http/envelope.js';
import { ApiError } from '../src/model/errors.js';
import type { MembershipView, MemberInfo } from './membership.js';
import { WorkerClient, isLongPoll, type Call, type Outcome, type OutcomeSink } from './transport/workerClient.js';
import { routeKey } from './queueShards.js';

export interface RouterOptions {
  frontId: string;
  MAX_IN_FLIGHT: number;
  REROUTE_BUDGET_MS: number;
  REQUEST_TIMEOUT_MS: number;
  /** Queue shards per realm (queueShards.ts): polls of a shard's queue go to the shard's worker. */
  QUEUE_SHARDS: number;
  /** Long-polls are answered by the worker within about this long (a heartbeat). */
  heartbeatSeconds: number;
}

const error = (status: number, code: string, msg: string): ApiResponse => errorResponse(new ApiError(code, msg, status));

/** Waits between routing attempts: the first retry follows a fresh membership read at once. */
const RETRY_WAITS_MS = [0, 25, 50, 100, 200, 250];

export class ClusterRouter implements Router {
  /** Per worker: the connection for long-polls, and the one for every other request. */
  private readonly clients = new Map<string, { polls: WorkerClient; requests: WorkerClient }>();
  private readonly calls = new Map<string, Call>();
  private readonly cancelled = new Set<string>();
  private suspectUntil = 0;
  private closed = false;

  constructor(
    private readonly view: MembershipView,
    private readonly o: RouterOptions,
    private readonly log: Logger,
  ) {
    view.on('change', () => this.retireDeparted());
  }

  /** Live workers and the requests each connection carries (for /health). */
  workers(): { id: string; address: string; pending: number }[] {
    return this.view.live().map((m) => {
      const c = this.clients.get(m.id);
      return { id: m.id, address: `${m.host}:${m.port}`, pending: c ? c.polls.pending + c.requests.pending : 0 };
    });
  }

  /**
   * The first attempt, which nearly every request ends with, hands its outcome straight to
   * the sink (see FirstAttempt): a parked long-poll waits here for up to a heartbeat, and a
   * chain of promises over it would live that long, through young collections.
   */
  dispatch(req: ApiRequest, sink: AnswerSink): void {
    const deadline = Date.now() + this.o.REROUTE_BUDGET_MS;
    const attempt = new FirstAttempt(this, req, deadline, sink);
    try {
      const member = this.cancelled.has(req.id) || this.closed ? null : this.view.owner(routeKey(req, this.o.QUEUE_SHARDS));
      if (!member) return this.reroute(req, deadline, null, sink);
      const call = this.send(member, req, attempt);
      // An outcome that came before send returned (a connection backing off) was passed on,
      // and its reroute under way must see a cancel: no call is recorded for it.
      if (!attempt.done) this.calls.set(req.id, call);
    } catch (err) {
      if (!attempt.done) sink.failed(err);
      else this.log.error({ err, reqId: req.id }, 'passing an answer on failed');
    }
  }

  /** The first attempt's outcome: the answer, or the attempts after it. */
  firstOutcome(req: ApiRequest, deadline: number, outcome: Outcome, sink: AnswerSink): void {
    this.calls.delete(req.id);
    if (outcome.kind !== 'response') return this.reroute(req, deadline, outcome, sink);
    this.cancelled.delete(req.id);
    sink.answered(outcome.res);
  }

  private reroute(req: ApiRequest, deadline: number, first: Outcome | null, sink: AnswerSink): void {
    this.route(req, deadline, first).then(
      (res) => sink.answered(res),
      (err: unknown) => sink.failed(err),
    );
  }

  private send(member: MemberInfo, req: ApiRequest, sink: OutcomeSink): Call {
    const longPoll = isLongPoll(req);
    const timeout = longPoll ? this.o.heartbeatSeconds * 1500 + this.o.REQUEST_TIMEOUT_MS : this.o.REQUEST_TIMEOUT_MS;
    const pair = this.client(member);
    return (longPoll ? pair.polls : pair.requests).send(req, timeout, sink);
  }

  /**
   * One attempt after the first, as a promise of its outcome. The call is recorded for
   * cancel even when its outcome already came: route takes it out as soon as it resumes,
   * before anything else can run.
   */
  private attempt(member: MemberInfo, req: ApiRequest): Promise<Outcome> {
    return new Promise((resolve) => this.calls.set(req.id, this.send(member, req, { outcome: resolve })));
  }

  /** Attempts until one answers or the budget is spent, starting with `first`'s outcome if given. */
  private async route(req: ApiRequest, deadline: number, first: Outcome | null): Promise<ApiResponse> {
    let last = 'no worker is available';
    let outcome = first;
    try {
      for (let attempt = 0; ; attempt++) {
        if (outcome === null) {
          if (this.cancelled.has(req.id)) return error(499, 'REQUEST_CANCELLED', 'Client closed the request');
          if (this.closed) return error(503, 'SERVER_NOT_READY', 'Server is shutting down');
          const member = this.view.owner(routeKey(req, this.o.QUEUE_SHARDS));
          if (member) outcome = await this.attempt(member, req);
        }
        if (outcome !== null) {
          this.calls.delete(req.id);
          const o = outcome;
          outcome = null;
          switch (o.kind) {
            case 'response':
              return o.res;
            case 'timeout':
              return error(504, 'REQUEST_TIMEOUT', 'The server did not answer in time');
            case 'cancelled':
              return error(499, 'REQUEST_CANCELLED', 'Client closed the request');
            case 'bounce':
              last = o.reason;
              break;
            case 'unreachable':
              last = o.reason;
              if (o.sent && req.method !== 'GET') {
                return error(502, 'INTERNAL_SERVER_ERROR', 'The server handling this request went away; it may or may not have been applied');
              }
              break;
          }
        }
        if (Date.now() >= deadline) break;
        await this.view.refreshSoon();
        const wait = RETRY_WAITS_MS[Math.min(attempt, RETRY_WAITS_MS.length - 1)]!;
        if (wait) await new Promise((r) => setTimeout(r, wait));
      }
    } finally {
      this.cancelled.delete(req.id);
      this.calls.delete(req.id);
    }
    this.log.warn({ reqId: req.id, realm: req.subdomain, why: last }, 'no worker took the request');
    return error(503, 'SERVER_NOT_READY', 'No server is available for this organization right now; try again');
  }

  cancel(requestId: string): void {
    const call = this.calls.get(requestId);
    if (call) {
      call.cancel();
      return;
    }
    // Between attempts (or before the body arrived): the next attempt gives up.
    this.cancelled.add(requestId);
    setTimeout(() => this.cancelled.delete(requestId), this.o.REROUTE_BUDGET_MS + 1000).unref();
  }

  private client(member: MemberInfo): { polls: WorkerClient; requests: WorkerClient } {
    let pair = this.clients.get(member.id);
    if (pair && (pair.requests.member.host !== member.host || pair.requests.member.port !== member.port)) {
      // Restarted under the same WORKER_ID at another address: the old connections go.
      pair.polls.retire();
      pair.requests.retire();
      pair = undefined;
    }
    if (!pair) {
      const options = {
        frontId: this.o.frontId,
        maxInFlight: this.o.MAX_IN_FLIGHT,
        log: this.log,
        onReachability: (m: MemberInfo, reachable: boolean) => {
          if (reachable) return;
          // Its key may be about to expire: read membership often for a while.
          this.log.warn({ worker: m.id }, 'worker unreachable');
          this.suspectUntil = Date.now() + 10_000;
          this.view.suspect(true);
          setTimeout(() => {
            if (Date.now() >= this.suspectUntil) this.view.suspect(false);
          }, 10_000).unref();
        },
      };
      pair = { polls: new WorkerClient(member, options), requests: new WorkerClient(member, options) };
      this.clients.set(member.id, pair);
    }
    return pair;
  }

  /** Connections to workers that left membership stop taking requests and close when idle. */
  private retireDeparted(): void {
    for (const [id, pair] of this.clients) {
      if (this.view.member(id)) continue;
      this.clients.delete(id);
      pair.polls.retire();
      pair.requests.retire();
    }
  }

  /** Front shutting down: workers answer parked long-polls now (with no events). */
  releasePolls(): void {
    for (const pair of this.clients.values()) pair.polls.releasePolls();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const pair of this.clients.values()) {
      pair.polls.close();
      pair.requests.close();
    }
    this.clients.clear();
  }
}

/**
 * Where the first attempt's outcome goes: a small object holding what the router needs to
 * pass it on, instead of closures over the dispatch and the promises between them.
 */
class FirstAttempt implements OutcomeSink {
  done = false;

  constructor(
    private readonly router: ClusterRouter,
    private readonly req: ApiRequest,
    private readonly deadline: number,
    private readonly sink: AnswerSink,
  ) {}

  outcome(o: Outcome): void {
    this.done = true;
    this.router.firstOutcome(this.req, this.deadline, o, this.sink);
  }
}
