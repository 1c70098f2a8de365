// Render throughput: the same corpus of message bodies rendered in this thread (what calling
// marked directly costs) and through the render pool's worker threads with many renders in
// flight, so the ratio shows what the pool's hand-off costs or gains on this machine.
//
// The compiled renderer is imported at run time from dist/src/render (the runner runs from
// dist/bench), so the phase loads piscina and the renderer only when it runs.

import { availableParallelism } from 'node:os';
import type { RenderContext, RenderResult } from '../../src/render/types.js';
import type { BenchOptions } from '../lib/options.js';
import { fmt, ms, progress } from '../lib/progress.js';
import { Samples, type LatencySummary } from '../lib/stats.js';
import { benchContext, chatMessages, fixtureInputs } from './renderCorpus.js';

/** Renders kept in flight by the concurrent callers of `pool.render`. */
const IN_FLIGHT = 64;
/** Messages per `renderMany` call, and how many such calls run at once. */
const MANY_BATCH = 32;
const MANY_CALLERS = 4;
const CORPUS_USERS = 300;
const GENERATED_MESSAGES = 1000;

export interface RenderThroughput {
  messagesPerSecond: number;
  /** Per message for `direct` and `render`; per call (of `batch` messages) for `renderMany`. */
  latency: LatencySummary;
  messages: number;
  failed: number;
  firstFailure?: string;
}

export interface RenderPoolFigures {
  threads: number;
  /** `pool.render` called by IN_FLIGHT concurrent callers (same-tick batching applies). */
  render: RenderThroughput & { inFlight: number; tasks: number };
  /** `pool.renderMany` of MANY_BATCH messages, MANY_CALLERS calls at once. */
  renderMany: RenderThroughput & { batch: number; callers: number };
}

export interface RenderWorkloadResult {
  corpus: { messages: number; fixtureInputs: number; generated: number; users: number; meanChars: number };
  direct: RenderThroughput;
  pools: RenderPoolFigures[];
  /** The server's default pool size: cores − 1, at least 1. */
  defaultThreads: number;
}

interface Work {
  content: string;
  ctx: RenderContext;
}

type PoolModule = typeof import('../../src/render/pool.js');
type Pool = import('../../src/render/pool.js').RenderPool;

function throughput(samples: Samples, messages: number, windowMs: number, failed: number, firstFailure?: string): RenderThroughput {
  return { messagesPerSecond: (messages * 1000) / Math.max(1, windowMs), latency: samples.summary(), messages, failed, firstFailure };
}

/** Renders in this thread, one message after another, for `durationMs` after `warmupMs`. */
async function measureDirect(render: (content: string, ctx: RenderContext) => RenderResult, work: Work[], warmupMs: number, durationMs: number): Promise<RenderThroughput> {
  const samples = new Samples();
  let failed = 0;
  let firstFailure: string | undefined;
  let i = 0;
  const startedAt = performance.now();
  const measureFrom = startedAt + warmupMs;
  const end = measureFrom + durationMs;
  let messages = 0;
  for (let now = startedAt; now < end; ) {
    const { content, ctx } = work[i++ % work.length];
    let ok = true;
    try {
      render(content, ctx);
    } catch (err) {
      ok = false;
      firstFailure ??= (err as Error).message;
    }
    const done = performance.now();
    if (now >= measureFrom) {
      if (ok) {
        samples.add(done - now);
        messages++;
      } else {
        failed++;
      }
    }
    now = done;
    // Let timers (progress, signals) run now and then.
    if (i % 500 === 0) await new Promise((r) => setImmediate(r));
  }
  return throughput(samples, messages, durationMs, failed, firstFailure);
}

/**
 * Closed loop of `callers` concurrent callers, each awaiting `call(items)` on the next
 * `size` messages; counts what completes inside the measuring window.
 */
