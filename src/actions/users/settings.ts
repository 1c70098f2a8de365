// PATCH /settings: the caller's own name, password, time zone and personal settings. Commit
// first, then memory, then one event per changed setting (as Zulip's do_change_user_setting).
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import { Role, type User } from '../../model/types.js';
import { checkFullName } from './create.js';
import { presenceSettingChanged } from './presence.js';
import { hashPassword, verifyPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../auth/passwords.js';
import { FailureLimiter, failedPasswordRule } from '../../auth/failures.js';
import { checkSettingValue, userSettingValue, type SettingValue } from '../../model/userSettings.js';
import { publishEmailVisibilityChange, publishRealmUserUpdate, publishSettingChange } from './events.js';
import { apiEmail } from '../../views/users.js';
import { updateFullName, updatePasswordHash, updateTimezone, updateUserSettings } from '../../db/settings.js';
import { actingUser } from '../../permissions/roles.js';
import { realmProperty } from '../../permissions/realmSettings.js';
import { deleteUserDrafts } from '../../db/drafts.js';

// Zulip's authenticate_by_username rule applies to password checks here too.
const passwordFailures = new FailureLimiter();

export interface SettingsUpdate {
  fullName?: string;
  oldPassword?: string;
  newPassword?: string;
  timezone?: string;
  /** Personal settings by name, as parsed from the request (checked here). */
  settings: Record<string, unknown>;
}

export function checkTimezone(tz: string): string {
  if (tz === '') return tz;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch (err) {
    if (err instanceof RangeError) throw badRequest('timezone is not a recognized time zone');
    throw err;
  }
  return tz;
}

/** Zulip's check_full_name on top of the shared rules: no trailing `|<digits>`, unique names if required. */
function checkNewFullName(actor: RealmActor, user: User, raw: string): string {
  const name = checkFullName(raw);
  if (realmProperty(actor.state, 'require_unique_names') === true) {
    for (const other of actor.state.users.values()) {
      if (other.id !== user.id && other.fullName.toLowerCase() === name.toLowerCase()) {
        throw badRequest('Unique names required in this organization.');
      }
    }
  }
  return name;
}

async function checkPasswordChange(actor: RealmActor, user: User, oldPassword: string | undefined, newPassword: string): Promise<string> {
  const key = `${actor.realm.id}:${user.id}`;
  const rule = failedPasswordRule(actor.services.config.RATE_LIMITS);
  passwordFailures.check(key, rule);
  if (!(await verifyPassword(oldPassword ?? '', user.passwordHash))) {
    passwordFailures.record(key, rule);
    throw badRequest('Wrong password!');
  }
  passwordFailures.clear(key);
  if (newPassword.length < PASSWORD_MIN_LENGTH) throw badRequest('New password is too weak!');
  if (newPassword.length > PASSWORD_MAX_LENGTH) throw badRequest('New password is too long!');
  return hashPassword(newPassword);
}

export async function updateOwnSettings(actor: RealmActor, acting: User, update: SettingsUpdate): Promise<void> {
  if (acting.isBot) throw badRequest('This endpoint does not accept bot requests.');
  for (const [name, value] of Object.entries(update.settings)) {
    const problem = checkSettingValue(name, value);
    if (problem) throw badRequest(problem);
  }
  const timezone = update.timezone === undefined ? undefined : checkTimezone(update.timezone);
  // Hashing is slow on purpose; do it before taking a turn in the mailbox.
  const passwordHash =
    update.newPassword === undefined ? undefined : await checkPasswordChange(actor, acting, update.oldPassword, update.newPassword);

  await actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    let fullName: string | undefined;
    if (update.fullName !== undefined && update.fullName !== user.fullName) {
      // Zulip ignores the change silently when names are locked: the UI does not offer it.
      const locked = realmProperty(actor.state, 'name_changes_disabled') === true && user.role > Role.ADMINISTRATOR;
      if (!locked) {
        const checked = checkNewFullName(actor, user, update.fullName);
        if (checked !== user.fullName) fullName = checked;
      }
    }
    const changed: Record<string, SettingValue> = {};
    for (const [name, value] of Object.entries(update.settings)) {
      // Checked by checkSettingValue before the turn began.
      if (userSettingValue(user.settings, name) !== value) changed[name] = value as SettingValue;
    }
    const newTimezone = timezone !== undefined && timezone !== user.timezone ? timezone : undefined;
    const anySetting = Object.keys(changed).length > 0;
    if (fullName === undefined && newTimezone === undefined && !anySetting && passwordHash === undefined) return;

    await actor.sql.begin(async (tx) => {
      if (fullName !== undefined) await updateFullName(tx, user.id, fullName);
      if (newTimezone !== undefined) await updateTimezone(tx, user.id, newTimezone);
      if (anySetting) await updateUserSettings(tx, user.id, changed);
      if (passwordHash !== undefined) await updatePasswordHash(tx, user.id, passwordHash);
      // As Zulip: the drafts stored so far go, with no events (the devices keep theirs locally).
      if (changed.enable_drafts_synchronization === false) await deleteUserDrafts(tx, user.id);
    });

    const oldVisibility = userSettingValue(user.settings, 'email_address_visibility') as number;
    const next: User = {
      ...user,
      fullName: fullName ?? user.fullName,
      timezone: newTimezone ?? user.timezone,
      passwordHash: passwordHash ?? user.passwordHash,
      settings: { ...user.settings, ...changed },
    };
    actor.state.putUser(next);

    if (fullName !== undefined) publishRealmUserUpdate(actor, next, { full_name: fullName });
    for (const [name, value] of Object.entries(changed)) {
      publishSettingChange(actor, next, name, value);
      if (name === 'email_address_visibility') publishEmailVisibilityChange(actor, next, oldVisibility);
      if (name === 'presence_enabled') presenceSettingChanged(actor, next, value === true);
    }
    if (newTimezone !== undefined) {
      publishSettingChange(actor, next, 'timezone', newTimezone);
      publishRealmUserUpdate(actor, next, { email: apiEmail(actor.services.config, actor.realm, next), timezone: newTimezone });
    }
  });
}
