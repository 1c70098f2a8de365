// RenderPool: renders on piscina worker threads with a time budget per task.
//
// Renders requested in the same turn of the event loop are sent as one task
// (a task costs ~0.1–0.2 ms of overhead). The pool keeps at most two tasks per
// thread in flight (one running, one ready behind it); a task's budget measures
// its running time, from when its thread starts it, not time spent queued.
// When the budget runs out the task's AbortSignal fires; piscina then
// terminates the thread (the only way to stop a runaway regex) and starts a
// fresh one. A batch that timed out is retried one message per
// task so only the message at fault fails, with RenderTimeoutError.

import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { renderMarkdown } from './markdown.js';
import type { RenderContext, RenderResult } from './types.js';
import type { StartSlot, WorkerTask } from './worker.js';

export class RenderTimeoutError extends Error {
  readonly code = 'RENDER_TIMEOUT';
  constructor(readonly budgetMs: number) {
    super(`Rendering the message took longer than ${budgetMs} ms`);
    this.name = 'RenderTimeoutError';
  }
}

export class RenderPoolClosedError extends Error {
  readonly code = 'RENDER_POOL_CLOSED';
  constructor() {
    super('The render pool is closed');
    this.name = 'RenderPoolClosedError';
  }
}

export interface RenderPoolOptions {
  /** Worker threads (default: available cores - 1, between 1 and 4). */
  threads?: number;
  /** Time budget of one task in ms (default 5000, Zulip's limit on rendering a message). */
  budgetMs?: number;
  /** Most messages sent to a worker in one task (default 32). */
  maxBatch?: number;
  /** Worker script; defaults to the compiled worker.js next to this file. */
  workerFilename?: string | URL;
}

interface PendingRender {
  content: string;
  ctx: RenderContext;
  resolve: (result: RenderResult) => void;
  reject: (err: Error) => void;
}

interface Batch {
  items: PendingRender[];
  /** Set for retries: a timeout is then final. */
  single: boolean;
}

/** Longest a task may wait for a (re)starting thread before it counts as failed. */
const STARTUP_GRACE_MS = 30_000;

/**
 * Tasks handed to piscina per thread: one running and one waiting behind it, so that a thread
 * does not sit idle while its last result travels back to a busy main thread and the next
 * batch travels out. A waiting task is not charged for its wait: its budget starts when its
 * thread starts it (see StartSlot). More than two only splits the same renders into smaller
 * batches.
 */
const TASKS_PER_THREAD = 2;

/** Start-time slots shared with the threads; tasks beyond this many at once get a buffer of their own. */
const START_SLOTS = 64;

function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/**
 * A task's abort signal, as piscina takes one (it listens for 'abort' once, and removes its
 * listener when the task ends). An AbortController would do, but Node adds its fields to each
 * AbortSignal after making it, which gives every signal hidden classes of its own; one per
 * render task, for the major collections to clear.
 */
class TaskSignal {
  aborted = false;
  reason: unknown = undefined;
  private listener: (() => void) | null = null;

  addEventListener(_name: 'abort', listener: () => void): void {
    this.listener = listener;
  }

  removeEventListener(_name: 'abort', listener: () => void): void {
    if (this.listener === listener) this.listener = null;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = new DOMException('This operation was aborted', 'AbortError');
    const listener = this.listener;
    this.listener = null;
    listener?.();
  }
}

export class RenderPool {
  private readonly piscina: Piscina<WorkerTask, RenderResult[] | string[]>;
  private readonly threads: number;
  private readonly budgetMs: number;
  private readonly maxBatch: number;
  /** Renders collected during the current event-loop turn. */
  private collecting: PendingRender[] = [];
  private flushScheduled = false;
  /** Batches waiting for a free thread. */
  private readonly waiting: Batch[] = [];
  private inFlight = 0;
  private closed = false;
  private readonly counters = { tasks: 0, renders: 0, timeouts: 0 };
  /** Where running tasks write their start time (see StartSlot), and the slots free. */
  private readonly startBuffer = new SharedArrayBuffer(START_SLOTS * Float64Array.BYTES_PER_ELEMENT);
  private readonly startTimes = new Float64Array(this.startBuffer);
  private readonly freeSlots = Array.from({ length: START_SLOTS }, (_, i) => START_SLOTS - 1 - i);

  private constructor(options: RenderPoolOptions) {
    this.threads = Math.max(1, options.threads ?? Math.min(4, Math.max(1, availableParallelism() - 1)));
    this.budgetMs = options.budgetMs ?? 5000;
    this.maxBatch = Math.max(1, options.maxBatch ?? 32);
    const filename = options.workerFilename ?? new URL('./worker.js', import.meta.url);
    this.piscina = new Piscina({
      filename: filename instanceof URL ? filename.href : filename,
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: 60_000,
    });
  }

  static start(options: RenderPoolOptions = {}): RenderPool {
    return new RenderPool(options);
  }

