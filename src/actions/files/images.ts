// Images people upload as avatars, realm icons and logos: read from the staging area, checked
// and resized with sharp (a maintained image library) into PNGs in the public area.
import sharp from 'sharp';
import { ApiError, badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { UploadedFile } from '../../http/contract.js';
import { MAX_IMAGE_PIXELS } from '../../model/avatars.js';

export const badImage = () => new ApiError('BAD_IMAGE', 'Could not decode image; did you upload an image file?', 400);

/** The bytes of a staged upload (images are small: the size limit was checked first). */
export async function stagedBytes(actor: RealmActor, file: UploadedFile): Promise<Buffer> {
  const object = await actor.services.storage.get('uploads', file.key);
  if (!object) throw badRequest('Upload failed');
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The one file of an image upload, within a size limit in MiB (Zulip's wording). */
export function checkImageFile(files: UploadedFile[] | undefined, limitMib: number, exactlyOne: string): UploadedFile {
  if (!files || files.length !== 1) throw badRequest(exactlyOne);
  const file = files[0]!;
  if (file.size > limitMib * 1024 * 1024) throw badRequest(`Uploaded file is larger than the allowed limit of ${limitMib} MiB`);
  return file;
}

/**
 * A PNG of the image (square unless a height is given), cropped to fill (`cover`) or fitted
 * inside (`inside`). Images
 * with too many pixels are refused before decoding, as are files that are not images.
 */
export async function resizedPng(bytes: Buffer, size: number, fit: 'cover' | 'inside', height = size): Promise<Buffer> {
  try {
    return await sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error' })
      .rotate()
      .resize(size, height, { fit, withoutEnlargement: fit === 'inside' })
      .png()
      .toBuffer();
  } catch {
    throw badImage();
  }
}
