// The caller's avatar: upload one (multipart, one image file) or go back to Gravatar.
import { endpoint } from './endpoint.js';
import { deleteAvatar, uploadAvatar } from '../actions/users/avatar.js';

export const avatarEndpoints = [
  endpoint({
    method: 'POST',
    path: '/users/me/avatar',
    auth: 'user',
    params: {},
    async handler({ actor, user, req }) {
      return uploadAvatar(actor, user, req.files);
    },
  }),
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