  /** Render one message; calls made in the same tick share a worker task. */
  render(content: string, ctx: RenderContext): Promise<RenderResult> {
    if (this.closed) return Promise.reject(new RenderPoolClosedError());
    return new Promise<RenderResult>((resolve, reject) => {
      this.collecting.push({ content, ctx, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Render several messages; results are in the same order. */
  renderMany(items: Array<{ content: string; ctx: RenderContext }>): Promise<RenderResult[]> {
    return Promise.all(items.map((item) => this.render(item.content, item.ctx)));
  }

  /** Highlight search terms in rendered HTML fragments, off-thread. */
  async highlightMany(items: Array<{ html: string; terms: string[] }>): Promise<string[]> {
    if (this.closed) throw new RenderPoolClosedError();
    try {
      return (await this.runWithBudget({ kind: 'highlight', items })) as string[];
    } catch (err) {
      if (isAbortError(err)) throw new RenderTimeoutError(this.budgetMs);
      throw err;
    }
  }

  /**
   * Run a task; abort it once it has run for `budgetMs`. The clock starts when the thread
   * starts the task (it writes the time into shared memory; thread start-up is not counted),
   * with a generous cap in case it never starts. The timer checks that time when it fires
   * and waits for the rest of the budget if the task started late.
   */
  private async runWithBudget(task: WorkerTask): Promise<RenderResult[] | string[]> {
    const signal = new TaskSignal();
    const pooled = this.freeSlots.pop();
    const started: StartSlot = pooled === undefined ? { buffer: new SharedArrayBuffer(8), slot: 0 } : { buffer: this.startBuffer, slot: pooled };
    const times = pooled === undefined ? new Float64Array(started.buffer) : this.startTimes;
    times[started.slot] = 0;
    const dispatchedAt = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      const now = Date.now();
      const startedAt = times[started.slot]!;
      if (startedAt === 0) {
        if (now - dispatchedAt >= this.budgetMs + STARTUP_GRACE_MS) signal.abort();
        else timer = setTimeout(check, Math.min(this.budgetMs, dispatchedAt + this.budgetMs + STARTUP_GRACE_MS - now));
      } else if (now - startedAt >= this.budgetMs) {
        signal.abort();
      } else {
        timer = setTimeout(check, startedAt + this.budgetMs - now);
      }
    };
    timer = setTimeout(check, this.budgetMs);
    try {
      // Set on the task itself: a spread copy gets a hidden class of its own for every task.
      task.started = started;
      return await this.piscina.run(task, { signal });
    } finally {
      clearTimeout(timer);
      if (pooled !== undefined) this.freeSlots.push(pooled);
    }
  }

  /** Counts since start: worker tasks run, messages rendered, render timeouts. */
  stats(): { tasks: number; renders: number; timeouts: number; threads: number; queued: number } {
    const queued = this.collecting.length + this.waiting.reduce((n, b) => n + b.items.length, 0);
    return { ...this.counters, threads: this.threads, queued };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const pending = [...this.collecting, ...this.waiting.flatMap((b) => b.items)];
    this.collecting = [];
    this.waiting.length = 0;
    for (const item of pending) item.reject(new RenderPoolClosedError());
    await this.piscina.destroy();
  }

  private flush(): void {
    this.flushScheduled = false;
    const items = this.collecting;
    this.collecting = [];
    for (let i = 0; i < items.length; i += this.maxBatch) {
      this.enqueue({ items: items.slice(i, i + this.maxBatch), single: false });
    }
  }

  private enqueue(batch: Batch): void {
    if (this.inFlight < this.threads * TASKS_PER_THREAD) {
      void this.dispatch(batch);
      return;
    }
    // All threads busy: top up a waiting batch instead of adding a task.
    const last = this.waiting[this.waiting.length - 1];
    if (!batch.single && last && !last.single && last.items.length + batch.items.length <= this.maxBatch) {
      last.items.push(...batch.items);
    } else {
      this.waiting.push(batch);
    }
  }

  private async dispatch(batch: Batch): Promise<void> {
    this.inFlight++;
    const task: WorkerTask = {
      kind: 'render',
      items: batch.items.map(({ content, ctx }) => ({ content, ctx })),
    };
    try {
      this.counters.tasks++;
      const results = (await this.runWithBudget(task)) as RenderResult[];
      this.counters.renders += results.length;
      batch.items.forEach((item, i) => item.resolve(results[i]));
    } catch (err) {
      if (isAbortError(err) && !this.closed) {
        if (batch.single || batch.items.length === 1) {
          this.counters.timeouts += batch.items.length;
          for (const item of batch.items) item.reject(new RenderTimeoutError(this.budgetMs));
        } else {
          // Find the culprit: retry each message on its own.
          for (const item of batch.items) this.waiting.unshift({ items: [item], single: true });
        }
      } else {
        const error = this.closed ? new RenderPoolClosedError() : err instanceof Error ? err : new Error(String(err));
        for (const item of batch.items) item.reject(error);
      }
    } finally {
      this.inFlight--;
      this.pump();
    }
  }

  private pump(): void {
    while (!this.closed && this.inFlight < this.threads * TASKS_PER_THREAD && this.waiting.length > 0) {
      void this.dispatch(this.waiting.shift()!);
    }
  }
}

/** In-thread rendering, for comparison with the pool in benchmarks. */
export function renderDirect(content: string, ctx: RenderContext): RenderResult {
  return renderMarkdown(content, ctx);
}
