// EventHub internals the HTTP tests cannot see: a cancelled or finished poll leaves no timer
// and no map entry behind; heartbeats and overflow follow the limits; per-queue shaping.
import { describe, expect, it, vi } from 'vitest';
import { EventHub } from '../../src/events/hub.js';
import { EventQueue, type QueueOptions, type QueueSnapshot } from '../../src/events/queue.js';
import { buildMessageFilter, normalizeNarrow } from '../../src/events/narrow.js';
import { topicForQueue } from '../../src/events/shape.js';
import type { ServerEvent } from '../../src/events/catalog/index.js';
import { bodyBuffer, bodyPayload, isBodyBytes } from '../../src/http/bodyText.js';

/** The text a client receives for a body (bytes for a poll's answer with events). */
const received = (body: Record<string, unknown>) => {
  const payload = bodyPayload(body);
  return typeof payload === 'string' ? payload : bodyBuffer(payload).toString('utf8');
};

/** The hub delivers whatever it is given: these tests use small events of their own shapes. */
const raw = (e: object) => e as unknown as ServerEvent;

const options = (userId: number, extra: Partial<QueueOptions> = {}): QueueOptions => ({
  userId,
  eventTypes: null,
  messageFilter: null,
  clientCapabilities: {},
  applyMarkdown: false,
  clientGravatar: true,
  allPublicStreams: false,
  includeSubscribers: false,
  slimPresence: false,
  lifespanSeconds: 600,
  clientName: 'test',
  ...extra,
});

const hub = (limits: Partial<{ heartbeatSeconds: number; maxEvents: number; maxBytes: number }> = {}) =>
  new EventHub({ heartbeatSeconds: 45, maxEvents: 100, maxBytes: 1_000_000, ...limits });

