// Uploaded files: POST /user_uploads, temporary URLs, the caller's list of uploads and their
// deletion; and the files themselves under /user_uploads/ (outside the API prefixes), which
// the front streams from storage once the access check here passed.
import { endpoint, fileUploadEndpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { temporaryUploadUrl, uploadFile } from '../actions/files/uploads.js';
import { deleteAttachment } from '../actions/files/attachments.js';
import { listAttachments, readableThumbnailSource, readableUpload, thumbnailToServe, uploadByToken, uploadToServe } from '../queries/attachments.js';

export const uploadEndpoints = [
  fileUploadEndpoint('/user_uploads', uploadFile),
  endpoint({
    method: 'GET',
    path: '/user_uploads/{realm_id_str}/{filename+}',
    auth: 'user',
    params: { realm_id_str: p.string(), filename: p.string() },
    async handler({ actor, user, args }) {
      return temporaryUploadUrl(actor, user, args.realm_id_str, args.filename);
    },
  }),
  endpoint({
    method: 'GET',
    path: '/attachments',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      return listAttachments(actor, user);
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/attachments/{attachment_id}',
    auth: 'user',
    params: { attachment_id: p.int() },
    async handler({ actor, user, args }) {
      await deleteAttachment(actor, user, args.attachment_id);
      return {};
    },
  }),
];

/** The files themselves, at /user_uploads/… with HTTP Basic, the session cookie, or as a spectator. */
export const fileEndpoints = [
  endpoint({
    method: 'GET',
    path: '/user_uploads/temporary/{token}/{filename}',
    auth: 'none',
    only: 'file',
    params: { token: p.string(), filename: p.string() },
    async handler({ actor, args, serve }) {
      serve(uploadToServe(await uploadByToken(actor, args.token, args.filename), false));
      return {};
    },
  }),
  endpoint({
    method: 'GET',
    path: '/user_uploads/thumbnail/{realm_id_str}/{filename+}',
    auth: 'optional',
    only: 'file',
    params: { realm_id_str: p.string(), filename: p.string() },
    async handler({ actor, user, args, serve }) {
      serve(thumbnailToServe(await readableThumbnailSource(actor, user, args.realm_id_str, args.filename)));
      return {};
    },
  }),
  endpoint({
    method: 'GET',
    path: '/user_uploads/download/{realm_id_str}/{filename+}',
    auth: 'optional',
    only: 'file',
    params: { realm_id_str: p.string(), filename: p.string() },
    async handler({ actor, user, args, serve }) {
      serve(uploadToServe(await readableUpload(actor, user, args.realm_id_str, args.filename), true));
      return {};
    },
  }),
  endpoint({
    method: 'GET',
    path: '/user_uploads/{realm_id_str}/{filename+}',
    auth: 'optional',
    only: 'file',
    params: { realm_id_str: p.string(), filename: p.string() },
    async handler({ actor, user, args, serve }) {
      serve(uploadToServe(await readableUpload(actor, user, args.realm_id_str, args.filename), false));
      return {};
    },
  }),
];
