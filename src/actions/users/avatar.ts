// POST and DELETE /users/me/avatar: an uploaded avatar (resized to 100 px and 500 px PNGs in
// the public storage area) or back to Gravatar. Each change bumps avatar_version, and everyone
// who can see the user gets a `realm_user` update with the new URLs.
import { Readable } from 'node:stream';
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { UploadedFile } from '../../http/contract.js';
import { isAdmin } from '../../model/roles.js';
import { AVATAR_MEDIUM_SIZE, AVATAR_SIZE, avatarKey } from '../../model/avatars.js';
import { REALM_LIMITS } from '../../model/limits.js';
import { saveAvatar } from '../../db/users.js';
import { avatarUrl } from '../../views/users.js';
import { publishAvatarUpdate } from './events.js';
import { checkImageFile, resizedPng, stagedBytes } from '../files/images.js';

function checkMayChange(actor: RealmActor, user: User): void {
  if (actor.realm.settings.avatar_changes_disabled === true && !isAdmin(user)) {
    throw badRequest('Avatar changes are disabled in this organization.');
  }
}

/** Stores the new avatar source and version, then tells everyone; removes the old files. */
async function changeAvatar(actor: RealmActor, user: User, source: 'G' | 'U', write: (version: number) => Promise<void>): Promise<User> {
  const version = user.avatarVersion + 1;
  await write(version);
  const next: User = { ...user, avatarSource: source, avatarVersion: version };
  await saveAvatar(actor.sql, next);
  actor.state.putUser(next);
  publishAvatarUpdate(actor, next);
  if (user.avatarSource === 'U') {
    const { storage } = actor.services;
    for (const medium of [false, true]) await storage.delete('avatars', avatarKey(user.realmId, user.id, user.avatarVersion, medium));
  }
  return next;
}

export async function uploadAvatar(actor: RealmActor, user: User, files: UploadedFile[] | undefined): Promise<{ avatar_url: string }> {
  checkMayChange(actor, user);
  const images = await avatarImages(actor, checkImageFile(files, REALM_LIMITS.max_avatar_file_size_mib, 'You must upload exactly one avatar.'));
  return saveAvatarImages(actor, user, images);
}

/** An uploaded image as the two avatar sizes (refused with BAD_IMAGE before anything changes). */
export interface AvatarImages {
  small: Buffer;
  medium: Buffer;
}

async function avatarImages(actor: RealmActor, file: UploadedFile): Promise<AvatarImages> {
  const bytes = await stagedBytes(actor, file);
  return { small: await resizedPng(bytes, AVATAR_SIZE, 'cover'), medium: await resizedPng(bytes, AVATAR_MEDIUM_SIZE, 'cover') };
}

/**
 * The avatar a POST /bots or PATCH /bots/{id} carries, as Zulip takes it there: no file, no
 * change; one file, the bot's avatar (made ready here, saved once the rest of the request
 * succeeded); more, refused.
 */
export async function botAvatarImages(actor: RealmActor, files: UploadedFile[] | undefined): Promise<AvatarImages | null> {
  if (!files || files.length === 0) return null;
  if (files.length > 1) throw badRequest('You may only upload one file at a time');
  return avatarImages(actor, checkImageFile(files, REALM_LIMITS.max_avatar_file_size_mib, 'You may only upload one file at a time'));
}

/** Stores the avatar images as the user's (or bot's) new avatar and tells everyone. */
export function saveAvatarImages(actor: RealmActor, user: User, images: AvatarImages): Promise<{ avatar_url: string }> {
  return actor.exclusive(async () => {
    const current = actor.user(user.id)!;
    const next = await changeAvatar(actor, current, 'U', async (version) => {
      const { storage } = actor.services;
      await storage.put('avatars', avatarKey(user.realmId, user.id, version, false), Readable.from([images.small]), 'image/png');
      await storage.put('avatars', avatarKey(user.realmId, user.id, version, true), Readable.from([images.medium]), 'image/png');
    });
    return { avatar_url: avatarUrl(next) };
  });
}

export async function deleteAvatar(actor: RealmActor, user: User): Promise<{ avatar_url: string }> {
  checkMayChange(actor, user);
  return actor.exclusive(async () => {
    const next = await changeAvatar(actor, actor.user(user.id)!, 'G', async () => {});
    return { avatar_url: avatarUrl(next) };
  });
}
