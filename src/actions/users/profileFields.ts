// Custom profile fields (administrators) and users' values of them.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { CustomProfileField, User } from '../../model/types.js';
import { deleteProfileField, insertProfileField, saveProfileField, saveProfileFieldOrder, saveProfileValues } from '../../db/profileFields.js';
import { renderContent } from '../messages/render.js';
import { checkFieldDefinition, checkFieldValue, formatField, isRenderable, MAX_SUMMARY_FIELDS, type FieldDefinitionInput } from '../../views/profileFields.js';
import { actingUser, requireAdmin } from '../../permissions/roles.js';
import { customProfileFieldsEvent } from '../../events/catalog/index.js';
import { publishRealmUserUpdate } from './events.js';

const everyone = (actor: RealmActor) => actor.state.activeUsers().map((u) => u.id);

function sortedFields(actor: RealmActor): CustomProfileField[] {
  return [...actor.state.profileFields.values()].sort((a, b) => a.order - b.order || a.id - b.id);
}

function publishFields(actor: RealmActor): void {
  actor.events.publish(customProfileFieldsEvent(sortedFields(actor).map(formatField)), everyone(actor));
}

function fieldById(actor: RealmActor, id: number): CustomProfileField {
  const field = actor.state.profileFields.get(id);
  if (!field) throw badRequest(`Field id ${id} not found.`);
  return field;
}

function checkSummaryLimit(actor: RealmActor, display: boolean, exceptId = 0): void {
  if (!display) return;
  const others = [...actor.state.profileFields.values()].filter((f) => f.displayInProfileSummary && f.id !== exceptId);
  if (others.length >= MAX_SUMMARY_FIELDS) {
    throw badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
  }
}

function checkNameFree(actor: RealmActor, name: string, exceptId = 0): void {
  const taken = [...actor.state.profileFields.values()].some((f) => f.id !== exceptId && f.name.toLowerCase() === name.toLowerCase());
  if (taken) throw badRequest('A field with that label already exists.');
}

/** POST /realm/profile_fields. */
export function createProfileField(actor: RealmActor, acting: User, input: FieldDefinitionInput): Promise<CustomProfileField> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    const def = checkFieldDefinition(input);
    checkSummaryLimit(actor, def.displayInProfileSummary);
    checkNameFree(actor, def.name);
    const order = Math.max(-1, ...[...actor.state.profileFields.values()].map((f) => f.order)) + 1;
    const field = await insertProfileField(actor.sql, { ...def, realmId: actor.realm.id, order });
    actor.state.putProfileField(field);
    publishFields(actor);
    return field;
  });
}

/** PATCH /realm/profile_fields/{id}: the type stays; choices removed drop the values using them. */
export function updateProfileField(
  actor: RealmActor,
  acting: User,
  id: number,
  changes: Partial<Omit<FieldDefinitionInput, 'fieldType'>>,
): Promise<void> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    const field = fieldById(actor, id);
    const def = checkFieldDefinition({
      fieldType: field.fieldType,
      name: changes.name ?? field.name,
      hint: changes.hint ?? field.hint,
      fieldData: changes.fieldData ?? (field.fieldData ? (JSON.parse(field.fieldData) as Record<string, unknown>) : {}),
      displayInProfileSummary: changes.displayInProfileSummary ?? field.displayInProfileSummary,
      required: changes.required ?? field.required,
      editableByUser: changes.editableByUser ?? field.editableByUser,
    });
    checkSummaryLimit(actor, def.displayInProfileSummary, field.id);
    checkNameFree(actor, def.name, field.id);
    const updated: CustomProfileField = { ...field, ...def };
    // Values naming a choice that no longer exists are removed.
    const dropped: number[] = [];
    if (field.fieldType === 3 && updated.fieldData !== field.fieldData) {
      const choices = JSON.parse(updated.fieldData) as Record<string, unknown>;
      for (const [userId, values] of actor.state.profileValues) {
        const v = values.get(field.id);
        if (v && !(v.value in choices)) dropped.push(userId);
      }
    }
    await saveProfileField(actor.sql, updated);
    for (const userId of dropped) await saveProfileValues(actor.sql, userId, [{ fieldId: field.id, value: null, renderedValue: null }]);
    actor.state.putProfileField(updated);
    for (const userId of dropped) actor.state.removeProfileValue(userId, field.id);
    publishFields(actor);
    for (const userId of dropped) publishValue(actor, userId, field.id, null, null);
  });
}

