// The User object of the API (spec 2.1) as one viewer sees it.
import { createHash } from 'node:crypto';
import { avatarKey } from '../model/avatars.js';
import type { Config } from '../config.js';
import { apiEmailIsReal, canSeeRealEmail } from '../permissions/email.js';
import { fakeEmailDomain } from '../http/urls.js';
import { Role, type RealmRecord, type User } from '../model/types.js';

export interface UserViewOptions {
  clientGravatar: boolean;
  includeCustomProfileFields?: boolean;
  /** Leave `is_active` out (register's lists say it by which list a user is in). */
  omitIsActive?: boolean;
  /** Profile data of the target, when the caller asked for it. */
  profileData?: Record<string, { value: string; rendered_value?: string }>;
  /** Whether the real email shows, when decided by the caller (register's lists, per viewer class). */
  realEmailVisible?: boolean;
}

export function apiEmail(config: Config, realm: RealmRecord, user: User): string {
  return apiEmailIsReal(user) ? user.deliveryEmail : `user${user.id}@${fakeEmailDomain(config, realm)}`;
}

export function gravatarUrl(email: string, version: number, medium = false): string {
  const hash = createHash('md5').update(email.toLowerCase()).digest('hex');
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon${medium ? '&s=500' : ''}&version=${version}`;
}

/**
 * Strings derived from one User object alone (an md5, a date text), computed once per object:
 * putUser replaces the object on every change, so an entry never outlives what it reflects.
 */
interface DerivedUserText {
  avatar: string;
  avatarMedium?: string;
  dateJoined: string;
}
const derived = new WeakMap<User, DerivedUserText>();

function derivedText(user: User): DerivedUserText {
  let d = derived.get(user);
  if (!d) {
    const avatar = user.avatarSource === 'U' ? uploadedAvatarUrl(user, false) : gravatarUrl(user.deliveryEmail, user.avatarVersion);
    d = { avatar, dateJoined: isoTimestamp(user.dateJoined) };
    derived.set(user, d);
  }
  return d;
}

/** The URL of an uploaded avatar (served from storage under /user_avatars/), with its version. */
function uploadedAvatarUrl(user: User, medium: boolean): string {
  return `/user_avatars/${avatarKey(user.realmId, user.id, user.avatarVersion, medium)}?version=${user.avatarVersion}`;
}

export function avatarUrl(user: User, medium = false): string {
  const d = derivedText(user);
  if (!medium) return d.avatar;
  return (d.avatarMedium ??= user.avatarSource === 'U' ? uploadedAvatarUrl(user, true) : gravatarUrl(user.deliveryEmail, user.avatarVersion, true));
}

/** Zulip's timestamp text: ISO 8601 with microseconds and an explicit UTC offset. */
export function isoTimestamp(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

export function formatUser(
  config: Config,
  realm: RealmRecord,
  viewer: User | null,
  user: User,
  opts: UserViewOptions,
): Record<string, unknown> {
  const realEmailVisible = opts.realEmailVisible ?? canSeeRealEmail(viewer, user);
  const text = derivedText(user);
  const out: Record<string, unknown> = {
    email: apiEmail(config, realm, user),
    user_id: user.id,
    avatar_version: user.avatarVersion,
    is_admin: user.role <= Role.ADMINISTRATOR,
    is_owner: user.role === Role.OWNER,
    is_guest: user.role === Role.GUEST,
    is_bot: user.isBot,
    role: user.role,
    full_name: user.fullName,
    timezone: user.timezone,
    date_joined: text.dateJoined,
    delivery_email: realEmailVisible ? user.deliveryEmail : null,
    // With client_gravatar the client derives a Gravatar from `email`: only possible when
    // `email` is the real address (Zulip's format_user_row, visibility "everyone").
    avatar_url: opts.clientGravatar && user.avatarSource === 'G' && apiEmailIsReal(user) ? null : text.avatar,
  };
  // Left out by adding it only when wanted: deleting a key would turn the object into a slow
  // dictionary (for JSON.stringify too).
  if (!opts.omitIsActive) out.is_active = user.isActive;
  // Bots only, as Zulip's format_user_row: humans have no bot_type key at all.
  if (user.isBot) {
    out.bot_type = user.botType;
    out.bot_owner_id = user.botOwnerId;
  }
  if (!user.isBot && opts.includeCustomProfileFields) out.profile_data = opts.profileData ?? {};
  return out;
}

/**
 * The JSON text of register's view of a user (formatUser with custom profile fields and
 * without `is_active`) up to, not including, `profile_data` and the closing brace. It
 * depends on the User object (replaced on every change), the realm record, whether the
 * viewer sees the real email and client_gravatar: kept per object for those variants.
 */
interface RegisterUserText {
  realm: RealmRecord;
  /** Placeholder emails name the realm by this. */
  stringId: string;
  config: Config;
  variants: Array<string | undefined>;
}
const registerUserTexts = new WeakMap<User, RegisterUserText>();

function registerUserHead(config: Config, realm: RealmRecord, viewer: User, user: User, clientGravatar: boolean, realEmailVisible: boolean): string {
  // avatar_url depends on client_gravatar only for a Gravatar of a real API email.
  const index = (realEmailVisible ? 1 : 0) + (clientGravatar && user.avatarSource === 'G' && apiEmailIsReal(user) ? 2 : 0);
  let entry = registerUserTexts.get(user);
  if (!entry || entry.realm !== realm || entry.stringId !== realm.stringId || entry.config !== config) {
    registerUserTexts.set(user, (entry = { realm, stringId: realm.stringId, config, variants: [] }));
  }
  let head = entry.variants[index];
  if (head === undefined) {
    // Made by formatUser itself, so the text cannot drift from the object form.
    const view = formatUser(config, realm, viewer, user, { clientGravatar, omitIsActive: true, realEmailVisible });
    const text = JSON.stringify(view);
    head = entry.variants[index] = text.slice(0, -1);
  }
  return head;
}

/**
 * JSON text of `formatUser(…, {includeCustomProfileFields, omitIsActive})` for register;
 * `realEmailVisible`, when given, decides the email instead of the viewer.
 */
export function registerUserJson(
  config: Config,
  realm: RealmRecord,
  viewer: User,
  user: User,
  clientGravatar: boolean,
  profileData: (() => Record<string, unknown>) | null,
  realEmailVisible = canSeeRealEmail(viewer, user),
): string {
  const head = registerUserHead(config, realm, viewer, user, clientGravatar, realEmailVisible);
  if (user.isBot) return head + '}';
  const data = profileData?.();
  return head + ',"profile_data":' + (data ? JSON.stringify(data) : '{}') + '}';
}

/** Zulip's name for a user the viewer may not see (UserProfile.INACCESSIBLE_USER_NAME). */
export const INACCESSIBLE_USER_NAME = 'Unknown user';
/** Zulip's avatar for such a user (get_avatar_for_inaccessible_user). */
export const INACCESSIBLE_USER_AVATAR = '/static/images/unknown-user-avatar.png';

/** Zulip's join date for such a user: the Unix epoch, as Python's isoformat writes it. */
export const INACCESSIBLE_USER_DATE_JOINED = '1970-01-01T00:00:00+00:00';

/** The placeholder address `user{id}@{realm host}` of a user. */
export function placeholderEmail(config: Config, realm: RealmRecord, userId: number): string {
  return `user${userId}@${fakeEmailDomain(config, realm)}`;
}

/**
 * What a guest limited by can_access_all_users_group learns of a user outside its sight in
 * a list: Zulip's get_data_for_inaccessible_user, which says nothing true but the id.
 */
export function inaccessibleUserView(config: Config, realm: RealmRecord, userId: number): Record<string, unknown> {
  return {
    email: placeholderEmail(config, realm, userId),
    user_id: userId,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    is_bot: false,
    role: Role.MEMBER,
    full_name: INACCESSIBLE_USER_NAME,
    timezone: '',
    is_active: true,
    date_joined: INACCESSIBLE_USER_DATE_JOINED,
    delivery_email: null,
    avatar_url: INACCESSIBLE_USER_AVATAR,
    profile_data: {},
  };
}
