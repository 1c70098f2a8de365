// The two job runners run the same processors the same way: retries with exponential
// backoff, permanent failures, bounded concurrency, plain-data job payloads, schedules, and
// what close() waits for. The BullMQ runner runs against the real Redis (127.0.0.1:6379, or
// TEST_REDIS_URL): the test fails, not skips, when it is unreachable.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { InProcessJobRunner } from '../../src/jobs/inProcess.js';
import { BullJobRunner } from '../../src/jobs/bull.js';
import { PermanentJobError, type JobDefinition, type JobRunner, type JobTable } from '../../src/jobs/types.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = pino({ level: 'silent' });
const deps: unknown = { log: silent };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

/** Processors that record what happened to them. */
function recorder() {
  const calls: Array<{ name: string; data: unknown; attempt: number; at: number }> = [];
  let running = 0;
  let maxRunning = 0;
  const finished: string[] = [];
  const table = {
    /** Fails until `data.succeedOn`, then succeeds. */
    flaky: {
      attempts: 3,
      backoffMs: 100,
      async run(data: { key: string; succeedOn: number }, ctx) {
        calls.push({ name: 'flaky', data, attempt: ctx.attempt, at: Date.now() });
        if (ctx.attempt < data.succeedOn) throw new Error(`try ${ctx.attempt} fails`);
        finished.push(data.key);
      },
    } satisfies JobDefinition<{ key: string; succeedOn: number }>,
    permanent: {
      attempts: 3,
      backoffMs: 50,
      async run(data: { key: string }, ctx) {
        calls.push({ name: 'permanent', data, attempt: ctx.attempt, at: Date.now() });
        throw new PermanentJobError('no point in trying again');
      },
    } satisfies JobDefinition<{ key: string }>,
    slow: {
      async run(data: { key: string; ms: number }, ctx) {
        calls.push({ name: 'slow', data, attempt: ctx.attempt, at: Date.now() });
        running++;
        maxRunning = Math.max(maxRunning, running);
        await sleep(data.ms);
        running--;
        finished.push(data.key);
      },
    } satisfies JobDefinition<{ key: string; ms: number }>,
    echo: {
      async run(data: unknown, ctx) {
        calls.push({ name: 'echo', data, attempt: ctx.attempt, at: Date.now() });
      },
    } satisfies JobDefinition<unknown>,
  } satisfies JobTable;
  return { table, calls, finished, maxRunning: () => maxRunning };
}

type Table = ReturnType<typeof recorder>['table'];

interface Flavour {
  name: string;
  make(table: Table, concurrency: number, prefix?: string): Promise<JobRunner<Table> & { prefix?: string }>;
}

const prefixes: string[] = [];
let redis: Redis | null = null;

async function removeKeys(prefix: string): Promise<void> {
  redis ??= new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
}

const flavours: Flavour[] = [
  {
    name: 'in-process',
    async make(table, concurrency) {
      return new InProcessJobRunner({ table, log: silent, concurrency });
    },
  },
  {
    name: 'BullMQ',
    async make(table, concurrency, prefix) {
      const p = prefix ?? `jobs-test-${process.pid}-${randomBytes(4).toString('hex')}:`;
      prefixes.push(p);
      const runner = new BullJobRunner({ table, log: silent, redisUrl: REDIS_URL, prefix: p, concurrency });
      await runner.ready();
      return Object.assign(runner, { prefix: p });
    },
  },
];

const open: Array<JobRunner<Table>> = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

afterAll(async () => {
  for (const p of prefixes) await removeKeys(p);
  await redis?.quit();
});

