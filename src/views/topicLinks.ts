// `topic_links` of channel messages: the realm's linkifiers (and bare URLs) applied to a topic.
//
// Message formatting is synchronous and runs on the actor's thread, so it cannot use the
// render pool; but a linkifier pattern may backtrack catastrophically (CVE-2021-41115), and
// one such topic would stall the whole worker. Matching therefore runs under a vm timeout,
// which interrupts a running regular expression. Results are cached per topic for the
// current list of linkifiers (an array replaced on every change), so the guard costs once
// per distinct topic.
import vm from 'node:vm';
import type { RealmActor } from '../realm/actor.js';
import type { Linkifier } from '../model/types.js';
import { topicLinks, type RenderLinkifier, type TopicLink } from '../render/index.js';

/** Topics are at most 60 characters: honest patterns finish in microseconds. */
const TOPIC_LINKS_BUDGET_MS = 50;
const CACHE_LIMIT = 10_000;
const WARM_UP_URL = 'https://example.com';

interface Derived {
  render: RenderLinkifier[];
  topics: Map<string, TopicLink[]>;
}

const derived = new WeakMap<readonly Linkifier[], Derived>();

function derive(list: readonly Linkifier[]): Derived {
  let d = derived.get(list);
  if (!d) {
    d = { render: list.map((l) => ({ id: l.id, pattern: l.pattern, url_template: l.urlTemplate })), topics: new Map() };
    derived.set(list, d);
    // Compile the patterns and load the URL finder outside the guard: only matching a topic
    // can run away, and a busy machine must not make a cold start look like one.
    topicLinks('', d.render);
    topicLinks(WARM_UP_URL, []);
  }
  return d;
}

/** The realm's linkifiers in the renderer's shape, in order. */
export function renderLinkifiers(actor: RealmActor): RenderLinkifier[] {
  return derive(actor.state.linkifiers).render;
}

// One context for every guarded call; `task` is set right before each run.
const sandbox = vm.createContext({ task: null as null | (() => TopicLink[]) });
const runTask = new vm.Script('task()');

const isTimeout = (err: unknown) => (err as { code?: string } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';

function guardedTopicLinks(actor: RealmActor, topic: string, linkifiers: RenderLinkifier[]): TopicLink[] {
  sandbox.task = () => topicLinks(topic, linkifiers);
  try {
    return runTask.runInContext(sandbox, { timeout: TOPIC_LINKS_BUDGET_MS }) as TopicLink[];
  } catch (err) {
    if (!isTimeout(err)) throw err;
    actor.services.log.warn({ realm: actor.realm.id, topic }, 'linkifiers took too long on a topic; showing its plain URLs only');
    return topicLinks(topic, []);
  } finally {
    sandbox.task = null;
  }
}

/** Zulip's `topic_links` for a channel message's topic, as `[{text, url}]`. */
export function topicLinksFor(actor: RealmActor, topic: string): TopicLink[] {
  const d = derive(actor.state.linkifiers);
  const cached = d.topics.get(topic);
  if (cached) return cached;
  const links = d.render.length === 0 ? topicLinks(topic, []) : guardedTopicLinks(actor, topic, d.render);
  if (d.topics.size >= CACHE_LIMIT) d.topics.delete(d.topics.keys().next().value!);
  d.topics.set(topic, links);
  return links;
}
