// Organization settings: PATCH /realm and PATCH /realm/user_settings_defaults.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p, type ParamSpec } from '../http/params.js';
import { badRequest } from '../model/errors.js';
import { updateRealm, updateRealmUserDefaults } from '../actions/realm/settings.js';
import { groupSettingChangeSchema, type GroupSettingChange } from '../permissions/groupPermissions.js';
import { MAX_REALM_DESCRIPTION_LENGTH, MAX_REALM_NAME_LENGTH, REALM_PERMISSION_SETTINGS, REALM_PROPERTIES } from '../permissions/realmDefaults.js';
import { REALM_DEFAULT_SETTING_NAMES } from '../model/userSettings.js';
import { userSettingParams } from './settings.js';

const BOOLEAN_PROPERTIES = [
  'allow_edit_history', 'allow_message_editing', 'avatar_changes_disabled', 'digest_emails_enabled',
  'disallow_disposable_email_addresses', 'email_changes_disabled', 'emails_restricted_to_domains',
  'enable_guest_user_dm_warning', 'enable_guest_user_indicator', 'enable_read_receipts', 'enable_spectator_access', 'inline_image_preview',
  'inline_url_embed_preview', 'invite_required', 'mandatory_topics', 'message_content_allowed_in_email_notifications',
  'name_changes_disabled', 'require_unique_names', 'send_welcome_emails', 'want_advertise_in_communities_directory',
];

const oneOf = (name: string, values: readonly number[]) =>
  p.int().refine((v) => values.includes(v), { message: `Invalid ${name}` });

/** Seconds, or "unlimited" (stored as null). */
const limitSeconds = (name: string) =>
  p.jsonOrString(
    z.union([z.literal('unlimited'), z.number().int().min(1, { message: `Bad value for '${name}'` })]),
  ).transform((v) => (v === 'unlimited' ? null : v));

const propertyParams: ParamSpec = {
  ...Object.fromEntries(BOOLEAN_PROPERTIES.map((n) => [n, p.bool().optional()])),
  default_code_block_language: p.string().optional(),
  default_language: p.string().max(20).optional(),
  digest_weekday: oneOf('digest_weekday', [0, 1, 2, 3, 4, 5, 6]).optional(),
  giphy_rating: oneOf('giphy_rating', [0, 1, 2, 3]).optional(),
  message_content_delete_limit_seconds: limitSeconds('message_content_delete_limit_seconds').optional(),
  message_content_edit_limit_seconds: limitSeconds('message_content_edit_limit_seconds').optional(),
  message_edit_history_visibility_policy: z.enum(['all', 'moves', 'none']).optional(),
  message_retention_days: p.jsonOrString(
    z.union([z.literal('unlimited'), z.number().int().min(1, { message: "Bad value for 'message_retention_days'" })]),
  ).transform((v) => (v === 'unlimited' ? -1 : v)).optional(),
  move_messages_between_streams_limit_seconds: limitSeconds('move_messages_between_streams_limit_seconds').optional(),
  move_messages_within_stream_limit_seconds: limitSeconds('move_messages_within_stream_limit_seconds').optional(),
  moderation_request_channel_id: p.json(z.number().int().min(-1, { message: 'Invalid channel ID' })).optional(),
  new_stream_announcements_stream_id: p.json(z.number().int().min(-1, { message: 'Invalid channel ID' })).optional(),
  signup_announcements_stream_id: p.json(z.number().int().min(-1, { message: 'Invalid channel ID' })).optional(),
  topics_policy: z.enum(['allow_empty_topic', 'disable_empty_topic'], { message: 'Invalid topics_policy' }).optional(),
  video_chat_provider: oneOf('video_chat_provider', [0, 1, 3, 4, 5]).optional(),
  waiting_period_threshold: p.json(z.number().int().min(0, { message: "Bad value for 'waiting_period_threshold'" })).optional(),
  zulip_update_announcements_stream_id: p.json(z.number().int().min(-1, { message: 'Invalid channel ID' })).optional(),
};

const groupParams: ParamSpec = Object.fromEntries(
  Object.keys(REALM_PERMISSION_SETTINGS).map((n) => [n, p.json(groupSettingChangeSchema).optional()]),
);

export const realmEndpoints = [
  endpoint({
    method: 'PATCH',
    path: '/realm',
    auth: 'user',
    params: {
      name: p.string().max(MAX_REALM_NAME_LENGTH).optional(),
      description: p.string().max(MAX_REALM_DESCRIPTION_LENGTH).optional(),
      ...propertyParams,
      ...groupParams,
    },
    async handler({ actor, user, args }) {
      const a = args as Record<string, unknown>;
      if (typeof a.name === 'string' && a.name.trim() === '') throw badRequest("Organization name can't be empty.");
      const properties: Record<string, unknown> = {};
      for (const name of Object.keys(REALM_PROPERTIES)) if (a[name] !== undefined) properties[name] = a[name];
      const groupSettings: Record<string, GroupSettingChange> = {};
      for (const name of Object.keys(REALM_PERMISSION_SETTINGS)) {
        if (a[name] !== undefined) groupSettings[name] = a[name] as GroupSettingChange;
      }
      await updateRealm(actor, user, {
        name: typeof a.name === 'string' ? a.name.trim() : undefined,
        description: a.description as string | undefined,
        properties,
        groupSettings,
      });
      return {};
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/realm/user_settings_defaults',
    auth: 'user',
    params: userSettingParams(REALM_DEFAULT_SETTING_NAMES),
    async handler({ actor, user, args }) {
      const changes: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(args as Record<string, unknown>)) if (value !== undefined) changes[name] = value;
      await updateRealmUserDefaults(actor, user, changes);
      return {};
    },
  }),
];
