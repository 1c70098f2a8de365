// A message's delivery with queue shards: the realm actor's ShardedHub sends each shard one
// description of the message (its shapes, the shard's users with their flags) instead of one
// entry per queue, and each shard's hub makes the queues' events. Whatever the clients' shapes,
// flags, narrows, event types, all_public_streams, the sender's local id and queues made in
// the same turn, every queue ends with exactly what one process (one EventHub) gives it. No
// processes: the batches go through JSON, as on the wire, to two shard hubs.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ShardedHub } from '../../cluster/shardedHub.js';
import { applyDeliver } from '../../cluster/shardHost.js';
import type { ShardBatch, ShardReply } from '../../cluster/shardOps.js';
import { EventHub } from '../../src/events/hub.js';
import type { EventQueue, QueueOptions } from '../../src/events/queue.js';
import { buildMessageFilter, normalizeNarrow } from '../../src/events/narrow.js';
import { SHAPE_EMPTY_TOPIC, SHAPE_GRAVATAR, SHAPE_MARKDOWN, SHAPE_SENDER_HIDDEN, type MessageFanout } from '../../src/events/messageFanout.js';
import { bodyBuffer, bodyPayload } from '../../src/http/bodyText.js';

const limits = { heartbeatSeconds: 45, maxEvents: 100, maxBytes: 1_000_000 };

const options = (userId: number, extra: Partial<QueueOptions> = {}): QueueOptions => ({
  userId, eventTypes: null, messageFilter: null, clientCapabilities: {}, applyMarkdown: true, clientGravatar: false,
  allPublicStreams: false, includeSubscribers: false, slimPresence: false, lifespanSeconds: 600, clientName: 'test', ...extra,
});

/** The queues of the test, by label: each user's client in a different shape. */
const clients: Record<string, QueueOptions> = {
  sender: options(1),
  senderOtherClient: options(1, { applyMarkdown: false }),
  gravatar: options(2, { clientGravatar: true }),
  emptyTopic: options(3, { clientCapabilities: { empty_topic_name: true } }),
  mentioned: options(4),
  hiddenSender: options(5, { applyMarkdown: false }),
  otherNarrow: options(6, { narrow: normalizeNarrow([['channel', 'design']]), messageFilter: buildMessageFilter(normalizeNarrow([['channel', 'design']])) }),
  sameNarrow: options(7, { narrow: normalizeNarrow([['channel', 'general']]), messageFilter: buildMessageFilter(normalizeNarrow([['channel', 'general']])) }),
  noMessages: options(8, { eventTypes: new Set(['typing']) }),
  allPublic: options(9, { allPublicStreams: true }),
  notSubscribed: options(10),
  ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`member${i}`, options(100 + i, { clientGravatar: i % 2 === 0 })])),
};

/** The message as each shape shows it (what formatMessage would vary). */
const message = (shape: number): Record<string, unknown> => ({
  id: 42,
  type: 'stream',
  display_recipient: 'general',
  stream_id: 3,
  subject: shape & SHAPE_EMPTY_TOPIC ? '' : 'general chat',
  content: shape & SHAPE_MARKDOWN ? '<p>héllo</p>' : 'héllo',
  avatar_url: shape & SHAPE_GRAVATAR ? null : '/avatar/1',
  sender_full_name: shape & SHAPE_SENDER_HIDDEN ? 'Unknown user' : 'Ann',
});

const users = [1, 2, 3, 4, 5, 6, 7, 8, ...Array.from({ length: 20 }, (_, i) => 100 + i), 9];
const fanout = (): MessageFanout => {
  const shapes = new Map<number, Record<string, unknown>>();
  return {
    message: (shape) => shapes.get(shape) ?? (shapes.set(shape, message(shape)), shapes.get(shape)!),
    users,
    flags: users.map((u) => (u === 9 ? -1 : u === 1 ? 1 : u === 4 ? 8 : 0)),
    flagNames: new Map([[0, []], [1, ['read']], [8, ['mentioned']]]),
    hidden: new Set([5]),
    senderEmailReal: true,
    publicChannel: true,
    echo: { queueId: '', userId: 1, localId: '17.5' },
  };
};

