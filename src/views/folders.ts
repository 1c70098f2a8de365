// Channel folders as the API shows them.
import type { RealmActor } from '../realm/actor.js';
import type { ChannelFolder } from '../model/types.js';

export function formatFolder(f: ChannelFolder): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    rendered_description: f.renderedDescription,
    date_created: Math.floor(f.dateCreated.getTime() / 1000),
    creator_id: f.creatorId,
    is_archived: f.isArchived,
  };
}

/** The realm's folders by id (Zulip's order before 414); archived ones only when asked for. */
export function listFolders(actor: RealmActor, includeArchived: boolean): Record<string, unknown>[] {
  return [...actor.state.channelFolders.values()]
    .filter((f) => includeArchived || !f.isArchived)
    .sort((a, b) => a.id - b.id)
    .map(formatFolder);
}
