// POST and DELETE /realm/icon and /realm/logo (administrators): an uploaded image resized into
// the public storage area, or back to the default. Everyone gets a `realm` update_dict event
// with the new URL and source.
import { Readable } from 'node:stream';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { UploadedFile } from '../../http/contract.js';
import { mustBeAdmin } from '../../model/errors.js';
import { isAdmin } from '../../model/roles.js';
import { REALM_LIMITS } from '../../model/limits.js';
import { realmImageKey } from '../../model/avatars.js';
import { saveRealmSettings } from '../../db/organization.js';
import { realmIconView, realmImageUploaded, realmImageVersion, realmLogoView, type RealmImageKind } from '../../views/realmImages.js';
import { realmUpdateDictEvent } from '../../events/catalog/index.js';
import { checkImageFile, resizedPng, stagedBytes } from '../files/images.js';

const ICON_SIZE = 100;
/** Logos are fitted into this width and height (Zulip's 800 × 100). */
const LOGO_WIDTH = 800;
const LOGO_HEIGHT = 100;

const viewOf = (actor: RealmActor, kind: RealmImageKind) => (kind === 'icon' ? realmIconView(actor.realm) : realmLogoView(actor.realm, kind === 'night_logo'));

/** Saves the new source and version, tells everyone, removes the replaced image. */
async function changeRealmImage(actor: RealmActor, kind: RealmImageKind, image: Buffer | null): Promise<Record<string, string>> {
  return actor.exclusive(async () => {
    const realm = actor.realm;
    const before = { uploaded: realmImageUploaded(realm, kind), version: realmImageVersion(realm, kind) };
    const version = before.version + 1;
    const { storage } = actor.services;
    if (image) await storage.put('avatars', realmImageKey(realm.id, kind, version), Readable.from([image]), 'image/png');
    const settings = { [`${kind}_source`]: image ? 'U' : kind === 'icon' ? 'G' : 'D', [`${kind}_version`]: version };
    await saveRealmSettings(actor.sql, realm.id, { name: realm.name, description: realm.description, settings });
    actor.state.realm = { ...realm, settings: { ...realm.settings, ...settings } };
    const view = viewOf(actor, kind);
    actor.events.publish(realmUpdateDictEvent(view, kind), actor.state.activeUsers().map((u) => u.id));
    if (before.uploaded) await storage.delete('avatars', realmImageKey(realm.id, kind, before.version));
    return view;
  });
}

function requireAdmin(user: User): void {
  if (!isAdmin(user)) throw mustBeAdmin();
}

export async function uploadRealmImage(actor: RealmActor, user: User, kind: RealmImageKind, files: UploadedFile[] | undefined): Promise<Record<string, string>> {
  requireAdmin(user);
  const isIcon = kind === 'icon';
  const limit = isIcon ? REALM_LIMITS.max_icon_file_size_mib : REALM_LIMITS.max_logo_file_size_mib;
  const file = checkImageFile(files, limit, isIcon ? 'You must upload exactly one icon.' : 'You must upload exactly one logo.');
  const bytes = await stagedBytes(actor, file);
  const image = isIcon ? await resizedPng(bytes, ICON_SIZE, 'cover') : await resizedPng(bytes, LOGO_WIDTH, 'inside', LOGO_HEIGHT);
  return changeRealmImage(actor, kind, image);
}

export async function deleteRealmImage(actor: RealmActor, user: User, kind: RealmImageKind): Promise<Record<string, string>> {
  requireAdmin(user);
  return changeRealmImage(actor, kind, null);
}
