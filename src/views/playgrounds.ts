// Code playgrounds as the API shows them.
import type { RealmActor } from '../realm/actor.js';
import type { CodePlayground } from '../model/types.js';

export function formatPlayground(p: CodePlayground): Record<string, unknown> {
  return { id: p.id, name: p.name, pygments_language: p.pygmentsLanguage, url_template: p.urlTemplate };
}

/** Register `realm_playgrounds` and its events: every playground, oldest first. */
export function listPlaygrounds(actor: RealmActor): Record<string, unknown>[] {
  return [...actor.state.playgrounds.values()].sort((a, b) => a.id - b.id).map(formatPlayground);
}
