// `restart` events: a queue that comes to a process from a server of another version or
// feature level (a cluster restore after an upgrade) is told so, as Zulip tells its queues
// after a restart; a plain hand-off between processes of one version is not a restart.
import { describe, expect, it } from 'vitest';
import { EventHub } from '../../src/events/hub.js';
import type { QueueOptions, QueueSnapshot } from '../../src/events/queue.js';
import { checkEvent, heartbeatEvent } from '../../src/events/catalog/index.js';
import { SERVER_GENERATION, ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../../src/model/version.js';

const options = (extra: Partial<QueueOptions> = {}): QueueOptions => ({
  userId: 7, eventTypes: null, messageFilter: null, clientCapabilities: {}, applyMarkdown: false, clientGravatar: true,
  allPublicStreams: false, includeSubscribers: false, slimPresence: false, lifespanSeconds: 600, clientName: 'test', ...extra,
});
const hub = () => new EventHub({ heartbeatSeconds: 45, maxEvents: 100, maxBytes: 1_000_000 });

/** A queue with one event, exported as a leaving process would. */
function exported(extra: Partial<QueueOptions> = {}): QueueSnapshot {
  const h = hub();
  const q = h.create(options(extra));
  h.publish(heartbeatEvent(), [7]);
  const { queues } = h.exportQueues();
  expect(queues.map((s) => s.id)).toEqual([q.id]);
  return queues[0]!;
}

async function eventsAfterImport(snap: QueueSnapshot) {
  const h = hub();
  expect(h.importQueues([snap])).toBe(1);
  return h.poll(h.get(snap.id, 7), 'r1', true);
}

describe('restart events', () => {
  it('reach a queue copied under another version, with the new server named as register names it', async () => {
    const snap = { ...exported(), server: { zulip_version: '10.4', zulip_feature_level: 371 } };
    const events = await eventsAfterImport(snap);
    expect(events.map((e) => e.type)).toEqual(['heartbeat', 'restart']);
    const restart = events[1]!;
    expect(restart).toEqual({
      type: 'restart', id: 1, zulip_version: ZULIP_VERSION, zulip_merge_base: ZULIP_MERGE_BASE,
      zulip_feature_level: ZULIP_FEATURE_LEVEL, server_generation: SERVER_GENERATION,
    });
    expect(checkEvent(restart)).toBeNull();
  });

  it('reach a queue copied by a server too old to say its version', async () => {
    const { server: _server, ...old } = exported();
    expect((await eventsAfterImport(old)).map((e) => e.type)).toEqual(['heartbeat', 'restart']);
  });

  it('do not reach a queue moved between processes of the same version, nor one that did not ask for them', async () => {
    expect((await eventsAfterImport(exported())).map((e) => e.type)).toEqual(['heartbeat']);
    const narrowTypes = { ...exported({ eventTypes: new Set(['message', 'heartbeat']) }), server: { zulip_version: '10.4', zulip_feature_level: 371 } };
    expect((await eventsAfterImport(narrowTypes)).map((e) => e.type)).toEqual(['heartbeat']);
  });
});
