// Channel folders: organization administrators create, edit and archive them; every user of
// the realm sees them, in the order they were created.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { ChannelFolder, User } from '../../model/types.js';
import { insertFolder, saveFolder } from '../../db/folders.js';
import { MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH, MAX_CHANNEL_FOLDER_NAME_LENGTH } from '../../model/limits.js';
import { renderContent } from '../messages/render.js';
import { actingUser, requireAdmin } from '../../permissions/roles.js';
import { formatFolder } from '../../views/folders.js';
import { channelFolderAddEvent, channelFolderUpdateEvent, type FolderChange } from '../../events/catalog/index.js';

function checkName(actor: RealmActor, raw: string, exceptId = 0): string {
  const name = raw.trim();
  if (name === '') throw badRequest("Channel folder name can't be empty.");
  if (name.length > MAX_CHANNEL_FOLDER_NAME_LENGTH) {
    throw badRequest(`Channel folder name cannot exceed ${MAX_CHANNEL_FOLDER_NAME_LENGTH} characters.`);
  }
  for (const f of actor.state.channelFolders.values()) {
    if (f.id !== exceptId && f.name.toLowerCase() === name.toLowerCase()) throw badRequest('Channel folder name already in use');
  }
  return name;
}

function checkDescription(description: string): string {
  if (description.length > MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH) {
    throw badRequest(`Channel folder description cannot exceed ${MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH} characters.`);
  }
  return description;
}

const everyone = (actor: RealmActor) => actor.state.activeUsers().map((u) => u.id);

/** POST /channel_folders/create. */
export function createFolder(actor: RealmActor, acting: User, input: { name: string; description: string }): Promise<ChannelFolder> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireAdmin(user);
    const name = checkName(actor, input.name);
    const description = checkDescription(input.description);
    const rendered = (await renderContent(actor, description)).html;
    const folder = await insertFolder(actor.sql, {
      realmId: actor.realm.id, name, description, renderedDescription: rendered, creatorId: user.id,
    });
    actor.state.channelFolders.set(folder.id, folder);
    actor.events.publish(channelFolderAddEvent(formatFolder(folder)), everyone(actor));
    return folder;
  });
}

/** PATCH /channel_folders/{id}: name, description, archived flag. */
export function updateFolder(
  actor: RealmActor,
  acting: User,
  id: number,
  changes: { name?: string; description?: string; isArchived?: boolean },
): Promise<void> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    const folder = actor.state.channelFolders.get(id);
    if (!folder) throw badRequest('Invalid channel folder ID');
    const data: FolderChange = {};
    const next: ChannelFolder = { ...folder };
    if (changes.name !== undefined) {
      const name = checkName(actor, changes.name, folder.id);
      if (name !== folder.name) data.name = next.name = name;
    }
    if (changes.description !== undefined && changes.description !== folder.description) {
      next.description = checkDescription(changes.description);
      next.renderedDescription = (await renderContent(actor, next.description)).html;
      data.description = next.description;
      data.rendered_description = next.renderedDescription;
    }
    if (changes.isArchived !== undefined && changes.isArchived !== folder.isArchived) {
      if (changes.isArchived && [...actor.state.streams.values()].some((s) => s.folderId === folder.id && !s.isArchived)) {
        throw badRequest('You need to remove all the channels from this folder to archive it.');
      }
      data.is_archived = next.isArchived = changes.isArchived;
    }
    if (!Object.keys(data).length) return;
    await saveFolder(actor.sql, next);
    actor.state.channelFolders.set(folder.id, next);
    actor.events.publish(channelFolderUpdateEvent(folder.id, data), everyone(actor));
  });
}
