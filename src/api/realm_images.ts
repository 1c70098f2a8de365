// The organization's icon and logo (`night` says which logo, and is required as in Zulip):
// upload one image, or go back to the default.
import { endpoint, fileUploadEndpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { deleteRealmImage, uploadRealmImage } from '../actions/realm/images.js';

export const realmImageEndpoints = [
  fileUploadEndpoint('/realm/icon', async (actor, user, files) => {
    const view = await uploadRealmImage(actor, user, 'icon', files);
    return { icon_url: view.icon_url };
  }),
  endpoint({
    method: 'DELETE',
    path: '/realm/icon',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      const view = await deleteRealmImage(actor, user, 'icon');
      return { icon_url: view.icon_url };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/realm/logo',
    auth: 'user',
    params: { night: p.bool() },
    async handler({ actor, user, args, req }) {
      await uploadRealmImage(actor, user, args.night ? 'night_logo' : 'logo', req.files);
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/realm/logo',
    auth: 'user',
    params: { night: p.bool() },
    async handler({ actor, user, args }) {
      await deleteRealmImage(actor, user, args.night ? 'night_logo' : 'logo');
      return {};
    },
  }),
];
