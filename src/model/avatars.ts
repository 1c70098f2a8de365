// Where uploaded images live in the public `avatars` storage area: avatars by user and
// version (a new upload gets a new key, so old URLs stop working once it is replaced), and
// the organization's icon and logo.
import { createHash } from 'node:crypto';

export const AVATAR_SIZE = 100;
export const AVATAR_MEDIUM_SIZE = 500;
/** Images larger than this many pixels are refused before they are decoded (decompression bombs). */
export const MAX_IMAGE_PIXELS = 40_000_000;

export function avatarKey(realmId: number, userId: number, version: number, medium: boolean): string {
  const hash = createHash('sha1').update(`avatar:${realmId}:${userId}:${version}`).digest('hex');
  return `${realmId}/${hash}${medium ? '-medium' : ''}.png`;
}

export function realmImageKey(realmId: number, kind: 'icon' | 'logo' | 'night_logo', version: number): string {
  const hash = createHash('sha1').update(`realm:${realmId}:${kind}:${version}`).digest('hex').slice(0, 16);
  return `${realmId}/realm/${kind}-${hash}.png`;
}

/** A custom emoji's image (Zulip's `<realm_id>/emoji/images/<file>`). */
export const emojiKey = (realmId: number, emojiId: number) => `${realmId}/emoji/images/${emojiId}.png`;

/** Custom emoji are resized to fit this square (Zulip's DEFAULT_EMOJI_SIZE). */
export const EMOJI_SIZE = 64;
export const MAX_EMOJI_FILE_SIZE_MIB = 5;
