// Reads about uploads: who may download one (Zulip's validate_attachment_request), the
// caller's list of uploads and the organization's used space.
import { ApiError, unauthorized } from '../model/errors.js';
import { contentDisposition } from '../model/uploads.js';
import type { FileToServe } from '../http/contract.js';
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';
import { attachmentByPath, attachmentByToken, attachmentsOfOwner, messagesLinking, realmUploadSpaceUsed, type AttachmentRow } from '../db/attachments.js';
import { canAccessChannelContent } from '../permissions/channelAccess.js';
import { loadReader } from './readers.js';
import { accessibleMessage } from './messages.js';
import { attachmentView } from '../views/attachments.js';

/**
 * May this user (null: a spectator) read the file? The uploader always may; anyone else only
 * through a message linking it that they can read (a spectator: one in a web-public channel).
 */
export async function canReadAttachment(actor: RealmActor, user: User | null, a: AttachmentRow): Promise<boolean> {
  if (user && user.id === a.ownerId) return true;
  const linked = await messagesLinking(actor.sql, [a.id]);
  if (linked.length === 0) return false;
  if (!user) {
    return linked.some((l) => {
      const stream = l.streamId !== null ? actor.state.streams.get(l.streamId) : undefined;
      return stream !== undefined && canAccessChannelContent(actor.state, null, stream);
    });
  }
  if (!user.isActive) return false;
  const reader = await loadReader(actor, user);
  for (const l of linked) {
    try {
      await accessibleMessage(actor, reader, l.messageId);
      return true;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
    }
  }
  return false;
}

/** GET /attachments: the caller's uploads with the messages linking them, and the organization's used space. */
export async function listAttachments(actor: RealmActor, user: User) {
  const rows = await attachmentsOfOwner(actor.sql, user.id);
  const linked = await messagesLinking(actor.sql, rows.map((r) => r.id));
  return {
    attachments: rows.map((r) => attachmentView(r, linked)),
    upload_space_used: await realmUploadSpaceUsed(actor.sql, actor.realm.id),
  };
}

export const fileNotFound = () => new ApiError('BAD_REQUEST', 'File not found.', 404);
export const fileForbidden = () => new ApiError('BAD_REQUEST', 'You are not authorized to view this file.', 403);

/**
 * The upload at `/user_uploads/<realm_id>/<path>` if the caller may read it: 404 for a file
 * that is not in this organization, 401 for a caller with no credentials where spectators
 * see nothing, 403 for one who may not read it.
 */
export async function readableUpload(actor: RealmActor, user: User | null, realmIdText: string, rest: string): Promise<AttachmentRow> {
  if (!/^\d+$/.test(realmIdText) || Number(realmIdText) !== actor.realm.id) throw fileNotFound();
  const a = await attachmentByPath(actor.sql, actor.realm.id, `${realmIdText}/${rest}`);
  if (!a) throw fileNotFound();
  if (!user && actor.realm.settings.enable_spectator_access !== true) throw unauthorized();
  if (!(await canReadAttachment(actor, user, a))) throw fileForbidden();
  return a;
}

/** How the front serves an upload: its type, and inline only for types a browser shows safely. */
export function uploadToServe(a: AttachmentRow, download: boolean): FileToServe {
  return {
    area: 'uploads',
    key: a.pathId,
    contentType: a.contentType,
    disposition: contentDisposition(a.contentType, a.fileName, download),
    // Private to the browser, and the bytes under a path never change.
    cacheControl: 'private, max-age=31536000, immutable',
  };
}

/** The upload a temporary URL opens, if the token is still valid and names this file. */
export async function uploadByToken(actor: RealmActor, token: string, fileName: string): Promise<AttachmentRow> {
  const a = await attachmentByToken(actor.sql, actor.realm.id, token);
  if (!a || a.pathId.slice(a.pathId.lastIndexOf('/') + 1) !== fileName) throw fileNotFound();
  return a;
}
