// Objects made per event or per answer share their hidden classes. In Node 20's V8 an object
// spread followed by a property its source lacks (`{ ...event, id }`) gets a map of its own on
// every call: garbage in the old generation, collected only by major GCs. These check the
// copies the hot paths make with V8's own test of two objects' maps.
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { EventHub } from '../../src/events/hub.js';
import type { QueueOptions } from '../../src/events/queue.js';
import { subscriptionAddEvent } from '../../src/events/catalog/channels.js';
import { responseHead } from '../../cluster/transport/frames.js';

v8.setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const options = (userId: number): QueueOptions => ({
  userId, eventTypes: null, messageFilter: null, clientCapabilities: {}, applyMarkdown: false, clientGravatar: true,
  allPublicStreams: false, includeSubscribers: false, slimPresence: false, lifespanSeconds: 600, clientName: 'test',
});

describe('hidden classes of per-event and per-answer copies', () => {
  // The per-call maps begin once V8 has optimized the code that makes the copies: thousands
  // of calls, not the first few.
  const CALLS = 3000;

  it('a queued event and its id: one map for every copy', async () => {
    const hub = new EventHub({ heartbeatSeconds: 45, maxEvents: CALLS + 10, maxBytes: 100_000_000 });
    const queue = hub.create(options(7));
    for (let i = 0; i < CALLS; i++) hub.publish(subscriptionAddEvent([{ stream_id: i, name: `c${i}` }]), [7]);
    const events = await hub.poll(queue, 'r1', true);
    expect(events).toHaveLength(CALLS);
    expect(events[CALLS - 1]!.id).toBe(CALLS - 1);
    expect(Object.keys(events[0]!).at(-1)).toBe('id');
    for (const i of [CALLS / 2, CALLS - 1]) expect(haveSameMap(events[i]!, events[CALLS / 3]!), `event ${i}`).toBe(true);
  });

  it("a queue's copied options, exported and restored: one map for every queue", () => {
    const hub = new EventHub({ heartbeatSeconds: 45, maxEvents: 100, maxBytes: 1_000_000 });
    for (let i = 0; i < CALLS; i++) hub.create(options(i + 1));
    const { queues } = hub.exportQueues();
    expect(queues).toHaveLength(CALLS);
    for (const i of [CALLS / 2, CALLS - 1]) expect(haveSameMap(queues[i]!.opts, queues[CALLS / 3]!.opts), `snapshot ${i}`).toBe(true);
    const restored = new EventHub({ heartbeatSeconds: 45, maxEvents: 100, maxBytes: 1_000_000 });
    expect(restored.importQueues(queues)).toBe(CALLS);
    const opts = queues.map((q) => restored.get(q.id, q.opts.userId).opts);
    for (const i of [CALLS / 2, CALLS - 1]) expect(haveSameMap(opts[i]!, opts[CALLS / 3]!), `restored ${i}`).toBe(true);
  });

  it("a cluster answer's header: one map for every answer", () => {
    const heads = Array.from({ length: CALLS }, (_, i) => responseHead({ status: 200, body: { result: 'success', n: i }, route: '/users/me', userId: i }));
    for (const i of [CALLS / 2, CALLS - 1]) expect(haveSameMap(heads[i]!, heads[CALLS / 3]!), `answer ${i}`).toBe(true);
    expect(heads[1]).toEqual({ status: 200, body: {}, route: '/users/me', userId: 1, headers: undefined, cookies: undefined, file: undefined });
  });
});
