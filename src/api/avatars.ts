// The caller's avatar: upload one (multipart, one image file) or go back to Gravatar.
import { endpoint, fileUploadEndpoint } from './endpoint.js';
import { deleteAvatar, uploadAvatar } from '../actions/users/avatar.js';

export const avatarEndpoints = [
  fileUploadEndpoint('/users/me/avatar', uploadAvatar),
  endpoint({
    method: 'DELETE',
    path: '/users/me/avatar',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      return deleteAvatar(actor, user);
    },
  }),
];
