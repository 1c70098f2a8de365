// topicLinksFor runs on the actor's thread: a linkifier that backtracks catastrophically on a
// topic must be cut off (and the topic keep its plain URLs), and results are cached per
// topic until the linkifiers change.
import { describe, expect, it } from 'vitest';
import { topicLinksFor } from '../../src/views/topicLinks.js';
import type { RealmActor } from '../../src/realm/actor.js';
import type { Linkifier } from '../../src/model/types.js';

function fakeActor(linkifiers: Linkifier[]) {
  const warnings: unknown[] = [];
  const actor = {
    realm: { id: 1 },
    state: { linkifiers },
    services: { log: { warn: (obj: unknown) => warnings.push(obj) } },
  } as unknown as RealmActor;
  return { actor, warnings };
}

const ISSUES: Linkifier = { id: 1, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://github.com/zulip/zulip/issues/{id}' };

describe('topicLinksFor', () => {
  it("applies the realm's linkifiers and finds bare URLs", () => {
    const { actor } = fakeActor([ISSUES]);
    expect(topicLinksFor(actor, 'fix #123 and https://zulip.com')).toEqual([
      { text: '#123', url: 'https://github.com/zulip/zulip/issues/123' },
      { text: 'https://zulip.com', url: 'https://zulip.com' },
    ]);
    expect(topicLinksFor(actor, 'nothing here')).toEqual([]);
  });

  it('follows a change of the linkifier list', () => {
    const { actor } = fakeActor([ISSUES]);
    expect(topicLinksFor(actor, '#7')).toHaveLength(1);
    actor.state.linkifiers = [];
    expect(topicLinksFor(actor, '#7')).toEqual([]);
  });

  it('cuts off a catastrophic pattern quickly and keeps the plain URLs', () => {
    const { actor, warnings } = fakeActor([{ id: 2, pattern: '(a+)+$', urlTemplate: 'https://example.com/' }]);
    const topic = 'https://zulip.com ' + 'a'.repeat(40) + 'b';
    const started = performance.now();
    expect(topicLinksFor(actor, topic)).toEqual([{ text: 'https://zulip.com', url: 'https://zulip.com' }]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(warnings).toHaveLength(1);
    // The verdict is cached: the second call does not run the pattern (nor warn) again.
    expect(topicLinksFor(actor, topic)).toEqual([{ text: 'https://zulip.com', url: 'https://zulip.com' }]);
    expect(warnings).toHaveLength(1);
  });
});
