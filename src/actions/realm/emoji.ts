// Custom emoji: members of can_add_custom_emoji_group upload them (one image, resized to 64 px
// in the public storage area), administrators and their authors deactivate them. Every user
// gets the whole set again in a `realm_emoji` event.
import { Readable } from 'node:stream';
import { badRequest, notFound } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { RealmEmoji, User } from '../../model/types.js';
import type { UploadedFile } from '../../http/contract.js';
import { isAdmin } from '../../model/roles.js';
import { EMOJI_SIZE, MAX_EMOJI_FILE_SIZE_MIB, emojiKey } from '../../model/avatars.js';
import { hasRealmPermission } from '../../permissions/realmSettings.js';
import { deactivateRealmEmoji, insertRealmEmoji } from '../../db/realmEmoji.js';
import { emojiCodeForName } from '../../render/emoji.js';
import { realmEmojiDict } from '../../views/realmEmoji.js';
import { realmEmojiEvent } from '../../events/catalog/index.js';
import { checkImageFile, resizedPng, stagedBytes } from '../files/images.js';

/** Zulip's check_valid_emoji_name. */
function checkEmojiName(name: string): void {
  if (name === '') throw badRequest('Emoji name is missing');
  if (!/^[0-9a-z_-]+$/.test(name)) throw badRequest('Emoji names must contain only lowercase alphanumeric characters, hyphens, and underscores.');
  if (/[-_]$/.test(name)) throw badRequest('Emoji names must end with either a letter or digit.');
}

export const activeEmojiNamed = (actor: RealmActor, name: string): RealmEmoji | undefined =>
  [...actor.state.realmEmoji.values()].find((e) => e.name === name && !e.deactivated);

function publishRealmEmoji(actor: RealmActor): void {
  actor.events.publish(realmEmojiEvent(realmEmojiDict(actor)), actor.state.activeUsers().map((u) => u.id));
}

export async function addRealmEmoji(actor: RealmActor, user: User, rawName: string, files: UploadedFile[] | undefined): Promise<void> {
  const name = rawName.trim().replace(/ /g, '_');
  checkEmojiName(name);
  if (!hasRealmPermission(actor.state, user, 'can_add_custom_emoji_group')) throw badRequest('Insufficient permission');
  if (activeEmojiNamed(actor, name)) throw badRequest('A custom emoji with this name already exists.');
  const file = checkImageFile(files, MAX_EMOJI_FILE_SIZE_MIB, 'You must upload exactly one file.');
  if (emojiCodeForName(name) !== undefined && !isAdmin(user)) throw badRequest('Only administrators can override default emoji.');
  const image = await resizedPng(await stagedBytes(actor, file), EMOJI_SIZE, 'inside');
  await actor.exclusive(async () => {
    if (activeEmojiNamed(actor, name)) throw badRequest('A custom emoji with this name already exists.');
    const emoji = await insertRealmEmoji(actor.sql, actor.realm.id, name, user.id);
    try {
      await actor.services.storage.put('avatars', emojiKey(actor.realm.id, emoji.id), Readable.from([image]), 'image/png');
    } catch (err) {
      await deactivateRealmEmoji(actor.sql, actor.realm.id, emoji.id);
      throw err;
    }
    actor.state.realmEmoji.set(emoji.id, emoji);
    publishRealmEmoji(actor);
  });
}

export async function removeRealmEmoji(actor: RealmActor, user: User, name: string): Promise<void> {
  await actor.exclusive(async () => {
    const emoji = activeEmojiNamed(actor, name);
    if (!emoji) throw notFound(`Emoji '${name}' does not exist`);
    if (!isAdmin(user) && emoji.authorId !== user.id) throw badRequest('Must be an organization administrator or emoji author');
    await deactivateRealmEmoji(actor.sql, actor.realm.id, emoji.id);
    actor.state.realmEmoji.set(emoji.id, { ...emoji, deactivated: true });
    publishRealmEmoji(actor);
  });
}
