// Events about the organization: its settings, the defaults of new users' settings,
// linkifiers, code playgrounds and invitations.
import { z } from 'zod';
import { linkifierObject, playgroundObject, type ApiObject } from './objects.js';

export const realmEventSchema = z.union([
  z.strictObject({ type: z.literal('realm'), op: z.literal('update'), property: z.string(), value: z.unknown() }),
  z.strictObject({ type: z.literal('realm'), op: z.literal('update_dict'), property: z.enum(['default', 'icon', 'logo', 'night_logo']), data: z.record(z.string(), z.unknown()) }),
]);
export type RealmEvent = z.infer<typeof realmEventSchema>;

export const realmUpdateEvent = (property: string, value: unknown): RealmEvent => ({ type: 'realm', op: 'update', property, value });

export const realmUpdateDictEvent = (data: Record<string, unknown>, property: 'default' | 'icon' | 'logo' | 'night_logo' = 'default'): RealmEvent => ({
  type: 'realm', op: 'update_dict', property, data,
});

export const realmUserSettingsDefaultsEventSchema = z.strictObject({
  type: z.literal('realm_user_settings_defaults'),
  op: z.literal('update'),
  property: z.string(),
  value: z.union([z.string(), z.number(), z.boolean()]),
});
export type RealmUserSettingsDefaultsEvent = z.infer<typeof realmUserSettingsDefaultsEventSchema>;

export const realmUserSettingsDefaultsEvent = (property: string, value: string | number | boolean): RealmUserSettingsDefaultsEvent => ({
  type: 'realm_user_settings_defaults', op: 'update', property, value,
});

export const realmLinkifiersEventSchema = z.strictObject({ type: z.literal('realm_linkifiers'), realm_linkifiers: z.array(linkifierObject) });
/** The pre-feature-level-176 form: always empty (old clients cannot render URL templates). */
export const realmFiltersEventSchema = z.strictObject({ type: z.literal('realm_filters'), realm_filters: z.tuple([]) });
export type RealmLinkifiersEvent = z.infer<typeof realmLinkifiersEventSchema> | z.infer<typeof realmFiltersEventSchema>;

export const realmLinkifiersEvent = (linkifiers: ApiObject[]): RealmLinkifiersEvent => ({ type: 'realm_linkifiers', realm_linkifiers: linkifiers });

export const realmFiltersEvent = (): RealmLinkifiersEvent => ({ type: 'realm_filters', realm_filters: [] });

export const realmPlaygroundsEventSchema = z.strictObject({ type: z.literal('realm_playgrounds'), realm_playgrounds: z.array(playgroundObject) });
export type RealmPlaygroundsEvent = z.infer<typeof realmPlaygroundsEventSchema>;

export const realmPlaygroundsEvent = (playgrounds: ApiObject[]): RealmPlaygroundsEvent => ({ type: 'realm_playgrounds', realm_playgrounds: playgrounds });

export const invitesChangedEventSchema = z.strictObject({ type: z.literal('invites_changed') });
export type InvitesChangedEvent = z.infer<typeof invitesChangedEventSchema>;

export const invitesChangedEvent = (): InvitesChangedEvent => ({ type: 'invites_changed' });

export const realmEventSchemas = [
  realmEventSchema, realmUserSettingsDefaultsEventSchema, realmLinkifiersEventSchema, realmFiltersEventSchema,
  realmPlaygroundsEventSchema, invitesChangedEventSchema,
] as const;