async function measureLoop(callers: number, size: number, work: Work[], warmupMs: number, durationMs: number, call: (items: Work[]) => Promise<unknown>): Promise<RenderThroughput> {
  const samples = new Samples();
  let failed = 0;
  let firstFailure: string | undefined;
  let messages = 0;
  let next = 0;
  const measureFrom = performance.now() + warmupMs;
  const end = measureFrom + durationMs;
  let lastDone = measureFrom;
  const caller = async () => {
    while (performance.now() < end) {
      const items = Array.from({ length: size }, () => work[next++ % work.length]);
      const t0 = performance.now();
      let ok = true;
      try {
        await call(items);
      } catch (err) {
        ok = false;
        if (t0 >= measureFrom) failed += size;
        firstFailure ??= (err as Error).message;
      }
      const done = performance.now();
      if (ok && t0 >= measureFrom) {
        samples.add(done - t0);
        messages += size;
        lastDone = Math.max(lastDone, done);
      }
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  return throughput(samples, messages, lastDone - measureFrom, failed, firstFailure);
}

async function measurePool(mod: PoolModule, threads: number, work: Work[], warmupMs: number, durationMs: number): Promise<RenderPoolFigures> {
  const pool: Pool = mod.RenderPool.start({ threads });
  try {
    // Wait for every thread to be up before timing anything.
    await pool.renderMany(work.slice(0, threads * 32));
    const tasksBefore = pool.stats().tasks;
    const render = await measureLoop(IN_FLIGHT, 1, work, warmupMs, durationMs, (items) => pool.render(items[0].content, items[0].ctx));
    const tasks = pool.stats().tasks - tasksBefore;
    const many = await measureLoop(MANY_CALLERS, MANY_BATCH, work, warmupMs, durationMs, (items) => pool.renderMany(items));
    return {
      threads,
      render: { ...render, inFlight: IN_FLIGHT, tasks },
      renderMany: { ...many, batch: MANY_BATCH, callers: MANY_CALLERS },
    };
  } finally {
    await pool.close();
  }
}

export async function runRender(opts: BenchOptions): Promise<RenderWorkloadResult> {
  const mod = (await import('../../src/render/pool.js')) as PoolModule;
  const { contextForContent } = await import('../../src/render/scan.js');
  const full = benchContext(CORPUS_USERS);
  const fixtures = fixtureInputs();
  const generated = chatMessages(GENERATED_MESSAGES, full.users ?? []);
  // Interleaved, so every stretch of the loop sees both kinds.
  const bodies: string[] = [];
  for (let i = 0; i < Math.max(fixtures.length, generated.length); i++) {
    if (i < generated.length) bodies.push(generated[i]);
    if (i < fixtures.length) bodies.push(fixtures[i]);
  }
  // Narrowed as the server narrows before handing a message to the pool; both paths render
  // with the same contexts, so only where the render runs differs.
  const work = bodies.map((content) => ({ content, ctx: contextForContent(full, content) }));
  const meanChars = bodies.reduce((n, b) => n + b.length, 0) / bodies.length;
  const warmupMs = opts.warmupSeconds * 1000;
  const durationMs = opts.seconds * 1000;

  const direct = await measureDirect(mod.renderDirect, work, warmupMs, durationMs);
  progress(`  render direct: ${fmt(direct.messagesPerSecond)} messages/s, p99 ${ms(direct.latency.p99)}`);

  const defaultThreads = Math.max(1, availableParallelism() - 1);
  const pools: RenderPoolFigures[] = [];
  for (const threads of [...new Set([defaultThreads, 2])]) {
    const figures = await measurePool(mod, threads, work, warmupMs, durationMs);
    progress(`  render pool ×${threads}: render ${fmt(figures.render.messagesPerSecond)}/s (p99 ${ms(figures.render.latency.p99)}), renderMany ${fmt(figures.renderMany.messagesPerSecond)}/s`);
    pools.push(figures);
  }
  return {
    corpus: { messages: work.length, fixtureInputs: fixtures.length, generated: generated.length, users: CORPUS_USERS, meanChars },
    direct,
    pools,
    defaultThreads,
  };
}
