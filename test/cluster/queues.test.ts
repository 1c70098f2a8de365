// Moving event queues between processes: EventHub.exportQueues → JSON → importQueues keeps ids,
// options, buffered events, the next event id and the narrow (its filter is rebuilt).
import { describe, expect, it } from 'vitest';
import { EventHub } from '../../src/events/hub.js';
import { buildMessageFilter } from '../../src/events/narrow.js';
import { messageEvent, realmUserAddEvent } from '../../src/events/catalog/index.js';
import type { QueueOptions } from '../../src/events/queue.js';

const limits = { heartbeatSeconds: 60, maxEvents: 100, maxBytes: 1_000_000 };

function options(userId: number, extra: Partial<QueueOptions> = {}): QueueOptions {
  return {
    userId, eventTypes: new Set(['message', 'realm_user']), messageFilter: null, clientCapabilities: { empty_topic_name: true },
    applyMarkdown: true, clientGravatar: false, allPublicStreams: false, includeSubscribers: 'partial', slimPresence: true,
    lifespanSeconds: 600, clientName: 'test', ...extra,
  };
}

const message = (stream: string) => messageEvent({ type: 'stream', display_recipient: stream, subject: 't' }, []);

describe('event queue export and import', () => {
  it('round-trips queues through JSON with their ids, events and narrows', () => {
    const from = new EventHub(limits);
    const narrow = [{ operator: 'channel', operand: 'design', negated: false }];
    const plain = from.create(options(7));
    const narrowed = from.create(options(8, { narrow, messageFilter: buildMessageFilter(narrow) }));
    from.publish(message('design'), [7, 8]);
    from.publish(message('sales'), [7, 8]);
    from.publish(realmUserAddEvent({ user_id: 9 }), [7]);
    expect(plain.prune(0)).toBeNull(); // the client acknowledged the first event

    const { queues, skipped } = from.exportQueues();
    expect(skipped).toEqual([]);
    const to = new EventHub(limits);
    expect(to.importQueues(JSON.parse(JSON.stringify(queues)))).toBe(2);

    const p = to.get(plain.id, 7);
    expect(p.lastEventId).toBe(2);
    expect(p.pending().map((e) => e.id)).toEqual([1, 2]);
    expect(p.opts).toMatchObject({ includeSubscribers: 'partial', clientCapabilities: { empty_topic_name: true } });
    expect(p.wants('typing')).toBe(false);
    expect(p.prune(-1)).toMatch(/already been pruned/);
    const n = to.get(narrowed.id, 8);
    expect(n.pending().map((e) => (e.type === 'message' ? e.message.display_recipient : null))).toEqual(['design']);
    // The rebuilt filter keeps applying the narrow to new events.
    to.publish(message('sales'), [8]);
    to.publish(message('design'), [8]);
    expect(n.pending().map((e) => e.id)).toEqual([0, 1]);
    expect(() => to.get(plain.id, 8)).toThrow(/Bad event queue ID/);
  });

  it('leaves out queues that cannot move, saying why', () => {
    const hub = new EventHub(limits);
    const noNarrow = hub.create(options(1, { messageFilter: () => true }));
    const busy = hub.create(options(2));
    for (let i = 0; i < 5; i++) hub.publish(message('x'), [2]);
    const { queues, skipped } = hub.exportQueues(3);
    expect(queues).toEqual([]);
    expect(skipped).toEqual([
      { id: noNarrow.id, reason: expect.stringMatching(/no narrow/) },
      { id: busy.id, reason: 'more than 3 events buffered' },
    ]);
  });

  it('tells an observer about created, changed and deleted queues', () => {
    const hub = new EventHub(limits);
    const seen: string[] = [];
    hub.onQueueChange = (q, change) => seen.push(`${change}:${q.userId}`);
    const q = hub.create(options(3));
    hub.publish(message('x'), [3]);
    hub.delete(q);
    expect(seen).toEqual(['created:3', 'event:3', 'deleted:3']);
    hub.close();
  });
});