describe.each(flavours)('$name runner', (flavour) => {
  async function started(concurrency = 4, prefix?: string) {
    const rec = recorder();
    const runner = await flavour.make(rec.table, concurrency, prefix);
    open.push(runner);
    runner.start(deps);
    return { rec, runner };
  }

  it('retries a failing job with exponential backoff until it succeeds', async () => {
    const { rec, runner } = await started();
    await runner.enqueue('flaky', { key: 'a', succeedOn: 3 });
    await until(() => rec.finished.includes('a'));
    const tries = rec.calls.filter((c) => c.name === 'flaky');
    expect(tries.map((c) => c.attempt)).toEqual([1, 2, 3]);
    // 100 ms, then 200 ms (timers may fire a little early or late; never much early).
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(90);
    expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(190);
  });

  it('gives up after the allowed attempts, and the options of one enqueue override the job defaults', async () => {
    const { rec, runner } = await started();
    await runner.enqueue('flaky', { key: 'never', succeedOn: 99 });
    await runner.enqueue('flaky', { key: 'twice', succeedOn: 99 }, { attempts: 2, backoffMs: 20 });
    await until(() => rec.calls.filter((c) => (c.data as { key: string }).key === 'never').length === 3);
    await sleep(600);
    const tries = (key: string) => rec.calls.filter((c) => (c.data as { key: string }).key === key).map((c) => c.attempt);
    expect(tries('never')).toEqual([1, 2, 3]);
    expect(tries('twice')).toEqual([1, 2]);
    expect(rec.finished).toEqual([]);
  });

  it('does not retry a permanent failure', async () => {
    const { rec, runner } = await started();
    await runner.enqueue('permanent', { key: 'p' });
    await until(() => rec.calls.length === 1);
    await sleep(300);
    expect(rec.calls.map((c) => c.attempt)).toEqual([1]);
  });

  it('runs at most `concurrency` jobs at once', async () => {
    const { rec, runner } = await started(2);
    for (let i = 0; i < 6; i++) await runner.enqueue('slow', { key: `s${i}`, ms: 120 });
    await until(() => rec.finished.length === 6, 10_000);
    expect(rec.maxRunning()).toBe(2);
  });

  it('waits for a delay before the first try', async () => {
    const { rec, runner } = await started();
    const at = Date.now();
    await runner.enqueue('echo', { n: 1 }, { delayMs: 300 });
    await until(() => rec.calls.length === 1);
    expect(rec.calls[0]!.at - at).toBeGreaterThanOrEqual(280);
  });

  it('hands processors plain JSON data', async () => {
    const { rec, runner } = await started();
    await runner.enqueue('echo', { when: new Date(0), nested: { list: [1, 'two', null] }, gone: undefined });
    await until(() => rec.calls.length === 1);
    expect(rec.calls[0]!.data).toEqual({ when: '1970-01-01T00:00:00.000Z', nested: { list: [1, 'two', null] } });
  });

  it('refuses unknown jobs', async () => {
    const { runner } = await started();
    await expect(runner.enqueue('nope' as 'echo', {})).rejects.toThrow(/Unknown job 'nope'/);
  });

  it('runs a schedule at once and then every interval, until closed', async () => {
    const { rec, runner } = await started();
    await runner.every('echo', 250, { tick: true });
    await until(() => rec.calls.length >= 3, 5000);
    await runner.close();
    const n = rec.calls.length;
    await sleep(600);
    expect(rec.calls.length).toBe(n);
    expect(rec.calls.every((c) => (c.data as { tick: boolean }).tick)).toBe(true);
  });

  it('close() waits for the jobs in flight and refuses new ones', async () => {
    const { rec, runner } = await started(1);
    await runner.enqueue('slow', { key: 'inflight', ms: 400 });
    await until(() => rec.calls.length === 1);
    await runner.close();
    expect(rec.finished).toContain('inflight');
    await expect(runner.enqueue('echo', {})).rejects.toThrow(/closed/);
  });
});

describe('in-process runner drain', () => {
  it('runs every queued job, delayed retries included, before close() returns', async () => {
    const rec = recorder();
    const runner = new InProcessJobRunner({ table: rec.table, log: silent, concurrency: 1 });
    runner.start(deps);
    for (let i = 0; i < 3; i++) await runner.enqueue('slow', { key: `q${i}`, ms: 50 });
    await runner.enqueue('flaky', { key: 'retry', succeedOn: 2 });
    await runner.close();
    expect(rec.finished.sort()).toEqual(['q0', 'q1', 'q2', 'retry']);
    expect(runner.pending).toEqual({ ready: 0, running: 0, delayed: 0 });
  });

  it('drops what is still waiting when the drain deadline passes', async () => {
    const rec = recorder();
    const runner = new InProcessJobRunner({ table: rec.table, log: silent, drainTimeoutMs: 200 });
    runner.start(deps);
    await runner.enqueue('echo', { late: true }, { delayMs: 60_000 });
    const at = Date.now();
    await runner.close();
    expect(Date.now() - at).toBeLessThan(2000);
    expect(rec.calls).toEqual([]);
    expect(runner.pending.delayed).toBe(0);
  });

  it('holds jobs queued before start() until it starts', async () => {
    const rec = recorder();
    const runner = new InProcessJobRunner({ table: rec.table, log: silent });
    open.push(runner);
    await runner.enqueue('echo', { early: 1 });
    await sleep(50);
    expect(rec.calls).toEqual([]);
    runner.start(deps);
    await until(() => rec.calls.length === 1);
  });
});

describe('BullMQ runner durability', () => {
  it('leaves queued jobs in Redis at close; the next runner on the same prefix runs them', async () => {
    const prefix = `jobs-test-${process.pid}-${randomBytes(4).toString('hex')}:`;
    const first = recorder();
    const a = await flavours[1]!.make(first.table, 1, prefix);
    a.start(deps);
    await a.enqueue('slow', { key: 'running', ms: 300 });
    await until(() => first.calls.length === 1);
    await a.enqueue('slow', { key: 'waiting', ms: 10 });
    await a.close();
    expect(first.finished).toEqual(['running']);

    const second = recorder();
    const b = await flavours[1]!.make(second.table, 1, prefix);
    open.push(b);
    b.start(deps);
    await until(() => second.finished.includes('waiting'));
    expect(second.calls.map((c) => (c.data as { key: string }).key)).toEqual(['waiting']);
  });

  it('keeps every key under its prefix', async () => {
    const prefix = `jobs-test-${process.pid}-${randomBytes(4).toString('hex')}:`;
    const rec = recorder();
    const runner = await flavours[1]!.make(rec.table, 1, prefix);
    open.push(runner);
    runner.start(deps);
    await runner.enqueue('flaky', { key: 'x', succeedOn: 99 }, { attempts: 1 });
    await until(() => rec.calls.length === 1);
    redis ??= new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const [, keys] = await redis.scan('0', 'MATCH', `${prefix}*`, 'COUNT', 1000);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.startsWith(`${prefix}jobs:`) || k.startsWith(`${prefix}local-`))).toBe(true);
  });

  it('fails to start when Redis cannot be reached', async () => {
    const rec = recorder();
    const runner = new BullJobRunner({ table: rec.table, log: silent, redisUrl: 'redis://127.0.0.1:1', prefix: 'unreachable:' });
    await expect(runner.ready()).rejects.toThrow(/Cannot reach Redis for jobs/);
    runner.abort();
  });
});
