// PATCH /settings: the caller's own account settings (name, password, time zone and every
// personal display, notification and privacy setting).
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p, type ParamSpec } from '../http/params.js';
import { updateOwnSettings } from '../actions/users/settings.js';
import { keepSessionAfterPasswordChange } from '../actions/users/login.js';
import { USER_SETTINGS } from '../model/userSettings.js';
import { startEmailChange } from '../actions/email/emailChange.js';

function settingParam(kind: 'bool' | 'int' | 'string'): z.ZodType {
  if (kind === 'bool') return p.bool().optional();
  if (kind === 'int') return p.int().optional();
  return p.jsonOrString(z.string()).optional();
}

/** Optional parameters for the named personal settings, typed by the settings catalog. */
export function userSettingParams(names: string[]): ParamSpec {
  return Object.fromEntries(names.map((name) => [name, settingParam(USER_SETTINGS[name]!.spec.kind)]));
}

const settingParams = userSettingParams(Object.keys(USER_SETTINGS));

/**
 * PATCH /settings, and the paths it replaced (feature level 80), which Zulip still routes to
 * the same view and older clients still call.
 */
const SETTINGS_PATHS = ['/settings', '/settings/display', '/settings/notifications'];

export const settingsEndpoints = SETTINGS_PATHS.map((path) =>
  endpoint({
    method: 'PATCH',
    path,
    auth: 'user',
    params: {
      full_name: p.string().optional(),
      email: p.string().optional(),
      old_password: p.string().optional(),
      new_password: p.string().optional(),
      timezone: p.string().optional(),
      ...settingParams,
    },
    async handler({ actor, user, args, session }) {
      const { full_name, email, old_password, new_password, timezone, ...rest } = args as Record<string, unknown>;
      // Only starts the change: the address changes when the link mailed to it is opened.
      if (email !== undefined) await startEmailChange(actor, user, email as string);
      const settings: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(rest)) if (value !== undefined) settings[name] = value;
      await updateOwnSettings(actor, user, {
        fullName: full_name as string | undefined,
        oldPassword: old_password as string | undefined,
        newPassword: new_password as string | undefined,
        timezone: timezone as string | undefined,
        settings,
      });
      if (new_password !== undefined) await keepSessionAfterPasswordChange(actor, user.id, session ?? null);
      return {};
    },
  }),
);
