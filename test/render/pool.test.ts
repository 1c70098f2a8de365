// The pool runs the compiled worker (dist/src/render/worker.js), so this test
// imports the compiled pool from dist: `npm test` runs `tsc` first. When running
// vitest directly, build first (`npm run build` or `npx tsc -p tsconfig.json`).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type * as PoolModule from '../../src/render/pool.js';

const compiledPool = '../../dist/src/render/pool.js';
const { RenderPool, RenderPoolClosedError, RenderTimeoutError } = (await import(compiledPool)) as typeof PoolModule;
import type { RenderContext } from '../../src/render/types.js';

const plain: RenderContext = { realmUrl: 'https://chat.example.com' };
// A linkifier whose regex backtracks exponentially on 'aaaa…b'.
const catastrophic: RenderContext = {
  realmUrl: 'https://chat.example.com',
  linkifiers: [{ id: 1, pattern: '(a+)+$', url_template: 'https://example.com/' }],
};
const EVIL = 'a'.repeat(40) + 'b';
const BUDGET_MS = 300;

describe('RenderPool', () => {
  let pool: PoolModule.RenderPool;

  beforeAll(async () => {
    pool = RenderPool.start({ threads: 2, budgetMs: BUDGET_MS });
    // Let the threads start before timing anything.
    await pool.render('warm up', plain);
  });

  afterAll(async () => {
    await pool?.close();
  });

  test('renders a message', async () => {
    const result = await pool.render('hello **world** @**all**', plain);
    expect(result.html).toBe(
      '<p>hello <strong>world</strong> <span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span></p>',
    );
    expect(result.wildcards.stream).toBe(true);
  });

  test('renders requested in the same tick go to the worker as one task', async () => {
    const before = pool.stats().tasks;
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => pool.render(`message ${i}`, plain)));
    expect(results.map((r) => r.html)).toEqual(Array.from({ length: 20 }, (_, i) => `<p>message ${i}</p>`));
    expect(pool.stats().tasks - before).toBe(1);
  });

  test('renderMany keeps the order', async () => {
    const results = await pool.renderMany([
      { content: 'one', ctx: plain },
      { content: ':smile:', ctx: plain },
      { content: '`three`', ctx: plain },
    ]);
    expect(results.map((r) => r.html)).toEqual([
      '<p>one</p>',
      '<p><span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></p>',
      '<p><code>three</code></p>',
    ]);
  });

  test('a catastrophic linkifier times out with RenderTimeoutError and the pool recovers', async () => {
    const started = performance.now();
    const error = await pool.render(EVIL, catastrophic).then(
      () => null,
      (err: unknown) => err,
    );
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(RenderTimeoutError);
    expect((error as PoolModule.RenderTimeoutError).code).toBe('RENDER_TIMEOUT');
    // Budget plus slack for a loaded machine; without the abort this never ends.
    expect(elapsed).toBeLessThan(BUDGET_MS + 4_000);

    const next = await pool.render('next message', plain);
    expect(next.html).toBe('<p>next message</p>');
  });

  test('only the message at fault fails when it shares a batch', async () => {
    const outcomes = await Promise.allSettled([
      pool.render('innocent one', plain),
      pool.render(EVIL, catastrophic),
      pool.render('innocent two', plain),
    ]);
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { html: '<p>innocent one</p>' } });
    expect(outcomes[1].status).toBe('rejected');
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(RenderTimeoutError);
    expect(outcomes[2]).toMatchObject({ status: 'fulfilled', value: { html: '<p>innocent two</p>' } });
  });

  test('a task waiting behind a runaway one on the same thread is not charged for the wait', async () => {
    const single = RenderPool.start({ threads: 1, budgetMs: BUDGET_MS });
    try {
      await single.render('warm up', plain);
      const runaway = single.render(EVIL, catastrophic).then(
        () => null,
        (err: unknown) => err,
      );
      // A later turn: a task of its own, handed to the thread's queue while the runaway runs.
      await new Promise((resolve) => setImmediate(resolve));
      const behind = single.render('waiting behind', plain);
      expect(await runaway).toBeInstanceOf(RenderTimeoutError);
      expect((await behind).html).toBe('<p>waiting behind</p>');
      expect(single.stats().timeouts).toBe(1);
    } finally {
      await single.close();
    }
  });

  test('search highlighting runs in the pool too', async () => {
    expect(await pool.highlightMany([{ html: '<p>find me</p>', terms: ['find'] }])).toEqual([
      '<p><span class="highlight">find</span> me</p>',
    ]);
  });

  test('a closed pool refuses work', async () => {
    const other = RenderPool.start({ threads: 1 });
    await other.close();
    await expect(other.render('x', plain)).rejects.toBeInstanceOf(RenderPoolClosedError);
  });
});