/** The ShardedHub of an actor and its two shards' hubs, batches carried as JSON. */
function sharded() {
  const shards = [new EventHub(limits), new EventHub(limits)];
  const hub = new ShardedHub(limits, {
    subdomain: 'fan', shards: 2, retryBudgetMs: 1000, log: pino({ level: 'silent' }),
    send: async (sent: ShardBatch): Promise<ShardReply> => {
      const batch = JSON.parse(JSON.stringify(sent)) as ShardBatch;
      const shard = shards[Number(batch.unit.split('~')[1])]!;
      for (const op of batch.ops) {
        if (op.op === 'create') shard.importQueues([op.queue]);
        if (op.op === 'deliver') applyDeliver(shard, op);
      }
      return { ok: true, gone: [] };
    },
  });
  return { hub, shards };
}

/** What a queue's client would get: its events as JSON. */
/** A queue's events as its client would parse them from the poll's answer. */
const received = (q: EventQueue | undefined) => {
  if (!q) return 'missing';
  const payload = bodyPayload({ events: q.pending() });
  return JSON.parse(typeof payload === 'string' ? payload : bodyBuffer(payload).toString('utf8'));
};

describe('a message with queue shards', () => {
  it('leaves every queue of every shard with what one process gives it', async () => {
    const one = new EventHub(limits);
    const { hub, shards } = sharded();
    const here: Record<string, EventQueue> = {};
    const there: Record<string, EventQueue> = {};
    for (const [label, opts] of Object.entries(clients)) {
      here[label] = one.create(opts);
      there[label] = hub.create(opts);
    }
    await Promise.all(Object.values(there).map((q) => hub.ready(q.id)));

    const f1 = { ...fanout(), echo: { queueId: here.sender!.id, userId: 1, localId: '17.5' } };
    one.publishMessage(f1);
    // A queue registered right after the message, in the same turn, does not get it.
    const lateHere = one.create(options(2));
    hub.publishMessage({ ...fanout(), echo: { queueId: there.sender!.id, userId: 1, localId: '17.5' } });
    const lateThere = hub.create(options(2));
    // Another user's queue named as the sender's gets no local id.
    one.publishMessage({ ...fanout(), echo: { queueId: here.gravatar!.id, userId: 1, localId: '99.1' } });
    hub.publishMessage({ ...fanout(), echo: { queueId: there.gravatar!.id, userId: 1, localId: '99.1' } });
    await hub.flush(1000);

    const inShards = (id: string) => shards.map((s) => s.find(id)).find((q) => q !== undefined);
    for (const label of Object.keys(clients)) {
      expect({ label, events: received(inShards(there[label]!.id)) }).toEqual({ label, events: received(here[label]) });
    }
    expect(received(inShards(lateThere.id))).toEqual(received(lateHere));
    // The cases the clients stand for, in one process.
    const events = (label: string) => received(here[label]).events as { message: Record<string, unknown>; flags: string[]; local_message_id?: string }[];
    expect(events('sender').map((e) => e.local_message_id)).toEqual(['17.5', undefined]);
    expect(events('gravatar').map((e) => e.local_message_id)).toEqual([undefined, undefined]);
    expect(events('senderOtherClient')[0]!.message.content).toBe('héllo');
    expect(events('gravatar')[0]!.message.avatar_url).toBeNull();
    expect(events('emptyTopic')[0]!.message.subject).toBe('');
    expect(events('mentioned')[0]!.flags).toEqual(['mentioned']);
    expect(events('hiddenSender')[0]!.message).toMatchObject({ sender_full_name: 'Unknown user', content: 'héllo' });
    expect(events('otherNarrow')).toEqual([]);
    expect(events('sameNarrow')).toHaveLength(2);
    expect(events('noMessages')).toEqual([]);
    expect(events('allPublic')[0]!.flags).toEqual([]);
    expect(events('notSubscribed')).toEqual([]);
    // The queue made between the two messages has the second only.
    expect(received(lateHere).events.map((e: { message: { id: number } }) => e.message.id)).toEqual([42]);
    // Both shards had queues; each got the message once per publish, not once per queue.
    expect(shards.every((s) => s.queueCount > 3)).toBe(true);
    hub.close();
  });
});
