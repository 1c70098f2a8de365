// POST /user_uploads: a file the front already streamed to storage (under a staging key) is
// checked against the size limit and the organization's quota, moved to its final path and
// recorded; the uploader hears of it through an `attachment` event.
import { randomBytes, randomInt } from 'node:crypto';
import { ApiError, badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { UploadedFile } from '../../http/contract.js';
import { insertAttachment, insertUrlToken, realmUploadSpaceUsed } from '../../db/attachments.js';
import { readableUpload } from '../../queries/attachments.js';
import { sanitizeFileName, uploadContentType } from '../../model/uploads.js';
import { attachmentChangedEvent } from '../../events/catalog/index.js';
import { attachmentView } from '../../views/attachments.js';

const MIB = 1024 * 1024;

/** The one file of an upload request (Zulip refuses none and several). */
export function singleFile(files: UploadedFile[] | undefined): UploadedFile {
  if (!files || files.length === 0) throw badRequest('You must specify a file to upload');
  if (files.length > 1) throw badRequest('You may only upload one file at a time');
  return files[0]!;
}

export const fileTooLarge = (limitMib: number) =>
  badRequest(`File is larger than this server's configured maximum upload size (${limitMib} MiB).`);

export const quotaExceeded = () => new ApiError('REALM_UPLOAD_QUOTA', "Upload would exceed your organization's upload quota.", 400);

/** A new path id: `<realm_id>/<hex byte>/<24 random characters>/<sanitised name>`, as Zulip makes them. */
function newPathId(realmId: number, fileName: string): string {
  return `${realmId}/${randomInt(256).toString(16)}/${randomBytes(18).toString('base64url')}/${fileName}`;
}

export async function uploadFile(actor: RealmActor, user: User, files: UploadedFile[] | undefined): Promise<Record<string, unknown>> {
  const file = singleFile(files);
  const { config, storage } = actor.services;
  if (file.size > config.MAX_FILE_UPLOAD_SIZE_MIB * MIB) throw fileTooLarge(config.MAX_FILE_UPLOAD_SIZE_MIB);
  const fileName = sanitizeFileName(file.filename);
  const contentType = uploadContentType(file.contentType, file.filename);
  const pathId = newPathId(actor.realm.id, fileName);
  // Moved before the mailbox (an object store copies large files slowly); refused after it.
  await storage.move('uploads', file.key, pathId);
  try {
    return await actor.exclusive(async () => {
      // One upload at a time per organization, so that two cannot both fit the last of the quota.
      const quota = config.REALM_UPLOAD_QUOTA_MIB;
      if (quota !== undefined && (await realmUploadSpaceUsed(actor.sql, actor.realm.id)) + file.size > quota * MIB) throw quotaExceeded();
      const row = await insertAttachment(actor.sql, { realmId: actor.realm.id, ownerId: user.id, pathId, fileName, contentType, size: file.size });
      const used = await realmUploadSpaceUsed(actor.sql, actor.realm.id);
      actor.events.publish(attachmentChangedEvent('add', attachmentView(row, []), used), [user.id]);
      const url = `/user_uploads/${pathId}`;
      return { uri: url, url, filename: fileName };
    });
  } catch (err) {
    await storage.delete('uploads', pathId);
    throw err;
  }
}

/** How long a temporary URL opens its file (Zulip's 60 seconds). */
const TEMPORARY_URL_SECONDS = 60;

/**
 * GET /user_uploads/<realm_id>/<path> under the API: a URL that opens the file for a short
 * time without credentials (the mobile apps hand it to a browser).
 */
export async function temporaryUploadUrl(actor: RealmActor, user: User, realmIdText: string, rest: string): Promise<{ url: string }> {
  const a = await readableUpload(actor, user, realmIdText, rest);
  const token = randomBytes(24).toString('base64url');
  await insertUrlToken(actor.sql, token, a.id, new Date(Date.now() + TEMPORARY_URL_SECONDS * 1000));
  return { url: `/user_uploads/temporary/${token}/${a.pathId.slice(a.pathId.lastIndexOf('/') + 1)}` };
}