/** DELETE /realm/profile_fields/{id}. */
export function deleteProfileFieldById(actor: RealmActor, acting: User, id: number): Promise<void> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    const field = fieldById(actor, id);
    await deleteProfileField(actor.sql, actor.realm.id, field.id);
    actor.state.removeProfileField(field.id);
    publishFields(actor);
  });
}

/** PATCH /realm/profile_fields: `order` lists every field id once. */
export function reorderProfileFields(actor: RealmActor, acting: User, order: number[]): Promise<void> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    const ids = new Set(actor.state.profileFields.keys());
    if (order.length !== ids.size || new Set(order).size !== order.length || order.some((id) => !ids.has(id))) {
      throw badRequest('Invalid order mapping.');
    }
    await saveProfileFieldOrder(actor.sql, actor.realm.id, order);
    order.forEach((id, i) => actor.state.putProfileField({ ...actor.state.profileFields.get(id)!, order: i }));
    publishFields(actor);
  });
}

function publishValue(actor: RealmActor, userId: number, fieldId: number, value: string | null, rendered: string | null): void {
  const target = actor.user(userId);
  if (!target) return;
  const field = rendered === null ? { id: fieldId, value } : { id: fieldId, value, rendered_value: rendered };
  publishRealmUserUpdate(actor, target, { custom_profile_field: field });
}

export interface ProfileDataEntry {
  id: number;
  value: unknown;
}

/**
 * Validates and stores a user's values; an empty or null value removes it. `asAdmin` lets
 * administrators set fields users may not edit themselves.
 */
export async function applyProfileData(actor: RealmActor, target: User, entries: ProfileDataEntry[], asAdmin: boolean): Promise<void> {
  if (target.isBot) throw badRequest('Custom profile fields are not available for bots.');
  const changes: { fieldId: number; value: string | null; renderedValue: string | null }[] = [];
  for (const entry of entries) {
    const field = fieldById(actor, entry.id);
    if (!asAdmin && !field.editableByUser) {
      throw badRequest('You are not allowed to change this field. Contact an administrator to update it.');
    }
    const empty = entry.value === null || entry.value === '' || (Array.isArray(entry.value) && entry.value.length === 0);
    if (empty) {
      changes.push({ fieldId: field.id, value: null, renderedValue: null });
      continue;
    }
    const value = checkFieldValue(actor.state, field, entry.value);
    const rendered = isRenderable(field) ? (await renderContent(actor, value)).html : null;
    changes.push({ fieldId: field.id, value, renderedValue: rendered });
  }
  const current = actor.state.profileValues.get(target.id);
  const real = changes.filter((c) => (current?.get(c.fieldId)?.value ?? null) !== c.value);
  if (!real.length) return;
  await saveProfileValues(actor.sql, target.id, real);
  for (const c of real) {
    if (c.value === null) actor.state.removeProfileValue(target.id, c.fieldId);
    else actor.state.putProfileValue({ fieldId: c.fieldId, userId: target.id, value: c.value, renderedValue: c.renderedValue });
    publishValue(actor, target.id, c.fieldId, c.value, c.renderedValue);
  }
}

/** PATCH /users/me/profile_data. */
export function updateOwnProfileData(actor: RealmActor, acting: User, entries: ProfileDataEntry[]): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    await applyProfileData(actor, user, entries, false);
  });
}

/** DELETE /users/me/profile_data: field ids whose values to remove. */
export function removeOwnProfileData(actor: RealmActor, acting: User, fieldIds: number[]): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    await applyProfileData(actor, user, fieldIds.map((id) => ({ id, value: null })), false);
  });
}
