// The organization's icon and logos as the API shows them: uploaded ones from the public
// storage area (kept as `icon_source`/`icon_version`-style entries of the realm's settings),
// else Zulip's defaults (an identicon for the icon, Zulip's logo).
import { createHash } from 'node:crypto';
import type { RealmRecord } from '../model/types.js';
import { realmImageKey } from '../model/avatars.js';

export type RealmImageKind = 'icon' | 'logo' | 'night_logo';

const DEFAULT_LOGO_URL = '/static/images/logo/zulip-org-logo.svg?version=0';

export const realmImageVersion = (realm: RealmRecord, kind: RealmImageKind): number => Number(realm.settings[`${kind}_version`] ?? 0);

export const realmImageUploaded = (realm: RealmRecord, kind: RealmImageKind): boolean => realm.settings[`${kind}_source`] === 'U';

function uploadedUrl(realm: RealmRecord, kind: RealmImageKind): string {
  const version = realmImageVersion(realm, kind);
  return `/user_avatars/${realmImageKey(realm.id, kind, version)}?version=${version}`;
}

/** `{icon_url, icon_source}`: 'U' uploaded, 'G' the identicon derived from the subdomain. */
export function realmIconView(realm: RealmRecord): { icon_url: string; icon_source: string } {
  if (realmImageUploaded(realm, 'icon')) return { icon_url: uploadedUrl(realm, 'icon'), icon_source: 'U' };
  const hash = createHash('md5').update(realm.stringId).digest('hex');
  return { icon_url: `https://secure.gravatar.com/avatar/${hash}?d=identicon`, icon_source: 'G' };
}

/** The day or night logo: 'U' uploaded, 'D' Zulip's default. */
export function realmLogoView(realm: RealmRecord, night: boolean): Record<string, string> {
  const kind: RealmImageKind = night ? 'night_logo' : 'logo';
  const uploaded = realmImageUploaded(realm, kind);
  return { [`${kind}_url`]: uploaded ? uploadedUrl(realm, kind) : DEFAULT_LOGO_URL, [`${kind}_source`]: uploaded ? 'U' : 'D' };
}
