// Linkifiers as the API shows them.
import type { RealmActor } from '../realm/actor.js';
import type { Linkifier } from '../model/types.js';

export function formatLinkifier(l: Linkifier): { pattern: string; url_template: string; id: number } {
  return { pattern: l.pattern, url_template: l.urlTemplate, id: l.id };
}

/** GET /realm/linkifiers and register `realm_linkifiers`: in the order clients must apply them. */
export const listLinkifiers = (actor: RealmActor) => actor.state.linkifiers.map(formatLinkifier);

/** The pre-FL-54 GET /realm/filters list: `[pattern, url_template, id]` tuples. */
export const legacyFilterTuples = (actor: RealmActor) => actor.state.linkifiers.map((l) => [l.pattern, l.urlTemplate, l.id]);
