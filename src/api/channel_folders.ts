// Channel folders: create, list, edit. (Reordering, PATCH /channel_folders, came at feature
// level 414 and is not served.)
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { createFolder, updateFolder } from '../actions/channels/folders.js';
import { listFolders } from '../views/folders.js';

export const channelFolderEndpoints = [
  endpoint({
    method: 'POST',
    path: '/channel_folders/create',
    auth: 'user',
    params: { name: p.string(), description: p.string().default('') },
    async handler({ actor, user, args }) {
      const folder = await createFolder(actor, user, { name: args.name, description: args.description });
      return { channel_folder_id: folder.id };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/channel_folders',
    auth: 'user',
    params: { include_archived: p.bool().default(false) },
    async handler({ actor, args }) {
      return { channel_folders: listFolders(actor, args.include_archived) };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/channel_folders/{channel_folder_id}',
    auth: 'user',
    params: {
      channel_folder_id: p.int(),
      name: p.string().optional(),
      description: p.string().optional(),
      is_archived: p.bool().optional(),
    },
    async handler({ actor, user, args }) {
      await updateFolder(actor, user, args.channel_folder_id, {
        name: args.name,
        description: args.description,
        isArchived: args.is_archived,
      });
      return {};
    },
  }),
];
