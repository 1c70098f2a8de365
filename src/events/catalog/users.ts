// Events about users: accounts (`realm_user`), bots, personal settings, alert words,
// presence and custom profile fields.
import { z } from 'zod';
import { botObject, int, profileFieldObject, userObject, type ApiObject } from './objects.js';

/** What a `realm_user` update says changed, besides the user's id: one of Zulip's shapes. */
const personChange = z.union([
  z.strictObject({ full_name: z.string() }),
  z.strictObject({ avatar_source: z.string(), avatar_url: z.string().nullable(), avatar_url_medium: z.string(), avatar_version: int() }),
  z.strictObject({ email: z.string(), timezone: z.string() }),
  z.strictObject({ bot_owner_id: int().nullable() }),
  z.strictObject({ role: int() }),
  z.strictObject({ delivery_email: z.string().nullable() }),
  z.strictObject({ custom_profile_field: z.strictObject({ id: int(), value: z.string().nullable(), rendered_value: z.string().optional() }) }),
  z.strictObject({ new_email: z.string() }),
  z.strictObject({ is_active: z.boolean() }),
]);
export type PersonChange = z.infer<typeof personChange>;

const withUserId = <T extends z.ZodObject>(o: T) => o.extend({ user_id: int() });

export const realmUserEventSchema = z.union([
  z.strictObject({ type: z.literal('realm_user'), op: z.literal('add'), person: userObject }),
  z.strictObject({ type: z.literal('realm_user'), op: z.literal('update'), person: z.union(personChange.options.map(withUserId)) }),
  z.strictObject({ type: z.literal('realm_user'), op: z.literal('remove'), person: z.strictObject({ user_id: int(), full_name: z.string() }) }),
]);
export type RealmUserEvent = z.infer<typeof realmUserEventSchema>;

export const realmUserAddEvent = (person: ApiObject): RealmUserEvent => ({ type: 'realm_user', op: 'add', person });

export const realmUserUpdateEvent = (userId: number, change: PersonChange): RealmUserEvent => ({
  type: 'realm_user', op: 'update', person: { user_id: userId, ...change },
});

export const realmUserRemoveEvent = (userId: number, fullName: string): RealmUserEvent => ({
  type: 'realm_user', op: 'remove', person: { user_id: userId, full_name: fullName },
});

const botChange = z.strictObject({
  full_name: z.string().optional(),
  role: int().optional(),
  is_active: z.boolean().optional(),
  api_key: z.string().optional(),
  avatar_url: z.string().optional(),
  owner_id: int().nullable().optional(),
  default_sending_stream: z.string().nullable().optional(),
  default_events_register_stream: z.string().nullable().optional(),
  default_all_public_streams: z.boolean().optional(),
  services: z.array(z.strictObject({ base_url: z.string(), interface: int(), token: z.string() })).optional(),
});
export type BotChange = z.infer<typeof botChange>;

export const realmBotEventSchema = z.union([
  z.strictObject({ type: z.literal('realm_bot'), op: z.literal('add'), bot: botObject }),
  z.strictObject({ type: z.literal('realm_bot'), op: z.literal('update'), bot: botChange.extend({ user_id: int() }) }),
  z.strictObject({ type: z.literal('realm_bot'), op: z.literal('delete'), bot: z.strictObject({ user_id: int() }) }),
]);
export type RealmBotEvent = z.infer<typeof realmBotEventSchema>;

export const realmBotAddEvent = (bot: ApiObject): RealmBotEvent => ({ type: 'realm_bot', op: 'add', bot });

export const realmBotUpdateEvent = (botId: number, change: BotChange): RealmBotEvent => ({
  type: 'realm_bot', op: 'update', bot: { user_id: botId, ...change },
});

export const realmBotDeleteEvent = (botId: number): RealmBotEvent => ({ type: 'realm_bot', op: 'delete', bot: { user_id: botId } });

const settingValue = z.union([z.string(), z.number(), z.boolean()]);

export const userSettingsEventSchema = z.strictObject({
  type: z.literal('user_settings'),
  op: z.literal('update'),
  property: z.string(),
  value: settingValue,
  language_name: z.string().optional(),
});
export type UserSettingsEvent = z.infer<typeof userSettingsEventSchema>;

export const userSettingsEvent = (property: string, value: string | number | boolean, languageName?: string): UserSettingsEvent =>
  languageName === undefined
    ? { type: 'user_settings', op: 'update', property, value }
    : { type: 'user_settings', op: 'update', property, value, language_name: languageName };

/** The pre-feature-level-89 forms of a settings change, for clients without `user_settings_object`. */
export const legacySettingsEventSchema = z.union([
  z.strictObject({
    type: z.literal('update_display_settings'), user: z.string(), setting_name: z.string(), setting: settingValue,
    language_name: z.string().optional(),
  }),
  z.strictObject({ type: z.literal('update_global_notifications'), user: z.string(), notification_name: z.string(), setting: settingValue }),
]);
export type LegacySettingsEvent = z.infer<typeof legacySettingsEventSchema>;

export const displaySettingsEvent = (email: string, name: string, value: string | number | boolean, languageName?: string): LegacySettingsEvent => {
  const event: LegacySettingsEvent = { type: 'update_display_settings', user: email, setting_name: name, setting: value };
  if (languageName !== undefined) event.language_name = languageName;
  return event;
};

export const notificationSettingsEvent = (email: string, name: string, value: string | number | boolean): LegacySettingsEvent => ({
  type: 'update_global_notifications', user: email, notification_name: name, setting: value,
});

export const alertWordsEventSchema = z.strictObject({ type: z.literal('alert_words'), alert_words: z.array(z.string()) });
export type AlertWordsEvent = z.infer<typeof alertWordsEventSchema>;

export const alertWordsEvent = (words: string[]): AlertWordsEvent => ({ type: 'alert_words', alert_words: words });

const legacyPresence = z.strictObject({ client: z.string(), status: z.enum(['active', 'idle']), timestamp: int(), pushable: z.boolean() });
export type LegacyPresence = z.infer<typeof legacyPresence>;

/** One user's presence, in the legacy per-client form (the only form at feature level 406). */
export const presenceEventSchema = z.strictObject({
  type: z.literal('presence'), email: z.string(), user_id: int(), server_timestamp: z.number(),
  presence: z.record(z.string(), legacyPresence),
});
export type PresenceEvent = z.infer<typeof presenceEventSchema>;

export const legacyPresenceEvent = (userId: number, email: string, serverTimestamp: number, website: LegacyPresence): PresenceEvent => ({
  type: 'presence', email, user_id: userId, server_timestamp: serverTimestamp, presence: { website },
});

export const customProfileFieldsEventSchema = z.strictObject({ type: z.literal('custom_profile_fields'), fields: z.array(profileFieldObject) });
export type CustomProfileFieldsEvent = z.infer<typeof customProfileFieldsEventSchema>;

export const customProfileFieldsEvent = (fields: ApiObject[]): CustomProfileFieldsEvent => ({ type: 'custom_profile_fields', fields });

export const userEventSchemas = [
  realmUserEventSchema, realmBotEventSchema, userSettingsEventSchema, legacySettingsEventSchema, alertWordsEventSchema,
  presenceEventSchema, customProfileFieldsEventSchema,
] as const;
