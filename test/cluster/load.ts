// Client load for the cluster tests: writers that send messages and remember which sends were
// acknowledged, and listeners that long-poll an event queue and check that its event ids run
// on without a gap.
import type { ClusterClient } from '../helpers/cluster.js';

export interface Failure {
  status: number;
  code?: string;
  at: number;
  /** A writer's failed send: what it tried to send. */
  content?: string;
}

/** Sends direct messages to itself (or what `message` makes) as fast as the interval allows, one at a time. */
export class Writer {
  readonly acked: { id: number; content: string; sentAt: number; at: number }[] = [];
  readonly failed: Failure[] = [];
  /** Every send: when it started and ended. */
  readonly samples: { start: number; end: number; status: number }[] = [];
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private n = 0;
  /** Tells this writer's messages from other writers' in the same realm. */
  readonly tag = Math.random().toString(36).slice(2, 8);

  constructor(
    readonly client: ClusterClient,
    private readonly intervalMs: number,
    private readonly message: (content: string) => Record<string, unknown> = (content) => ({ type: 'direct', to: [client.userId], content }),
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const content = `load ${this.client.subdomain} ${this.tag} #${this.n++}`;
      const sentAt = Date.now();
      const r = await this.client.post('/messages', this.message(content) as Parameters<ClusterClient['post']>[1]).catch((err: Error) => ({
        status: 0, body: { code: err.message } as Record<string, unknown>,
      }));
      const at = Date.now();
      this.samples.push({ start: sentAt, end: at, status: r.status });
      if (r.status === 200) this.acked.push({ id: r.body.id as number, content, sentAt, at });
      else this.failed.push({ status: r.status, code: r.body.code as string, at, content });
      await new Promise((res) => setTimeout(res, this.intervalMs));
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** The longest a send took among those in flight at some point of [from, to]. */
  slowest(from: number, to: number): number {
    let max = 0;
    for (const s of this.samples) if (s.end >= from && s.start <= to) max = Math.max(max, s.end - s.start);
    return max;
  }
}

/** Long-polls one event queue for message events. */
export class Listener {
  queueId = '';
  lastEventId = -1;
  readonly messageIds: number[] = [];
  /** Event ids that did not follow the previous one (events lost). */
  readonly gaps: { expected: number; got: number }[] = [];
  badQueue = 0;
  readonly errors: Failure[] = [];
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  /** When the current queue was registered (after BAD_EVENT_QUEUE_ID, a new one is). */
  registeredAt = 0;

  constructor(readonly client: ClusterClient) {}

  async register(): Promise<void> {
    const r = await this.client.post('/register', { event_types: ['message'] });
    if (r.status !== 200) throw new Error(`register failed: ${r.status} ${JSON.stringify(r.body)}`);
    this.queueId = r.body.queue_id as string;
    this.lastEventId = r.body.last_event_id as number;
    this.registeredAt = Date.now();
  }

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const r = await this.client
        .get('/events', { queue_id: this.queueId, last_event_id: this.lastEventId })
        .catch((err: Error) => ({ status: 0, body: { code: err.message } as Record<string, unknown> }));
      if (r.status === 200) {
        for (const event of r.body.events as { id: number; type: string; message?: { id: number } }[]) {
          if (event.id !== this.lastEventId + 1) this.gaps.push({ expected: this.lastEventId + 1, got: event.id });
          this.lastEventId = event.id;
          if (event.type === 'message') this.messageIds.push(event.message!.id);
        }
      } else if (r.body.code === 'BAD_EVENT_QUEUE_ID') {
        this.badQueue++;
        await this.register();
      } else {
        this.errors.push({ status: r.status, code: r.body.code as string, at: Date.now() });
        await new Promise((res) => setTimeout(res, 100));
      }
    }
  }

  /** Waits until every one of `ids` arrived (or the timeout passed), then stops polling. */
  async finish(ids: number[], timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline && !ids.every((id) => this.messageIds.includes(id))) await new Promise((r) => setTimeout(r, 50));
    this.running = false;
    await this.loop;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Realm names for which `wanted` holds, e.g. "on w1 among {w1, w2}, on w3 once w3 joins":
 * placement is a pure function of the names, so tests choose what moves where.
 */
export function pickRealms(prefix: string, count: number, wanted: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    if (i > 100_000) throw new Error('no realm names satisfy the placement wanted');
    const name = `${prefix}${i}`;
    if (wanted(name)) out.push(name);
  }
  return out;
}
