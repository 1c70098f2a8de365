// What delivery of scheduled messages needs from the job runners: a job id queues a job once
// while it is pending (both runners), delayed wake-ups do not hold up the in-process runner's
// close() and survive waits longer than setTimeout takes; and the event catalog knows the
// later/saved events the actions build.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { InProcessJobRunner } from '../../src/jobs/inProcess.js';
import { BullJobRunner } from '../../src/jobs/bull.js';
import type { JobDefinition, JobTable } from '../../src/jobs/types.js';
import * as catalog from '../../src/events/catalog/index.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function recorder() {
  const seen: unknown[] = [];
  const table = {
    note: {
      async run(data: { n: number }) {
        seen.push(data.n);
      },
    } satisfies JobDefinition<{ n: number }>,
  } satisfies JobTable;
  return { table, seen };
}

async function until(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

describe('in-process runner', () => {
  it('queues a job id once while it is pending, and again once it ran', async () => {
    const { table, seen } = recorder();
    const runner = new InProcessJobRunner({ table, log: silent });
    runner.start({});
    await runner.enqueue('note', { n: 1 }, { jobId: 'same', delayMs: 100 });
    await runner.enqueue('note', { n: 2 }, { jobId: 'same', delayMs: 100 });
    await runner.enqueue('note', { n: 3 }, { jobId: 'other' });
    await until(() => seen.length === 2);
    await sleep(150);
    expect(seen.sort()).toEqual([1, 3]);
    await runner.enqueue('note', { n: 4 }, { jobId: 'same' });
    await until(() => seen.length === 3);
    await runner.close();
  });

  it('drops wake-ups at close at once, and waits longer than setTimeout can', async () => {
    const { table, seen } = recorder();
    const runner = new InProcessJobRunner({ table, log: silent, drainTimeoutMs: 20_000 });
    runner.start({});
    await runner.enqueue('note', { n: 1 }, { delayMs: 2 ** 31 + 5000 });
    await sleep(50);
    expect(seen).toEqual([]);
    expect(runner.pending.delayed).toBe(1);
    const at = Date.now();
    await runner.close();
    expect(Date.now() - at).toBeLessThan(1000);
    expect(runner.pending).toEqual({ ready: 0, running: 0, delayed: 0 });
  });
});

describe('BullMQ runner', () => {
  const prefix = `later-jobs-${process.pid}-${randomBytes(4).toString('hex')}:`;
  afterAll(async () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
    await redis.quit();
  });

  it('queues a job id once while it is pending', async () => {
    const { table, seen } = recorder();
    const runner = new BullJobRunner({ table, log: silent, redisUrl: REDIS_URL, prefix });
    await runner.ready();
    runner.start({});
    await runner.enqueue('note', { n: 1 }, { jobId: 'sm-1-1000', delayMs: 200 });
    await runner.enqueue('note', { n: 2 }, { jobId: 'sm-1-1000', delayMs: 200 });
    await until(() => seen.length === 1);
    await sleep(400);
    expect(seen).toEqual([1]);
    await runner.close();
  });
});

describe('the later and saved events', () => {
  it('are in the catalog, exactly as the constructors build them', () => {
    const built: catalog.ServerEvent[] = [
      catalog.scheduledMessagesAddEvent([
        { scheduled_message_id: 1, type: 'stream', to: 3, topic: 't', content: 'c', rendered_content: '<p>c</p>', scheduled_delivery_timestamp: 5, failed: false },
        { scheduled_message_id: 2, type: 'private', to: [4], content: 'c', rendered_content: '<p>c</p>', scheduled_delivery_timestamp: 5, failed: false },
      ]),
      catalog.scheduledMessagesRemoveEvent(1),
      catalog.remindersAddEvent([
        { reminder_id: 1, type: 'private', to: [4], content: 'c', rendered_content: '<p>c</p>', scheduled_delivery_timestamp: 5, failed: false, reminder_target_message_id: 9 },
      ]),
      catalog.remindersRemoveEvent(1),
      catalog.draftsAddEvent([{ id: 1, type: '', to: [], topic: '', content: 'c', timestamp: 5 }]),
      catalog.draftsRemoveEvent(1),
      catalog.savedSnippetsUpdateEvent({ id: 1, title: 't', content: 'c', date_created: 5 }),
      catalog.savedSnippetsRemoveEvent(1),
      catalog.navigationViewAddEvent({ fragment: 'inbox', is_pinned: true, name: null }),
      catalog.navigationViewUpdateEvent('inbox', { is_pinned: false }),
      catalog.navigationViewRemoveEvent('inbox'),
    ];
    for (const [i, event] of built.entries()) expect(catalog.checkEvent({ ...event, id: i }), JSON.stringify(event)).toBeNull();
    const wrong = { ...catalog.draftsAddEvent([{ id: 1, type: 'channel', to: [], topic: '', content: 'c', timestamp: 5 }]), id: 0 };
    expect(catalog.checkEvent(wrong)).toMatch(/type/);
    const extra = { ...catalog.savedSnippetsRemoveEvent(1), id: 0, title: 'x' };
    expect(catalog.checkEvent(extra)).toMatch(/title/);
  });
});
