// Thumbnails of uploaded images, made by a job off the request path: the image's size is
// recorded and an 840 × 560 WebP written beside it. Images with too many pixels (decompression
// bombs) and files that do not decode get no thumbnail; the upload itself is unaffected.
import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { Sql } from '../../db/connect.js';
import type { FileStorage } from '../../storage/index.js';
import type { Logger } from '../../log.js';
import { attachmentById, saveAttachmentDimensions } from '../../db/attachments.js';
import { MAX_IMAGE_PIXELS } from '../../model/avatars.js';
import { THUMBNAIL_HEIGHT, THUMBNAIL_WIDTH, thumbnailKey } from '../../model/uploads.js';

/** Larger files are not read into memory for a thumbnail. */
const MAX_THUMBNAIL_SOURCE_BYTES = 25 * 1024 * 1024;

export async function makeThumbnail(deps: { sql: Sql; storage: FileStorage; log: Logger }, realmId: number, attachmentId: number): Promise<void> {
  const a = await attachmentById(deps.sql, realmId, attachmentId);
  if (!a || a.size > MAX_THUMBNAIL_SOURCE_BYTES) return;
  const object = await deps.storage.get('uploads', a.pathId);
  if (!object) return;
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  let thumbnail: Buffer;
  let width: number;
  let height: number;
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' }).rotate();
    const meta = await image.metadata();
    const swapped = (meta.orientation ?? 1) >= 5;
    width = (swapped ? meta.height : meta.width) ?? 0;
    height = (swapped ? meta.width : meta.height) ?? 0;
    thumbnail = await image.resize(THUMBNAIL_WIDTH, THUMBNAIL_HEIGHT, { fit: 'inside', withoutEnlargement: true }).webp().toBuffer();
  } catch (err) {
    deps.log.info({ attachment: a.id, err: (err as Error).message }, 'no thumbnail for an upload that does not decode within limits');
    return;
  }
  await deps.storage.put('uploads', thumbnailKey(a.pathId), Readable.from([thumbnail]), 'image/webp');
  await saveAttachmentDimensions(deps.sql, a.id, width, height);
}