describe('EventHub', () => {
  it('releases a cancelled poll: no parked entry, no pending timer, events stay queued', async () => {
    vi.useFakeTimers();
    try {
      const h = hub();
      const q = h.create(options(1));
      const polled = h.poll(q, 'req-1', false);
      expect(h.parkedCount).toBe(1);
      expect(vi.getTimerCount()).toBe(1);
      h.cancelPoll('req-1');
      expect(await polled).toEqual([]);
      expect(h.parkedCount).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
      expect(q.parked).toBeNull();
      h.publish(raw({ type: 'x' }), [1]);
      expect(q.pending()).toEqual([{ type: 'x', id: 0 }]);
      // Cancelling again, or an unknown request, does nothing.
      h.cancelPoll('req-1');
      h.cancelPoll('nope');
      expect(h.parkedCount).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('drops the queue of a register whose client left, made or not yet made, and only while it runs', () => {
    const h = hub();
    // Left before the register made its queue: the register sees it and makes none.
    const early = h.beginRegister('req-early');
    expect(h.abandonRegister('req-early')).toBeNull();
    expect(early.abandoned).toBe(true);
    h.endRegister('req-early');
    // Left while the state was being built: the queue goes at once.
    const late = h.beginRegister('req-late');
    const q = h.create(options(1));
    late.queueId = q.id;
    expect(h.abandonRegister('req-late')).toBe(q.id);
    expect(() => h.get(q.id, 1)).toThrow(/Bad event queue ID/);
    expect(h.discard(q.id)).toBe(false);
    h.endRegister('req-late');
    // Answered: a cancel of the request leaves the queue to its client.
    const done = h.beginRegister('req-done');
    const kept = h.create(options(1));
    done.queueId = kept.id;
    h.endRegister('req-done');
    expect(h.abandonRegister('req-done')).toBeNull();
    expect(h.get(kept.id, 1)).toBe(kept);
    expect(h.queueCount).toBe(1);
  });

  it('ends a parked poll with a queued heartbeat after the interval, and clears its timer on events', async () => {
    vi.useFakeTimers();
    try {
      const h = hub({ heartbeatSeconds: 45 });
      const q = h.create(options(1));
      const polled = h.poll(q, 'a', false);
      vi.advanceTimersByTime(44_900);
      expect(h.parkedCount).toBe(1);
      vi.advanceTimersByTime(9_200);
      expect(await polled).toEqual([{ type: 'heartbeat', id: 0 }]);
      expect(h.parkedCount).toBe(0);

      // Polled again without acknowledging it, past the shortest interval between answers.
      vi.advanceTimersByTime(10);
      const second = h.poll(q, 'b', false);
      expect(await Promise.race([second, Promise.resolve('parked')])).toEqual([{ type: 'heartbeat', id: 0 }]);
      expect(q.prune(0)).toBeNull();
      const third = h.poll(q, 'c', false);
      vi.advanceTimersByTime(10);
      h.publish(raw({ type: 'y' }), [1]);
      expect(await third).toEqual([{ type: 'y', id: 1 }]);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('drops a queue that passes its event or byte bound', () => {
    const h = hub({ maxEvents: 3 });
    const q = h.create(options(1));
    for (let i = 0; i < 3; i++) h.publish(raw({ type: 'x' }), [1]);
    expect(h.queueCount).toBe(1);
    h.publish(raw({ type: 'x' }), [1]);
    expect(h.queueCount).toBe(0);
    expect(() => h.get(q.id, 1)).toThrow('Bad event queue ID');

    const small = hub({ maxBytes: 100 });
    small.create(options(2));
    small.publish(raw({ type: 'big', text: 'x'.repeat(200) }), [2]);
    expect(small.queueCount).toBe(0);
  });

  it('collects queues idle past their lifespan, but not one with a parked poll', () => {
    const h = hub();
    const idle = h.create(options(1, { lifespanSeconds: 10 }));
    const busy = h.create(options(1, { lifespanSeconds: 10 }));
    void h.poll(busy, 'r', false);
    expect(h.collectGarbage(Date.now() + 11_000)).toBe(1);
    expect(() => h.get(idle.id, 1)).toThrow();
    expect(h.get(busy.id, 1)).toBe(busy);
    h.close();
    expect(h.parkedCount).toBe(0);
  });

  it('shapes events per queue, filters by type, narrow and capabilities', () => {
    const h = hub();
    const modern = h.create(options(1, { clientCapabilities: { empty_topic_name: true, stream_typing_notifications: true } }));
    const old = h.create(options(1));
    const onlyTyping = h.create(options(2, { eventTypes: new Set(['typing']), clientCapabilities: { stream_typing_notifications: true } }));
    const narrowed = h.create(options(2, { messageFilter: buildMessageFilter(normalizeNarrow([['stream', 'Design'], ['topic', 'logo']])) }));
    h.publish((q) => raw({ type: 'typing', message_type: 'stream', topic: topicForQueue(q, '') }), [1, 2, 2]);
    expect(modern.pending()).toEqual([{ type: 'typing', message_type: 'stream', topic: '', id: 0 }]);
    expect(old.pending()).toEqual([]);
    expect(onlyTyping.pending()).toEqual([{ type: 'typing', message_type: 'stream', topic: 'general chat', id: 0 }]);
    const message = (displayRecipient: string, subject: string) =>
      raw({
        type: 'message',
        message: { type: 'stream', display_recipient: displayRecipient, subject, stream_id: 5, sender_email: 'a@b.c', sender_id: 9 },
        flags: [],
      });
    h.publish(message('design', 'Logo ideas'), [2]);
    h.publish(message('design', 'colours'), [2]);
    h.publish(message('other', 'logo'), [2]);
    expect(narrowed.pending().map((e) => (e as unknown as { message: { subject: string } }).message.subject)).toEqual(['Logo ideas']);
    expect(onlyTyping.pending()).toHaveLength(1);
  });
});

describe('per-queue event lists', () => {
  it('answers a poll that comes back to waiting events at most once per interval, as a parked one', async () => {
    vi.useFakeTimers();
    try {
      const h = hub();
      const q = h.create(options(1));
      // The first answer with events goes out at once.
      h.publish(raw({ type: 'x', n: 1 }), [1]);
      expect(await h.poll(q, 'p1', false)).toEqual([{ type: 'x', n: 1, id: 0 }]);
      // More came before the client polled again, 2 ms later: the answer waits out the 10 ms.
      h.publish(raw({ type: 'x', n: 2 }), [1]);
      vi.advanceTimersByTime(2);
      expect(q.prune(0)).toBeNull();
      let answer: unknown = null;
      void h.poll(q, 'p2', false).then((events) => (answer = events));
      await Promise.resolve();
      expect(answer).toBeNull();
      expect(h.parkedCount).toBe(1);
      h.publish(raw({ type: 'x', n: 3 }), [1]);
      await vi.advanceTimersByTimeAsync(7);
      expect(answer).toBeNull();
      await vi.advanceTimersByTimeAsync(1);
      expect(answer).toEqual([{ type: 'x', n: 2, id: 1 }, { type: 'x', n: 3, id: 2 }]);
      // dont_block answers at once, and so does a poll after the interval.
      expect(await h.poll(q, 'p3', true)).toHaveLength(2);
      vi.advanceTimersByTime(10);
      expect(await h.poll(q, 'p4', false)).toHaveLength(2);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('delivers them in order and ends a parked poll once, with all of them', async () => {
    const h = hub();
    const bulk = h.create(options(1, { clientCapabilities: { bulk_message_deletion: true } }));
    const old = h.create(options(1));
    const parked = h.poll(old, 'p', false);
    h.publish((q) => (q.opts.clientCapabilities.bulk_message_deletion ? raw({ type: 'd', ids: [1, 2] }) : [raw({ type: 'd', id_: 1 }), raw({ type: 'd', id_: 2 })]), [1]);
    expect(bulk.pending()).toEqual([{ type: 'd', ids: [1, 2], id: 0 }]);
    expect(await parked).toEqual([
      { type: 'd', id_: 1, id: 0 },
      { type: 'd', id_: 2, id: 1 },
    ]);
    h.close();
  });
});

describe('event narrows', () => {
  const event = (message: Record<string, unknown>, flags: string[] = []) => raw({ type: 'message', message, flags });
  it('match channels by name or id, senders by email or id, and the is: operands', () => {
    const m = { type: 'stream', display_recipient: 'Ops', stream_id: 7, subject: '✔ fixed it', sender_email: 'Ann@x.org', sender_id: 3 };
    const dm = { type: 'private', display_recipient: [], sender_email: 'bob@x.org', sender_id: 4, subject: '' };
    const f = (narrow: [string, string | number][]) => buildMessageFilter(normalizeNarrow(narrow))!;
    expect(f([['channel', 'ops']])(event(m))).toBe(true);
    expect(f([['channel', 7]])(event(m))).toBe(true);
    expect(f([['channel', 8]])(event(m))).toBe(false);
    expect(f([['sender', 'ann@X.org']])(event(m))).toBe(true);
    expect(f([['sender', 3]])(event(m))).toBe(true);
    expect(f([['is', 'resolved']])(event(m))).toBe(true);
    expect(f([['is', 'dm']])(event(m))).toBe(false);
    expect(f([['is', 'private']])(event(dm))).toBe(true);
    expect(f([['is', 'starred']])(event(dm, ['starred']))).toBe(true);
    expect(f([['is', 'unread']])(event(dm, ['read']))).toBe(false);
    expect(f([['is', 'mentioned']])(event(dm, ['mentioned']))).toBe(true);
    expect(f([['topic', 'general chat']])(event({ ...m, subject: '' }))).toBe(true);
    expect(f([['topic', '']])(event(m))).toBe(false);
    expect(buildMessageFilter([])).toBeNull();
  });
});

describe('shared message events', () => {
  it('serialize per queue exactly as JSON.stringify of the queued copy, each with its own id', () => {
    const h = hub();
    const a = h.create(options(1));
    const b = h.create(options(2));
    h.publish(raw({ type: 'typing', op: 'start' }), [2]);
    const message = { id: 7, content: 'caf\u00e9 "quoted" \u2603', sender_id: 1, display_recipient: [{ id: 1 }] };
    const shared = raw({ type: 'message', message, flags: ['read'] });
    const echo = raw({ type: 'message', message, flags: [], local_message_id: '12.0' });
    h.publish((q) => (q.userId === 1 ? echo : shared), [1, 2]);
    h.publish(shared, [2]);
    for (const q of [a, b]) {
      const body = { result: 'success', msg: '', events: q.pending(), queue_id: q.id };
      // The bytes a client receives: JSON.stringify's JSON in UTF-8, and the newline that ends it.
      const bytes = bodyPayload(body);
      expect(isBodyBytes(bytes)).toBe(true);
      // Written where it is put, at an offset of a larger buffer, and nothing around it.
      const into = Buffer.alloc((bytes as { byteLength: number }).byteLength + 7, 0x2a);
      (bytes as { writeTo(out: Buffer, at: number): void }).writeTo(into, 3);
      expect(into.subarray(0, 3).toString()).toBe('***');
      expect(into.subarray(into.length - 4).toString()).toBe('****');
      expect(into.subarray(3, into.length - 4).toString('utf8')).toBe(JSON.stringify(body) + '\n');
      expect(received(body)).toBe(JSON.stringify(body) + '\n');
    }
    // Answers without events, and other bodies, are text with the same newline.
    expect(bodyPayload({ result: 'success', msg: '', events: [], queue_id: a.id })).toBe(JSON.stringify({ result: 'success', msg: '', events: [], queue_id: a.id }) + '\n');
    expect(bodyPayload({ result: 'error', msg: 'caf\u00e9', code: 'BAD_REQUEST' })).toBe('{"result":"error","msg":"caf\u00e9","code":"BAD_REQUEST"}\n');
    expect(b.pending().map((e) => e.id)).toEqual([0, 1, 2]);
    // A queue moved to another process (its snapshot through JSON) serializes the same.
    const moved = EventQueue.restore(JSON.parse(JSON.stringify(b.snapshot())) as QueueSnapshot, null);
    expect(received({ events: moved.pending() })).toBe(JSON.stringify({ events: b.pending() }) + '\n');
    expect(JSON.parse(received({ events: a.pending() })).events).toEqual([{ ...(echo as object), id: 0 }]);
    // The byte budget counts the same text.
    expect(b.size.bytes).toBe(b.pending().reduce((n, e) => n + JSON.stringify(e).length - `,"id":${e.id}`.length + 12, 0));
  });
});
